"""The app's database routes on the lab's Postgres (DATABASE_URL;
docs/postgres.md): asyncpg, the asyncio driver FastAPI users reach for, and
its pool, one per worker process, of DB_POOL_SIZE connections (asyncpg's
default of 10). Every query awaits the server on the event loop, so a
worker serves other requests while one waits."""

import os
import time

import asyncpg
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

PAYLOAD = "stacklab-bench-event-" + "x" * 179  # 200 ASCII bytes

ITEMS = "SELECT id, title, created_at FROM items ORDER BY id DESC LIMIT 20"
INSERT = "INSERT INTO bench_events (payload, created_at) VALUES ($1, $2) RETURNING id"
# One statement, so count and rows come from one snapshot.
READ = (
    "SELECT (SELECT count(*) FROM bench_events) AS count, id, created_at "
    "FROM bench_events ORDER BY id DESC LIMIT 20"
)
# The session's settings that matter (docs/app.md), read on the connection that
# runs the query; pg_backend_pid names it (the server process of that one
# connection).
SETTINGS = (
    "SELECT current_setting('transaction_isolation') AS transaction_isolation, "
    "current_setting('synchronous_commit') AS synchronous_commit, "
    "current_setting('statement_timeout') AS statement_timeout, "
    "current_setting('client_encoding') AS client_encoding, "
    "'backend pid ' || pg_backend_pid() AS connection"
)


def pool_size() -> int:
    raw = os.environ.get("DB_POOL_SIZE", "") or "10"
    if not raw.isdigit() or int(raw) < 1:
        raise SystemExit(f"python-fastapi: DB_POOL_SIZE={raw!r} is not a positive integer")
    return int(raw)


async def open_pool(url: str) -> asyncpg.Pool:
    # statement_timeout in every connection's startup (server_settings), so
    # no connection of the pool runs without it: a request waits at most
    # 5 s for the server, as busy_timeout bounds a SQLite wait.
    size = pool_size()
    return await asyncpg.create_pool(
        url, min_size=size, max_size=size, server_settings={"statement_timeout": "5000"}
    )


def router(templates) -> APIRouter:
    r = APIRouter()

    @r.get("/items")
    async def items(request: Request):
        rows = await request.app.state.pg.fetch(ITEMS)
        return {"items": [dict(row) for row in rows]}

    @r.get("/page")
    async def page(request: Request):
        rows = await request.app.state.pg.fetch(ITEMS)
        return templates.TemplateResponse(request, "page.html", {"items": rows})

    @r.post("/bench/write")
    async def bench_write(request: Request):
        try:
            new_id = await request.app.state.pg.fetchval(INSERT, PAYLOAD, time.time_ns() // 1_000_000)
        except (asyncpg.PostgresError, OSError) as e:
            return JSONResponse({"ok": False, "error": str(e)}, status_code=503)
        return {"ok": True, "id": new_id}

    @r.get("/bench/read")
    async def bench_read(request: Request):
        rows = await request.app.state.pg.fetch(READ)
        return {
            "ok": True,
            "count": rows[0]["count"] if rows else 0,
            "latest": [{"id": row["id"], "created_at": row["created_at"]} for row in rows],
        }

    @r.get("/bench/pragmas")
    async def bench_pragmas(request: Request):
        return dict(await request.app.state.pg.fetchrow(SETTINGS))

    return r


# --- the signed-in routes' database work (app/accounts.py) -----------------
# Each write is one transaction at the default isolation (read committed);
# the worker takes its job with FOR UPDATE SKIP LOCKED, so workers in several
# processes never take the same one (docs/app.md, "On Postgres").

ORDERS = (
    "SELECT id, email, status, total_cents, currency, placed_at FROM orders "
    "WHERE user_id = $1 ORDER BY id DESC LIMIT 20"
)
TAKE_JOB = (
    "DELETE FROM jobs WHERE id = (SELECT id FROM jobs ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) "
    "RETURNING order_id, action"
)


class PgStore:
    def __init__(self, pool: asyncpg.Pool):
        self.pool = pool

    async def session_user(self, token: str, now: int) -> dict | None:
        # Two reads, as on SQLite: the session, then its user.
        async with self.pool.acquire() as c:
            user_id = await c.fetchval(
                "SELECT user_id FROM sessions WHERE token = $1 AND expires_at > $2", token, now
            )
            if user_id is None:
                return None
            row = await c.fetchrow("SELECT id, email FROM users WHERE id = $1", user_id)
        return None if row is None else {"id": row["id"], "email": row["email"]}

    async def user_by_email(self, email: str) -> dict | None:
        row = await self.pool.fetchrow("SELECT id, password_hash FROM users WHERE email = $1", email)
        return None if row is None else dict(row)

    async def recent_orders(self, user_id: int) -> list[dict]:
        return [dict(row) for row in await self.pool.fetch(ORDERS, user_id)]

    async def create_session(self, token: str, user_id: int, created: int, expires: int) -> None:
        await self.pool.execute(
            "INSERT INTO sessions (token, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)",
            token, user_id, created, expires,
        )

    async def delete_session(self, token: str) -> None:
        await self.pool.execute("DELETE FROM sessions WHERE token = $1", token)

    async def place_order(self, user_id: int, email: str, cents: int, currency: str, now: int) -> int:
        async with self.pool.acquire() as c, c.transaction():
            order_id = await c.fetchval(
                "INSERT INTO orders (user_id, email, status, total_cents, currency, placed_at) "
                "VALUES ($1, $2, 'PENDING', $3, $4, $5) RETURNING id",
                user_id, email, cents, currency, now,
            )
            await c.execute(
                "INSERT INTO jobs (order_id, action, created_at) VALUES ($1, 'placed', $2)", order_id, now
            )
        return order_id

    async def cancel_order(self, order_id: int, user_id: int, now: int) -> str:
        async with self.pool.acquire() as c, c.transaction():
            status = await c.fetchval(
                "SELECT status FROM orders WHERE id = $1 AND user_id = $2 FOR UPDATE", order_id, user_id
            )
            if status is None:
                return "missing"
            if status != "PENDING":
                return "not-pending"
            await c.execute("UPDATE orders SET status = 'CANCELLED' WHERE id = $1", order_id)
            await c.execute(
                "INSERT INTO jobs (order_id, action, created_at) VALUES ($1, 'cancelled', $2)", order_id, now
            )
        return "cancelled"

    async def work_one(self, now_ms) -> bool:
        async with self.pool.acquire() as c, c.transaction():
            job = await c.fetchrow(TAKE_JOB)
            if job is None:
                return False
            await c.execute(
                "INSERT INTO audit (order_id, action, at) VALUES ($1, $2, $3)",
                job["order_id"], job["action"], now_ms(),
            )
        return True
