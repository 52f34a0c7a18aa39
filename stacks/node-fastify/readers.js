'use strict'

// SQLITE_READERS=N (N >= 1): N node:worker_threads readers, each with its own
// SQLite connection (reader.js), serving the read queries by message
// passing, so a query runs off the event loop. The main thread keeps its own
// connection for the writes. better-sqlite3's SQLite is built without memory
// statistics (README, "The SQLite in this image"), so the readers' queries
// take no process-wide allocation mutex.
const path = require('node:path')
const { Worker } = require('node:worker_threads')

const READER = path.join(__dirname, 'reader.js')

// start(n, databasePath): resolves to the pool once every reader has opened
// its connection; rejects with the first reader's error (a missing database,
// say), after stopping the others.
async function start (n, databasePath) {
  const readers = []
  let stopping = false
  let nextId = 0
  let turn = 0

  function spawn () {
    const worker = new Worker(READER, { workerData: { databasePath } })
    const reader = { worker, pending: new Map() }
    const ready = new Promise((resolve, reject) => {
      worker.once('error', reject)
      worker.once('exit', (code) => reject(new Error(`reader thread exited (${code}) while starting`)))
      worker.on('message', (msg) => {
        if (Array.isArray(msg)) return answer(reader, msg)
        if (msg.failed) reject(new Error(msg.failed))
        else if (msg.ready) resolve()
      })
    })
    return { reader, ready }
  }

  function answer (reader, [id, value, error]) {
    const waiting = reader.pending.get(id)
    reader.pending.delete(id)
    if (error === undefined) waiting.resolve(value)
    else waiting.reject(new Error(error))
  }

  // A reader that dies while serving fails its waiting requests and is
  // replaced, as server.js replaces a cluster worker.
  function watch (reader) {
    reader.worker.on('error', (err) => console.error(`node-fastify: reader thread: ${err.message}`))
    reader.worker.on('exit', (code) => {
      for (const waiting of reader.pending.values()) waiting.reject(new Error(`reader thread exited (${code})`))
      reader.pending.clear()
      if (stopping) return
      const at = readers.indexOf(reader)
      console.error(`node-fastify: reader thread ${at} exited (${code}); starting another`)
      const next = spawn()
      readers[at] = next.reader
      next.ready.then(() => watch(next.reader), (err) => {
        console.error(`node-fastify: reader thread ${at} could not start again: ${err.message}`)
        process.exit(1)
      })
    })
  }

  const started = []
  for (let i = 0; i < n; i++) {
    const s = spawn()
    readers.push(s.reader)
    started.push(s.ready)
  }
  try {
    await Promise.all(started)
  } catch (err) {
    stopping = true
    await Promise.all(readers.map((r) => r.worker.terminate()))
    throw err
  }
  readers.forEach(watch)

  // The reader with the fewest requests waiting; among equals the next in
  // turn, so an idle pool spreads requests over every connection.
  function pick () {
    let best = readers[turn]
    for (let i = 1; i < readers.length; i++) {
      const r = readers[(turn + i) % readers.length]
      if (r.pending.size < best.pending.size) best = r
    }
    turn = (turn + 1) % readers.length
    return best
  }

  function run (read) {
    const reader = pick()
    const id = nextId++
    return new Promise((resolve, reject) => {
      reader.pending.set(id, { resolve, reject })
      reader.worker.postMessage([id, read])
    })
  }

  return {
    size: n,
    newestItems: () => run('newestItems'),
    readEvents: () => run('readEvents'),
    pragmas: () => run('pragmas'),
    // After the HTTP server has closed (server.js): end every thread.
    close: async () => {
      stopping = true
      await Promise.all(readers.map((r) => r.worker.terminate()))
    }
  }
}

module.exports = { start }
