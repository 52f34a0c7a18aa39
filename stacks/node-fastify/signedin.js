'use strict'

// The signed-in routes (docs/app.md, "Signed-in routes: sessions, forms and a
// job"), registered as one encapsulated Fastify plugin: the cookie, form-body
// and CSRF plugins, and their hooks, apply to these routes only, so the
// bench routes of app.js run exactly as before.
//
// - Session: the lab_session cookie holds a 256-bit token from the OS
//   random source; the sessions row behind it, and then its user, are read
//   from the database on every request (store.sessionUser), nothing cached.
// - CSRF: @fastify/csrf-protection in its cookie mode (double submit): a
//   per-client secret in the signed cookie lab_csrf, and in each form a
//   token made of a salt and a hash of secret and salt. A token stays valid
//   for as long as the client keeps the cookie (sign-in does not rotate it),
//   so a client can repeat one request with the same cookies and token.
// - Passwords: the native bcrypt binding (bcrypt.compare runs on libuv's
//   thread pool, off the event loop).
const crypto = require('node:crypto')
const bcrypt = require('bcrypt')

const SESSION_COOKIE = 'lab_session'
const SESSION_TTL_MS = 86400000 // 24 h
const SESSION_COOKIE_OPTIONS = { path: '/', httpOnly: true, sameSite: 'lax' }

// An unknown email is checked against this hash (bcrypt, $2b$, cost 10, of
// a random password nobody kept), so it costs one verification like a known
// one: neither the answer nor its time tells whether the account exists.
const DUMMY_HASH = '$2b$10$MhZaJcbLTDfog.PfPutVX.G6yFxNrGZpd9aQAbTWT1v/btOW.7OOm'

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/
const AMOUNT = /^([0-9]{1,7})(?:\.([0-9]{1,2}))?$/
const CURRENCY = /^[A-Z]{3}$/

// "149.90" and "149.9" -> 14990, "0.01" -> 1: parsed as text, never through
// a float. null when it is not an amount (or is zero).
function toCents (text) {
  const m = typeof text === 'string' ? AMOUNT.exec(text) : null
  if (m === null) return null
  const cents = Number(m[1]) * 100 + Number((m[2] || '').padEnd(2, '0'))
  return cents > 0 ? cents : null
}

// 14990 -> "149.90", 5 -> "0.05".
function formatAmount (cents) {
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`
}

// The first invalid field of email, amount, currency, or null.
function invalidField (body) {
  const { email, amount, currency } = body
  if (typeof email !== 'string' || Buffer.byteLength(email) > 254 || !EMAIL.test(email)) return 'email'
  if (toCents(amount) === null) return 'amount'
  if (typeof currency !== 'string' || !CURRENCY.test(currency)) return 'currency'
  return null
}

const accountSchema = {
  response: {
    200: {
      type: 'object',
      properties: {
        user: { type: 'object', properties: { id: { type: 'integer' }, email: { type: 'string' } } },
        orders: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              id: { type: 'integer' },
              email: { type: 'string' },
              status: { type: 'string' },
              total_cents: { type: 'integer' },
              currency: { type: 'string' },
              placed_at: { type: 'integer' }
            }
          }
        },
        csrf_token: { type: 'string' }
      }
    },
    401: { type: 'object', properties: { error: { type: 'string' } } }
  }
}

// The paths of this plugin, for app.js's 405 answer.
const PATHS = [/^\/sign_in$/, /^\/sign_out$/, /^\/account$/, /^\/orders$/, /^\/orders\/[^/]+\/cancel$/]

async function signedIn (app, { store, cookieSecret }) {
  // Signed cookies (the CSRF secret's) use cookieSecret, made at start from
  // the OS random source (server.js); never written down.
  await app.register(require('@fastify/cookie'), { secret: cookieSecret })
  await app.register(require('@fastify/formbody'))
  await app.register(require('@fastify/csrf-protection'), {
    sessionPlugin: '@fastify/cookie',
    cookieKey: 'lab_csrf',
    cookieOpts: { path: '/', httpOnly: true, sameSite: 'lax', signed: true },
    // The form field only (not the headers the plugin also reads by default).
    getToken: (request) => request.body ? request.body.csrf_token : undefined
  })

  // 303 with a Content-Type (and an empty body), as every answer has one.
  const seeOther = (reply, location) => reply.code(303).header('location', location).type('text/plain; charset=utf-8').send('')

  // The signed-in user ({id, email}) or undefined: the session row by the
  // cookie's token (not expired), then its user.
  async function currentUser (request) {
    const token = request.cookies[SESSION_COOKIE]
    if (!token) return undefined
    return store.sessionUser(token, Date.now())
  }

  const signInPage = (reply, status, error) =>
    reply.code(status).view('sign_in.ejs', { csrfToken: reply.generateCsrf(), error })

  async function accountPage (reply, status, user, error) {
    const orders = await store.recentOrders(user.id)
    return reply.code(status).view('account.ejs', {
      user, orders, formatAmount, csrfToken: reply.generateCsrf(), error
    })
  }

  const csrf = { preHandler: app.csrfProtection }

  app.get('/sign_in', (request, reply) => signInPage(reply, 200, false))

  app.post('/sign_in', csrf, async (request, reply) => {
    const { email, password } = request.body
    if (typeof email !== 'string' || typeof password !== 'string') {
      return reply.code(400).type('text/plain; charset=utf-8').send('email and password are required')
    }
    const user = await store.userByEmail(email)
    const match = await bcrypt.compare(password, user ? user.password_hash : DUMMY_HASH)
    if (!user || !match) return signInPage(reply, 422, true)
    const token = crypto.randomBytes(32).toString('base64url')
    await store.createSession(token, user.id, Date.now(), SESSION_TTL_MS)
    reply.setCookie(SESSION_COOKIE, token, SESSION_COOKIE_OPTIONS)
    return seeOther(reply, '/account')
  })

  app.post('/sign_out', csrf, async (request, reply) => {
    const token = request.cookies[SESSION_COOKIE]
    if (token) await store.endSession(token)
    reply.clearCookie(SESSION_COOKIE, SESSION_COOKIE_OPTIONS)
    return seeOther(reply, '/sign_in')
  })

  app.get('/account', { schema: accountSchema }, async (request, reply) => {
    const json = (request.headers.accept || '').includes('application/json')
    const user = await currentUser(request)
    if (!user) return json ? reply.code(401).send({ error: 'unauthorized' }) : seeOther(reply, '/sign_in')
    if (!json) return accountPage(reply, 200, user, null)
    return { user, orders: await store.recentOrders(user.id), csrf_token: reply.generateCsrf() }
  })

  app.post('/orders', csrf, async (request, reply) => {
    const user = await currentUser(request)
    if (!user) return seeOther(reply, '/sign_in')
    const field = invalidField(request.body)
    if (field !== null) return accountPage(reply, 422, user, field)
    const { email, amount, currency } = request.body
    await store.placeOrder(user.id, email, toCents(amount), currency, Date.now())
    return seeOther(reply, '/account')
  })

  app.post('/orders/:id/cancel', csrf, async (request, reply) => {
    const user = await currentUser(request)
    if (!user) return seeOther(reply, '/sign_in')
    // An id that is not a positive integer names no order: 404 as well.
    const id = /^[0-9]+$/.test(request.params.id) ? Number(request.params.id) : 0
    const result = Number.isSafeInteger(id) && id > 0 ? await store.cancelOrder(user.id, id, Date.now()) : 'missing'
    if (result === 'missing') return reply.code(404).send({ error: 'not found' })
    if (result === 'conflict') return reply.code(409).send({ error: 'order is not pending' })
    return seeOther(reply, '/account')
  })
}

module.exports = { signedIn, PATHS, toCents, formatAmount }
