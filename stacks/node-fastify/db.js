'use strict'

// The process's SQLite connection. better-sqlite3 is synchronous and a Node
// process runs one request at a time on its thread, so one connection per
// process is the norm: there is no pool to hand out.
const Database = require('better-sqlite3')
const { threadId } = require('node:worker_threads')

const PRAGMAS = [
  'journal_mode = WAL',
  'synchronous = NORMAL',
  'busy_timeout = 5000',
  'cache_size = 2000',
  'mmap_size = 134217728',
  'journal_size_limit = 67108864',
  'foreign_keys = ON'
]

const PRAGMA_NAMES = [
  'journal_mode', 'synchronous', 'busy_timeout', 'cache_size',
  'mmap_size', 'journal_size_limit', 'foreign_keys'
]

const PAYLOAD = 'stacklab-bench-event-' + 'x'.repeat(179) // 200 ASCII bytes

function open (path) {
  // fileMustExist: the lab creates and seeds the file; a missing file is an
  // error, never a new empty database.
  let db
  try {
    db = new Database(path, { fileMustExist: true, timeout: 5000 })
  } catch (err) {
    throw new Error(`DATABASE_PATH ${path}: ${err.message}`)
  }
  for (const pragma of PRAGMAS) db.pragma(pragma)

  const newestItems = db.prepare('SELECT id, title, created_at FROM items ORDER BY id DESC LIMIT 20')
  const insertEvent = db.prepare('INSERT INTO bench_events (payload, created_at) VALUES (?, ?)')
  const countEvents = db.prepare('SELECT COUNT(*) FROM bench_events').pluck()
  const latestEvents = db.prepare('SELECT id, created_at FROM bench_events ORDER BY id DESC LIMIT 20')

  // .immediate(): BEGIN IMMEDIATE, so writers queue on busy_timeout instead
  // of failing on the lock upgrade.
  const writeEvent = db.transaction(() => insertEvent.run(PAYLOAD, Date.now()).lastInsertRowid)
  // One read transaction: the count and the rows come from one snapshot.
  const readEvents = db.transaction(() => ({ count: countEvents.get(), latest: latestEvents.all() }))

  return {
    newestItems: () => newestItems.all(),
    writeEvent: () => Number(writeEvent.immediate()),
    readEvents: () => readEvents(),
    // better-sqlite3 keeps its sqlite3 handle to itself, and a connection
    // belongs to the one thread that opened it for its whole life, so the
    // connection is named by its thread: process id and worker thread id
    // (0 the main thread).
    pragmas: () => ({
      ...Object.fromEntries(PRAGMA_NAMES.map((name) => [name, db.pragma(name, { simple: true })])),
      connection: `${process.pid}/${threadId}`
    }),
    close: () => db.close()
  }
}

module.exports = { open }
