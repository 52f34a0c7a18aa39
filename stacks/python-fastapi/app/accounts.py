"""The signed-in routes (docs/app.md, "Signed-in routes: sessions, forms and a
job"): sign-in with a form, a session kept in the `sessions` table, CSRF
tokens on every form, orders placed and cancelled, and the background worker
that writes their audit rows.

FastAPI has no sessions or CSRF protection of its own, so both are small
code here, written as FastAPI dependencies:

- the session is a random token (32 bytes from `secrets`, the OS source) in
  the `lab_session` cookie and a `sessions` row; `current_user` reads the row
  and then its user on every request (no cache), so a session deleted or
  expired in the database is refused on the next request;
- CSRF is a double-submit cookie: `lab_csrf` holds 32 random bytes, every
  form carries them masked with a fresh one-time pad (as Django and Rails
  mask theirs, so the token in a page changes on every render), and a POST
  is accepted only when the unmasked form field equals the cookie. Nothing
  is signed, so the uvicorn worker processes share no secret, and a token
  stays valid for as long as the client keeps its cookie.

The database work goes through a store (app/store_sqlite.py on SQLite,
app/pg.py's PgStore on Postgres), kept in `app.state.store` by the lifespan.
"""

import asyncio
import base64
import binascii
import hmac
import logging
import re
import secrets
import time

import bcrypt
from fastapi import APIRouter, Depends, FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.concurrency import run_in_threadpool

SESSION_COOKIE = "lab_session"
CSRF_COOKIE = "lab_csrf"
SESSION_MS = 86_400_000  # 24 h
CSRF_BYTES = 32
# Verified when the email names no user, so an unknown email costs the same
# bcrypt work as a wrong password (cost 10, as the seeded hashes).
DUMMY_HASH = b"$2b$10$KwWObqxAZDoZQWXUmVf8OOJTWyLp8.qrQB43W0EUPFVkke0.kV.ru"
# The worker's pause when it finds no job (docs/app.md: at most 100 ms).
WORKER_IDLE_S = 0.1

EMAIL_RE = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
AMOUNT_RE = re.compile(r"([0-9]{1,7})(?:\.([0-9]{1,2}))?")
CURRENCY_RE = re.compile(r"[A-Z]{3}")
# The error line's words are go-nethttp's, the lab's reference, so that
# parity (which compares them) holds.
FIELD_ERRORS = {
    "email": "Invalid email.",
    "amount": "Invalid amount.",
    "currency": "Invalid currency.",
}

log = logging.getLogger("python-fastapi")


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def unb64(text: str) -> bytes | None:
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        return None


# --- CSRF: a double-submit cookie, the form's copy masked -------------------


def xor(a: bytes, b: bytes) -> bytes:
    return (int.from_bytes(a, "big") ^ int.from_bytes(b, "big")).to_bytes(len(a), "big")


class Csrf:
    """The client's CSRF secret (from its `lab_csrf` cookie, or new)."""

    def __init__(self, request: Request):
        raw = unb64(request.cookies.get(CSRF_COOKIE, ""))
        self.new = raw is None or len(raw) != CSRF_BYTES
        self.secret = secrets.token_bytes(CSRF_BYTES) if self.new else raw

    def token(self) -> str:
        """A form's token: a fresh pad, then the secret XOR the pad."""
        pad = secrets.token_bytes(CSRF_BYTES)
        return b64(pad + xor(pad, self.secret))

    def accepts(self, token: object) -> bool:
        if self.new or not isinstance(token, str):
            return False
        raw = unb64(token)
        if raw is None or len(raw) != 2 * CSRF_BYTES:
            return False
        return hmac.compare_digest(xor(raw[:CSRF_BYTES], raw[CSRF_BYTES:]), self.secret)

    def keep(self, response: Response) -> Response:
        """Set the cookie on a response that shows a token, if it is new."""
        if self.new:
            response.set_cookie(CSRF_COOKIE, b64(self.secret), path="/", httponly=True, samesite="Lax")
        return response


def csrf(request: Request) -> Csrf:
    return Csrf(request)


async def csrf_protect(request: Request) -> Csrf:
    """Every POST's first dependency: the form's `csrf_token` must be the
    client's cookie, or 403 before anything else is read or written."""
    c = Csrf(request)
    form = await request.form()
    if not c.accepts(form.get("csrf_token")):
        raise HTTPException(status_code=403, detail="CSRF token missing or not issued to this client")
    return c


# --- the session ------------------------------------------------------------


class SignedOut(Exception):
    """No valid session: 303 to /sign_in, or 401 for GET /account's JSON."""


def wants_json(request: Request) -> bool:
    accept = request.headers.get("accept", "")
    return any(part.split(";", 1)[0].strip() == "application/json" for part in accept.split(","))


async def current_user(request: Request) -> dict:
    token = request.cookies.get(SESSION_COOKIE)
    if not token:
        raise SignedOut()
    user = await request.app.state.store.session_user(token, now_ms())
    if user is None:
        raise SignedOut()
    return user


def see_other(location: str) -> Response:
    # A Content-Type on every answer (docs/app.md), the redirect's too.
    return Response(status_code=303, headers={"Location": location}, media_type="text/plain")


# --- forms ------------------------------------------------------------------


def parse_amount(text: object) -> int | None:
    """'149.90' and '149.9' -> 14990, '149' -> 14900; never through a float."""
    if not isinstance(text, str):
        return None
    m = AMOUNT_RE.fullmatch(text)
    if m is None:
        return None
    cents = int(m.group(1)) * 100 + int((m.group(2) or "0").ljust(2, "0"))
    return cents if cents > 0 else None


def format_cents(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d}"


def first_invalid(email: object, amount: object, currency: object) -> str | None:
    if not (isinstance(email, str) and EMAIL_RE.fullmatch(email) and len(email.encode()) <= 254):
        return "email"
    if parse_amount(amount) is None:
        return "amount"
    if not (isinstance(currency, str) and CURRENCY_RE.fullmatch(currency)):
        return "currency"
    return None


def form_text(form, name: str) -> str | None:
    value = form.get(name)
    return value if isinstance(value, str) else None


async def password_matches(password: str, stored: bytes) -> bool:
    # bcrypt takes tens of milliseconds: AnyIO's thread pool, not the loop
    # (the bcrypt package releases the GIL while it hashes).
    try:
        return await run_in_threadpool(bcrypt.checkpw, password.encode(), stored)
    except ValueError:  # bcrypt 5 refuses passwords past 72 bytes
        return False


# --- the routes -------------------------------------------------------------


def router(templates) -> APIRouter:
    r = APIRouter()

    def sign_in_page(request: Request, c: Csrf, status: int = 200, error: str | None = None):
        response = templates.TemplateResponse(
            request, "sign_in.html", {"csrf_token": c.token(), "error": error}, status_code=status
        )
        return c.keep(response)

    async def account_page(request: Request, c: Csrf, user: dict, status: int = 200, invalid=None, form=None):
        orders = await request.app.state.store.recent_orders(user["id"])
        if wants_json(request) and invalid is None:
            return c.keep(JSONResponse({"user": user, "orders": orders, "csrf_token": c.token()}))
        for o in orders:
            o["amount"] = format_cents(o["total_cents"])
        context = {
            "user": user,
            "orders": orders,
            "csrf_token": c.token(),
            "error_field": invalid,
            "error": FIELD_ERRORS.get(invalid),
            "form": form or {"email": user["email"]},
        }
        return c.keep(templates.TemplateResponse(request, "account.html", context, status_code=status))

    @r.get("/sign_in", response_class=HTMLResponse)
    async def sign_in_form(request: Request, c: Csrf = Depends(csrf)):
        return sign_in_page(request, c)

    @r.post("/sign_in")
    async def sign_in(request: Request, c: Csrf = Depends(csrf_protect)):
        form = await request.form()
        email, password = form_text(form, "email"), form_text(form, "password")
        if email is None or password is None:
            raise HTTPException(status_code=400, detail="email and password are required")
        store = request.app.state.store
        user = await store.user_by_email(email)
        ok = await password_matches(password, user["password_hash"].encode() if user else DUMMY_HASH)
        if not (ok and user):
            return sign_in_page(request, c, 422, "Invalid email or password.")
        token = secrets.token_urlsafe(32)
        created = now_ms()
        await store.create_session(token, user["id"], created, created + SESSION_MS)
        response = see_other("/account")
        response.set_cookie(SESSION_COOKIE, token, path="/", httponly=True, samesite="Lax")
        return response

    @r.post("/sign_out")
    async def sign_out(request: Request, c: Csrf = Depends(csrf_protect)):
        token = request.cookies.get(SESSION_COOKIE)
        if token:
            await request.app.state.store.delete_session(token)
        response = see_other("/sign_in")
        response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="Lax")
        return response

    @r.get("/account")
    async def account(request: Request, c: Csrf = Depends(csrf), user: dict = Depends(current_user)):
        return await account_page(request, c, user)

    @r.post("/orders")
    async def place_order(
        request: Request, c: Csrf = Depends(csrf_protect), user: dict = Depends(current_user)
    ):
        form = await request.form()
        email, amount, currency = (form_text(form, k) for k in ("email", "amount", "currency"))
        invalid = first_invalid(email, amount, currency)
        if invalid:
            sent = {"email": email or "", "amount": amount or "", "currency": currency or ""}
            return await account_page(request, c, user, 422, invalid, sent)
        await request.app.state.store.place_order(user["id"], email, parse_amount(amount), currency, now_ms())
        return see_other("/account")

    @r.post("/orders/{order_id}/cancel")
    async def cancel_order(
        request: Request,
        order_id: str,
        c: Csrf = Depends(csrf_protect),
        user: dict = Depends(current_user),
    ):
        # Not a positive integer (or past a 64-bit id): no such order.
        if not (order_id.isascii() and order_id.isdigit() and len(order_id) <= 18 and int(order_id) > 0):
            raise HTTPException(status_code=404, detail="Not Found")
        outcome = await request.app.state.store.cancel_order(int(order_id), user["id"], now_ms())
        if outcome == "missing":
            raise HTTPException(status_code=404, detail="Not Found")
        if outcome == "not-pending":
            raise HTTPException(status_code=409, detail="Only a PENDING order can be cancelled")
        return see_other("/account")

    return r


def install(app: FastAPI, templates) -> None:
    @app.exception_handler(SignedOut)
    async def signed_out(request: Request, exc: SignedOut):
        # The JSON twin is GET /account's; a form post signed out is sent
        # to the sign-in page whatever it accepts.
        if request.method == "GET" and wants_json(request):
            return JSONResponse({"error": "unauthorized"}, status_code=401)
        return see_other("/sign_in")

    app.include_router(router(templates))


# --- the background worker --------------------------------------------------


async def run_worker(store) -> None:
    """One per uvicorn worker process, an asyncio task from the lifespan:
    take the lowest-id job and write its audit row (the store does both in
    one transaction, so several workers never do a job twice); the next job
    at once while there are jobs, else a 100 ms pause."""
    last_error = None
    while True:
        try:
            done = await store.work_one(now_ms)
            last_error = None
        except asyncio.CancelledError:
            raise
        except Exception as e:  # a busy database, a lost connection: try again
            # One line for a run of the same error, not one per poll.
            error = f"{type(e).__name__}: {e}"
            if error != last_error:
                log.warning("worker: %s (retrying every %d ms)", error, WORKER_IDLE_S * 1000)
                last_error = error
            done = False
        if not done:
            await asyncio.sleep(WORKER_IDLE_S)
