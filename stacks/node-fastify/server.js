'use strict'

// Start the app: one process per CPU given (LAB_CPUS, else the CPUs this
// process may run on). Node runs JavaScript on one thread, so a Fastify
// deployment runs a process per core; with node:cluster the primary hands
// connections to the workers. With one CPU there is no primary: the one
// process serves.
const cluster = require('node:cluster')
const os = require('node:os')
const { build } = require('./app')

const STOP_DEADLINE_MS = 3000

function envInt (name, fallback) {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < 1) {
    console.error(`node-fastify: ${name}=${JSON.stringify(raw)} is not a positive integer`)
    process.exit(1)
  }
  return value
}

const cpus = envInt('LAB_CPUS', os.availableParallelism ? os.availableParallelism() : os.cpus().length)
const port = envInt('PORT', 8080)

async function serve () {
  const app = build({
    databasePath: process.env.DATABASE_PATH || '/data/app.db',
    upstreamUrl: process.env.UPSTREAM_URL || 'http://127.0.0.1:9090'
  })
  // As PID 1 in a container Node has no default SIGTERM action: stop
  // listening, close idle keep-alive connections (Fastify's default
  // forceCloseConnections: 'idle'), finish in-flight requests, exit.
  process.once('SIGTERM', () => {
    setTimeout(() => process.exit(0), STOP_DEADLINE_MS).unref()
    app.close().then(() => process.exit(0), () => process.exit(1))
  })
  process.once('SIGINT', () => process.emit('SIGTERM'))
  await app.listen({ port, host: '0.0.0.0' })
}

function primary () {
  for (let i = 0; i < cpus; i++) cluster.fork()
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
    cluster.fork()
  })
  const stop = () => {
    stopping = true
    setTimeout(() => process.exit(0), STOP_DEADLINE_MS + 500).unref()
    for (const worker of Object.values(cluster.workers)) worker.process.kill('SIGTERM')
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
}

if (cpus > 1 && cluster.isPrimary) {
  primary()
} else {
  serve().catch((err) => {
    console.error(`node-fastify: ${err.message}`)
    process.exit(1)
  })
}
