'use strict'

const path = require('node:path')
const Fastify = require('fastify')
const { Pool } = require('undici')
const db = require('./db')
const pgstore = require('./pgstore')
const jobs = require('./jobs')
const { signedIn, PATHS: SIGNED_IN_PATHS } = require('./signedin')

const KNOWN_PATHS = new Set(['/up', '/json', '/items', '/page', '/bench/upstream', '/bench/write', '/bench/read', '/bench/pragmas'])

// Response schemas, as Fastify users write them: they document the routes
// and let fast-json-stringify serialize in the contract's key order.
const item = {
  type: 'object',
  properties: { id: { type: 'integer' }, title: { type: 'string' }, created_at: { type: 'integer' } }
}
const error = { type: 'object', properties: { ok: { type: 'boolean' }, error: { type: 'string' } } }
const schemas = {
  json: { response: { 200: { type: 'object', properties: { message: { type: 'string' } } } } },
  items: { response: { 200: { type: 'object', properties: { items: { type: 'array', items: item } } } } },
  upstream: {
    response: {
      200: { type: 'object', properties: { ok: { type: 'boolean' }, upstream: { type: 'integer' } } },
      502: error
    }
  },
  write: {
    response: {
      200: { type: 'object', properties: { ok: { type: 'boolean' }, id: { type: 'integer' } } },
      503: error
    }
  },
  read: {
    response: {
      200: {
        type: 'object',
        properties: {
          ok: { type: 'boolean' },
          count: { type: 'integer' },
          latest: {
            type: 'array',
            items: { type: 'object', properties: { id: { type: 'integer' }, created_at: { type: 'integer' } } }
          }
        }
      }
    }
  },
  // On Postgres, the session's settings (pgstore.js).
  settings: {
    response: {
      200: {
        type: 'object',
        properties: {
          transaction_isolation: { type: 'string' },
          synchronous_commit: { type: 'string' },
          statement_timeout: { type: 'string' },
          client_encoding: { type: 'string' },
          connection: { type: 'string' }
        }
      }
    }
  },
  pragmas: {
    response: {
      200: {
        type: 'object',
        properties: {
          journal_mode: { type: 'string' },
          synchronous: { type: 'integer' },
          busy_timeout: { type: 'integer' },
          cache_size: { type: 'integer' },
          mmap_size: { type: 'integer' },
          journal_size_limit: { type: 'integer' },
          foreign_keys: { type: 'integer' },
          connection: { type: 'string' }
        }
      }
    }
  }
}

// readers: the pool of reader threads (readers.js, SQLITE_READERS >= 1), or
// null: every query on this thread's connection, on the event loop.
// databaseUrl: the lab's Postgres instead of the SQLite file (pgstore.js),
// through a pool of poolSize connections. cookieSecret signs the CSRF
// cookie (server.js makes it at start).
function build ({ databasePath, upstreamUrl, readers = null, databaseUrl = '', poolSize = 10, cookieSecret }) {
  // logger off (Fastify's default): nothing per request.
  const app = Fastify({ logger: false })
  const postgres = databaseUrl !== ''
  const store = postgres ? pgstore.open(databaseUrl, poolSize) : db.open(databasePath)
  // Postgres: every query awaits the server, as the reader threads' do.
  if (postgres) readers = store

  // One keep-alive client per process, shared by every request. undici's
  // Pool opens connections as needed, unbounded unless told: 1024 is above
  // the io study's 512 connections.
  const upstream = new Pool(upstreamUrl, { connections: 1024, pipelining: 1 })

  app.register(require('@fastify/view'), {
    engine: { ejs: require('ejs') },
    root: path.join(__dirname, 'views')
  })

  app.get('/up', async (request, reply) => {
    reply.type('text/plain; charset=utf-8')
    return 'ok'
  })

  app.get('/json', { schema: schemas.json }, async () => ({ message: 'Hello, World!' }))

  if (readers) {
    app.get('/items', { schema: schemas.items }, async () => ({ items: await readers.newestItems() }))
    app.get('/page', async (request, reply) => reply.view('page.ejs', { items: await readers.newestItems() }))
  } else {
    app.get('/items', { schema: schemas.items }, async () => ({ items: store.newestItems() }))
    app.get('/page', (request, reply) => {
      reply.view('page.ejs', { items: store.newestItems() })
    })
  }

  app.get('/bench/upstream', { schema: schemas.upstream }, async (request, reply) => {
    try {
      const { statusCode, body } = await upstream.request({ path: '/delay?ms=100', method: 'GET' })
      await body.dump()
      if (statusCode !== 200) {
        reply.code(502)
        return { ok: false, error: `upstream answered ${statusCode}` }
      }
      return { ok: true, upstream: statusCode }
    } catch (err) {
      reply.code(502)
      return { ok: false, error: `${err.code || err.name}: ${err.message}` }
    }
  })

  app.post('/bench/write', { schema: schemas.write }, async (request, reply) => {
    try {
      return { ok: true, id: await store.writeEvent() }
    } catch (err) {
      reply.code(503)
      return { ok: false, error: `${err.code || err.name}: ${err.message}` }
    }
  })

  if (postgres) {
    app.get('/bench/read', { schema: schemas.read }, async () => ({ ok: true, ...(await store.readEvents()) }))
    app.get('/bench/pragmas', { schema: schemas.settings }, async () => store.pragmas())
  } else if (readers) {
    app.get('/bench/read', { schema: schemas.read }, async () => ({ ok: true, ...(await readers.readEvents()) }))
    // The main connection and each reader's in turn, so that sampling
    // /bench/pragmas (verify) reads every connection this process holds.
    let turn = 0
    app.get('/bench/pragmas', { schema: schemas.pragmas }, async () => {
      turn = (turn + 1) % (readers.size + 1)
      return turn === 0 ? store.pragmas() : readers.pragmas()
    })
  } else {
    app.get('/bench/read', { schema: schemas.read }, async () => ({ ok: true, ...store.readEvents() }))
    app.get('/bench/pragmas', { schema: schemas.pragmas }, async () => store.pragmas())
  }

  // The signed-in routes and their plugins, in a context of their own
  // (signedin.js). Their database work runs on this thread's store (with
  // SQLITE_READERS too: the reader threads serve the bench reads only).
  app.register(signedIn, { store, cookieSecret })

  // The background worker, one per process (jobs.js), from the moment the
  // app is ready until it closes.
  let worker = null
  app.addHook('onReady', async () => { worker = jobs.start(store) })

  // Fastify answers a known path with the wrong method as 404; the
  // contract wants 405 there.
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?', 1)[0]
    const known = KNOWN_PATHS.has(path) || SIGNED_IN_PATHS.some((re) => re.test(path))
    reply.code(known ? 405 : 404).send({ error: known ? 'method not allowed' : 'not found' })
  })

  app.addHook('onClose', async () => {
    if (worker) await worker.stop()
    await upstream.close()
    await store.close()
  })

  return app
}

module.exports = { build }
