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

  // The signed-in routes (docs/app.md, "Signed-in routes"). Every write is one
  // BEGIN IMMEDIATE transaction; the reads are single statements.
  const sessionUser = db.prepare('SELECT user_id FROM sessions WHERE token = ? AND expires_at > ?').pluck()
  const userById = db.prepare('SELECT id, email FROM users WHERE id = ?')
  const userByEmail = db.prepare('SELECT id, password_hash FROM users WHERE email = ?')
  const insertSession = db.prepare('INSERT INTO sessions (token, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)')
  const deleteSession = db.prepare('DELETE FROM sessions WHERE token = ?')
  const recentOrders = db.prepare(
    'SELECT id, email, status, total_cents, currency, placed_at FROM orders WHERE user_id = ? ORDER BY id DESC LIMIT 20')
  const insertOrder = db.prepare(
    "INSERT INTO orders (user_id, email, status, total_cents, currency, placed_at) VALUES (?, ?, 'PENDING', ?, ?, ?)")
  const insertJob = db.prepare('INSERT INTO jobs (order_id, action, created_at) VALUES (?, ?, ?)')
  const orderStatus = db.prepare('SELECT status FROM orders WHERE id = ? AND user_id = ?').pluck()
  const setCancelled = db.prepare("UPDATE orders SET status = 'CANCELLED' WHERE id = ?")
  const anyJob = db.prepare('SELECT id FROM jobs LIMIT 1').pluck()
  const takeJob = db.prepare('DELETE FROM jobs WHERE id = (SELECT min(id) FROM jobs) RETURNING order_id, action')
  const insertAudit = db.prepare('INSERT INTO audit (order_id, action, at) VALUES (?, ?, ?)')

  const createSession = db.transaction((token, userId, now, ttl) => { insertSession.run(token, userId, now, now + ttl) })
  const endSession = db.transaction((token) => { deleteSession.run(token) })
  const placeOrder = db.transaction((userId, email, cents, currency, now) => {
    const id = Number(insertOrder.run(userId, email, cents, currency, now).lastInsertRowid)
    insertJob.run(id, 'placed', now)
    return id
  })
  // 'missing' (not this user's, or none), 'conflict' (not PENDING) or 'ok'.
  const cancelOrder = db.transaction((userId, orderId, now) => {
    const status = orderStatus.get(orderId, userId)
    if (status === undefined) return 'missing'
    if (status !== 'PENDING') return 'conflict'
    setCancelled.run(orderId)
    insertJob.run(orderId, 'cancelled', now)
    return 'ok'
  })
  // One job: the lowest id deleted and its audit row written, one transaction.
  const doJob = db.transaction((now) => {
    const job = takeJob.get()
    if (job === undefined) return false
    insertAudit.run(job.order_id, job.action, now)
    return true
  })

  return {
    // The session's user, or undefined: the session row (token, not
    // expired), then its user, two reads, nothing cached.
    sessionUser: (token, now) => {
      const userId = sessionUser.get(token, now)
      return userId === undefined ? undefined : userById.get(userId)
    },
    userByEmail: (email) => userByEmail.get(email),
    createSession: (token, userId, now, ttl) => createSession.immediate(token, userId, now, ttl),
    endSession: (token) => endSession.immediate(token),
    recentOrders: (userId) => recentOrders.all(userId),
    placeOrder: (userId, email, cents, currency, now) => placeOrder.immediate(userId, email, cents, currency, now),
    cancelOrder: (userId, orderId, now) => cancelOrder.immediate(userId, orderId, now),
    // A plain read first, so an idle poll never takes the write lock (and
    // never waits on busy_timeout while the bench writes).
    doJob: (now) => anyJob.get() !== undefined && doJob.immediate(now),
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
