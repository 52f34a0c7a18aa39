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

// The session's settings that matter (APP.md), read on the connection that
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
  return {
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
