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
# The session's settings that matter (APP.md), read on the connection that
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
