'use strict'

// One reader thread (SQLITE_READERS >= 1, see readers.js): its own
// better-sqlite3 connection, opened by db.js exactly as the main thread's
// (the seven pragmas), answering read queries posted by the main thread.
// A query runs synchronously here, off the event loop that serves HTTP.
const { parentPort, workerData } = require('node:worker_threads')
const db = require('./db')

let store
try {
  store = db.open(workerData.databasePath)
} catch (err) {
  parentPort.postMessage({ failed: err.message })
  process.exit(1)
}

// The reads a reader serves, by name; writes stay on the main thread.
const reads = {
  newestItems: () => store.newestItems(),
  readEvents: () => store.readEvents(),
  pragmas: () => store.pragmas()
}

// A message is [id, read]; the answer is [id, value] or [id, undefined, error].
parentPort.on('message', ([id, read]) => {
  let value
  try {
    value = reads[read]()
  } catch (err) {
    parentPort.postMessage([id, undefined, `${err.code || err.name}: ${err.message}`])
    return
  }
  parentPort.postMessage([id, value])
})
parentPort.postMessage({ ready: true })
