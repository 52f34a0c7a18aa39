'use strict'

// The background worker (docs/app.md, "The background worker"): a timer loop on
// this process's event loop over the database's jobs table, no broker and
// no second process. Each turn does one job (store.doJob: the lowest id
// deleted and its audit row written in one write transaction); while jobs
// wait the next turn comes at once (setImmediate, so requests still get the
// loop between two jobs), when there is none it sleeps IDLE_MS.
// better-sqlite3 is synchronous, so a job's transaction runs on the event
// loop: it holds one DELETE and one INSERT, nothing else. With node:cluster
// every process runs one worker; the transaction (BEGIN IMMEDIATE on SQLite,
// FOR UPDATE SKIP LOCKED on Postgres) keeps two from taking one job.
const IDLE_MS = 100

function start (store) {
  let timer = null
  let immediate = null
  let stopped = false
  let turn = Promise.resolve()
  let lastError = ''

  function schedule (busy) {
    if (stopped) return
    if (busy) immediate = setImmediate(run)
    else timer = setTimeout(run, IDLE_MS)
  }

  function run () {
    timer = immediate = null
    turn = (async () => {
      let busy = false
      try {
        busy = await store.doJob(Date.now())
        lastError = ''
      } catch (err) {
        // A failed turn (the database busy past busy_timeout, say) is tried
        // again after the idle sleep; the job stays in the table. An error
        // is logged once, not again on every turn until a turn succeeds.
        const message = `node-fastify: job: ${err.code || err.name}: ${err.message}`
        if (message !== lastError) console.error(message)
        lastError = message
      }
      schedule(busy)
    })()
  }

  schedule(false)
  return {
    // Stops the loop; resolves once a job under way has finished.
    stop: async () => {
      stopped = true
      clearTimeout(timer)
      clearImmediate(immediate)
      await turn
    }
  }
}

module.exports = { start, IDLE_MS }
