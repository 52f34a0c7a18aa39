'use strict'

// The app's store on the lab's Postgres (DATABASE_URL; docs/postgres.md):
// node-postgres (pg) with its Pool, as Node users ship it. Every query is
// async, so the event loop serves other requests while one waits on the
// server. One pool per process (cluster worker) of DB_POOL_SIZE
// connections, pg's default of 10 unless set.
const pg = require('pg')

const PAYLOAD = 'stacklab-bench-event-' + 'x'.repeat(179) // 200 ASCII bytes

// BIGINT (int8, OID 20) as a Number, not pg's default string: the ids and
// counts fit in 53 bits and the contract's JSON has integers.
const types = {
  getTypeParser: (oid, format) => oid === 20 ? (v) => Number(v) : pg.types.getTypeParser(oid, format)
}

// The session's settings that matter (docs/app.md), read on the connection that
// runs the query; pg_backend_pid names it (the server process of that one
// connection).
const SETTINGS = "SELECT current_setting('transaction_isolation') AS transaction_isolation, " +
  "current_setting('synchronous_commit') AS synchronous_commit, " +
  "current_setting('statement_timeout') AS statement_timeout, " +
  "current_setting('client_encoding') AS client_encoding, " +
  "'backend pid ' || pg_backend_pid() AS connection"

function open (url, size) {
  // statement_timeout: pg sends it in every connection's startup message,
  // so no connection of the pool runs without it (a request waits at most
  // 5 s for the server, as busy_timeout bounds a SQLite wait).
  const pool = new pg.Pool({ connectionString: url, max: size, statement_timeout: 5000, types })
  pool.on('error', (err) => console.error(`node-fastify: idle Postgres connection: ${err.message}`))
  const query = (name, text, values) => pool.query({ name, text, values })

  // fn(client) in one transaction at the default isolation (read committed)
  // on one connection of the pool.
  async function tx (fn) {
    const client = await pool.connect()
    try {
      await client.query('BEGIN')
      const result = await fn(client)
      await client.query('COMMIT')
      return result
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {})
      throw err
    } finally {
      client.release()
    }
  }
  const insertJob = (client, orderId, action, now) => client.query({
    name: 'insert-job', text: 'INSERT INTO jobs (order_id, action, created_at) VALUES ($1, $2, $3)', values: [orderId, action, now]
  })

  return {
    // The signed-in routes, as db.js's (docs/app.md, "On Postgres").
    sessionUser: async (token, now) => {
      const session = await query('session', 'SELECT user_id FROM sessions WHERE token = $1 AND expires_at > $2', [token, now])
      if (session.rows.length === 0) return undefined
      return (await query('user', 'SELECT id, email FROM users WHERE id = $1', [session.rows[0].user_id])).rows[0]
    },
    userByEmail: async (email) => (await query('user-by-email', 'SELECT id, password_hash FROM users WHERE email = $1', [email])).rows[0],
    createSession: async (token, userId, now, ttl) => {
      await query('insert-session', 'INSERT INTO sessions (token, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)', [token, userId, now, now + ttl])
    },
    endSession: async (token) => { await query('delete-session', 'DELETE FROM sessions WHERE token = $1', [token]) },
    recentOrders: async (userId) => (await query('orders',
      'SELECT id, email, status, total_cents, currency, placed_at FROM orders WHERE user_id = $1 ORDER BY id DESC LIMIT 20', [userId])).rows,
    placeOrder: (userId, email, cents, currency, now) => tx(async (client) => {
      const { rows } = await client.query({
        name: 'insert-order',
        text: "INSERT INTO orders (user_id, email, status, total_cents, currency, placed_at) VALUES ($1, $2, 'PENDING', $3, $4, $5) RETURNING id",
        values: [userId, email, cents, currency, now]
      })
      await insertJob(client, rows[0].id, 'placed', now)
      return rows[0].id
    }),
    // 'missing' (not this user's, or none), 'conflict' (not PENDING) or
    // 'ok'; FOR UPDATE, so two cancels of one order queue on its row.
    cancelOrder: (userId, orderId, now) => tx(async (client) => {
      const { rows } = await client.query({
        name: 'order-for-cancel', text: 'SELECT status FROM orders WHERE id = $1 AND user_id = $2 FOR UPDATE', values: [orderId, userId]
      })
      if (rows.length === 0) return 'missing'
      if (rows[0].status !== 'PENDING') return 'conflict'
      await client.query({ name: 'cancel-order', text: "UPDATE orders SET status = 'CANCELLED' WHERE id = $1", values: [orderId] })
      await insertJob(client, orderId, 'cancelled', now)
      return 'ok'
    }),
    // One job: SKIP LOCKED, so the workers of several processes never take
    // the same one; its audit row in the same transaction. A plain read
    // first, so an idle poll is one statement.
    doJob: async (now) => {
      if ((await query('any-job', 'SELECT id FROM jobs LIMIT 1')).rows.length === 0) return false
      return tx(async (client) => {
        const { rows } = await client.query({
          name: 'take-job',
          text: 'DELETE FROM jobs WHERE id = (SELECT id FROM jobs ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING order_id, action'
        })
        if (rows.length === 0) return false
        await client.query({ name: 'insert-audit', text: 'INSERT INTO audit (order_id, action, at) VALUES ($1, $2, $3)', values: [rows[0].order_id, rows[0].action, now] })
        return true
      })
    },
    newestItems: async () => (await pool.query({ name: 'items', text: 'SELECT id, title, created_at FROM items ORDER BY id DESC LIMIT 20' })).rows,
    writeEvent: async () => (await pool.query({
      name: 'write',
      text: 'INSERT INTO bench_events (payload, created_at) VALUES ($1, $2) RETURNING id',
      values: [PAYLOAD, Date.now()]
    })).rows[0].id,
    // One statement, so count and rows come from one snapshot.
    readEvents: async () => {
      const { rows } = await pool.query({
        name: 'read',
        text: 'SELECT (SELECT count(*) FROM bench_events) AS count, id, created_at FROM bench_events ORDER BY id DESC LIMIT 20'
      })
      return { count: rows.length ? rows[0].count : 0, latest: rows.map((r) => ({ id: r.id, created_at: r.created_at })) }
    },
    pragmas: async () => (await pool.query(SETTINGS)).rows[0],
    close: () => pool.end()
  }
}

module.exports = { open }
