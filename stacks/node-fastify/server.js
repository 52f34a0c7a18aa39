'use strict'

// Start the app. By default one process per CPU given (LAB_CPUS, else the
// CPUs this process may run on): Node runs JavaScript on one thread, so a
// Fastify deployment runs a process per core; with node:cluster the primary
// hands connections to the workers. With one CPU there is no primary: the
// one process serves.
//
// SQLITE_READERS=N (N >= 1) is the other way: one process whatever the CPUs,
// whose N reader threads (readers.js) run the SQLite reads off the event
// loop. 0, the default, is the cluster.
const cluster = require('node:cluster')
const crypto = require('node:crypto')
const os = require('node:os')
const { build } = require('./app')
const startReaders = require('./readers').start

const STOP_DEADLINE_MS = 3000
// Each reader is a thread with its own connection and page cache
// (cache_size = 2000 pages); past this many a value is a typo.
const MAX_READERS = 64

// envInt NAME FALLBACK [MIN MAX]: a decimal integer from the environment; a
// bad value is one line and exit 1.
function envInt (name, fallback, min = 1, max = Number.MAX_SAFE_INTEGER) {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const value = /^[0-9]+$/.test(raw) ? Number(raw) : NaN
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    const want = max === Number.MAX_SAFE_INTEGER ? 'a positive integer' : `an integer from ${min} to ${max}`
    console.error(`node-fastify: ${name}=${JSON.stringify(raw)} is not ${want}`)
    process.exit(1)
  }
  return value
}

const cpus = envInt('LAB_CPUS', os.availableParallelism ? os.availableParallelism() : os.cpus().length)
const port = envInt('PORT', 8080)
const readers = envInt('SQLITE_READERS', 0, 0, MAX_READERS)

// The secret that signs the CSRF cookie (signedin.js): 256 bits from the OS
// random source, made when the app starts and never written anywhere. The
// primary makes it and hands it to each worker it forks in the worker's
// environment, which the worker reads once and removes, so every worker
// checks the cookies the others signed; a single process makes its own.
const SECRET_ENV = 'NODE_FASTIFY_COOKIE_SECRET'
function cookieSecret () {
  if (cluster.isWorker && process.env[SECRET_ENV]) {
    const secret = process.env[SECRET_ENV]
    delete process.env[SECRET_ENV]
    return secret
  }
  return crypto.randomBytes(32).toString('base64url')
}

async function serve () {
  const databasePath = process.env.DATABASE_PATH || '/data/app.db'
  const secret = cookieSecret()
  let app = null
  let pool = null
  // As PID 1 in a container Node has no default SIGTERM action: stop
  // listening, close idle keep-alive connections (Fastify's default
  // forceCloseConnections: 'idle'), finish in-flight requests, then end the
  // reader threads, exit. Installed before the readers start, so a SIGTERM
  // while they open their connections stops the process too.
  process.once('SIGTERM', () => {
    setTimeout(() => process.exit(0), STOP_DEADLINE_MS).unref()
    const closed = app ? app.close() : Promise.resolve()
    closed.then(() => pool && pool.close()).then(() => process.exit(0), () => process.exit(1))
  })
  process.once('SIGINT', () => process.emit('SIGTERM'))
  if (readers > 0) pool = await startReaders(readers, databasePath)
  app = build({
    databasePath,
    upstreamUrl: process.env.UPSTREAM_URL || 'http://127.0.0.1:9090',
    readers: pool,
    databaseUrl: process.env.DATABASE_URL || '',
    poolSize: envInt('DB_POOL_SIZE', 10),
    cookieSecret: secret
  })
  await app.listen({ port, host: '0.0.0.0' })
}

function primary () {
  const workerEnv = { [SECRET_ENV]: cookieSecret() }
  for (let i = 0; i < cpus; i++) cluster.fork(workerEnv)
  let stopping = false
  const listening = new Set()
  cluster.on('listening', (worker) => listening.add(worker.id))
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers).length === 0) process.exit(0)
      return
    }
    if (!listening.has(worker.id)) {
      // It failed while starting (and said why): another would fail too.
      process.exit(1)
    }
    // A worker that dies while serving is replaced, as a process manager would.
    console.error(`node-fastify: worker ${worker.process.pid} exited (${signal || code}); starting another`)
    cluster.fork(workerEnv)
  })
  const stop = () => {
    stopping = true
    setTimeout(() => process.exit(0), STOP_DEADLINE_MS + 500).unref()
    for (const worker of Object.values(cluster.workers)) worker.process.kill('SIGTERM')
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
}

if (cpus > 1 && readers === 0 && cluster.isPrimary) {
  primary()
} else {
  serve().catch((err) => {
    console.error(`node-fastify: ${err.message}`)
    process.exit(1)
  })
}
