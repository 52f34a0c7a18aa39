"""The lab app (docs/app.md) on FastAPI."""

import asyncio
import inspect
import itertools
import os
import time
from contextlib import asynccontextmanager
from pathlib import Path

# First, before anything imports sqlite3: SQLite's memory statistics off.
from . import memstatus  # noqa: F401

import sqlite3  # noqa: E402

import aiohttp  # noqa: E402
import httpx  # noqa: E402
from fastapi import APIRouter, FastAPI, Request  # noqa: E402
from fastapi.responses import JSONResponse, PlainTextResponse  # noqa: E402
from fastapi.templating import Jinja2Templates  # noqa: E402
from starlette.concurrency import run_in_threadpool  # noqa: E402

from . import accounts  # noqa: E402
from .db import connection  # noqa: E402
from .store_sqlite import SqliteStore  # noqa: E402
from .settings import SQLITE_READS, UPSTREAM_CLIENT  # noqa: E402

UPSTREAM_URL = os.environ.get("UPSTREAM_URL", "http://127.0.0.1:9090")
# Set: the lab's Postgres instead of the SQLite file (app/pg.py).
DATABASE_URL = os.environ.get("DATABASE_URL", "")
DELAY_URL = UPSTREAM_URL.rstrip("/") + "/delay?ms=100"
PAYLOAD = "stacklab-bench-event-" + "x" * 179  # 200 ASCII bytes
# The upstream pool: 1024 connections, twice the io study's 512 in flight, so
# the client's configuration is never the limit (aiohttp's default is 100,
# httpx's 100 with 20 kept alive: 1,000 req/s at 100 ms a call).
UPSTREAM_POOL = 1024


templates = Jinja2Templates(directory=Path(__file__).parent / "templates")


@asynccontextmanager
async def lifespan(app: FastAPI):
    if DATABASE_URL:
        from . import pg

        app.state.pg = await pg.open_pool(DATABASE_URL)
        app.state.store = pg.PgStore(app.state.pg)
        try:
            async with upstream_client(app), job_worker(app.state.store):
                yield
        finally:
            await app.state.pg.close()
    else:
        app.state.store = SqliteStore()
        async with upstream_client(app), job_worker(app.state.store):
            yield


@asynccontextmanager
async def job_worker(store):
    # The background worker (app/accounts.py): one asyncio task per uvicorn
    # worker process, stopped before the database pool closes.
    task = asyncio.create_task(accounts.run_worker(store), name="job-worker")
    try:
        yield
    finally:
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass


@asynccontextmanager
async def upstream_client(app: FastAPI):
    # One keep-alive client per worker process, shared by every request.
    if UPSTREAM_CLIENT == "aiohttp":
        connector = aiohttp.TCPConnector(limit=UPSTREAM_POOL)
        async with aiohttp.ClientSession(
            connector=connector, timeout=aiohttp.ClientTimeout(total=10), trust_env=False
        ) as session:
            app.state.upstream = session
            yield
    else:
        limits = httpx.Limits(max_connections=UPSTREAM_POOL, max_keepalive_connections=UPSTREAM_POOL)
        async with httpx.AsyncClient(limits=limits, timeout=10.0, trust_env=False) as client:
            app.state.upstream = client
            yield


# No /docs, /redoc or /openapi.json in production: the contract's "anything
# else" is a 404.
app = FastAPI(lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
# The database routes on SQLite; on Postgres app/pg.py's take their place
# (included at the end of this file).
sqlite = APIRouter()


@app.get("/up", response_class=PlainTextResponse)
async def up():
    return "ok"


@app.get("/json")
async def hello():
    return {"message": "Hello, World!"}


def newest_items(conn: sqlite3.Connection) -> list[dict]:
    rows = conn.execute(
        "SELECT id, title, created_at FROM items ORDER BY id DESC LIMIT 20"
    ).fetchall()
    return [{"id": r[0], "title": r[1], "created_at": r[2]} for r in rows]


def read_route(path: str, **kwargs):
    """Register a SQLite read route. A read of this size (an index walk of 20
    rows) takes tens of microseconds, less than the hand-off to AnyIO's
    thread pool and back, so it runs on the event loop as a plain call
    (SQLITE_READS=loop, the default). SQLITE_READS=threads registers the same
    function as a `def` route, which FastAPI runs in the thread pool."""

    def register(fn):
        if SQLITE_READS == "threads":
            return sqlite.get(path, **kwargs)(fn)

        async def on_loop(*args, **kw):
            return fn(*args, **kw)

        on_loop.__name__ = fn.__name__
        on_loop.__signature__ = inspect.signature(fn)
        sqlite.get(path, **kwargs)(on_loop)
        return fn

    return register


@read_route("/items")
def items():
    return {"items": newest_items(connection())}


@read_route("/page")
def page(request: Request):
    return templates.TemplateResponse(
        request, "page.html", {"items": newest_items(connection())}
    )


async def upstream_aiohttp(session: aiohttp.ClientSession) -> int:
    async with session.get(DELAY_URL) as r:
        await r.read()
        return r.status


async def upstream_httpx(client: httpx.AsyncClient) -> int:
    r = await client.get(DELAY_URL)
    return r.status_code


UPSTREAM_ERRORS = (aiohttp.ClientError, httpx.HTTPError, asyncio.TimeoutError, OSError)


@app.get("/bench/upstream")
async def bench_upstream(request: Request):
    call = upstream_aiohttp if UPSTREAM_CLIENT == "aiohttp" else upstream_httpx
    try:
        status = await call(request.app.state.upstream)
    except UPSTREAM_ERRORS as e:
        return JSONResponse(
            {"ok": False, "error": f"{type(e).__name__}: {e}"}, status_code=502
        )
    if status != 200:
        return JSONResponse(
            {"ok": False, "error": f"upstream answered {status}"},
            status_code=502,
        )
    return {"ok": True, "upstream": status}


@sqlite.post("/bench/write")
def bench_write():
    try:
        conn = connection()
        # BEGIN IMMEDIATE takes the write lock up front, so concurrent
        # writers wait on busy_timeout instead of failing on lock upgrade.
        conn.execute("BEGIN IMMEDIATE")
        try:
            cur = conn.execute(
                "INSERT INTO bench_events (payload, created_at) VALUES (?, ?)",
                (PAYLOAD, time.time_ns() // 1_000_000),
            )
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    except sqlite3.Error as e:
        return JSONResponse({"ok": False, "error": str(e)}, status_code=503)
    return {"ok": True, "id": cur.lastrowid}


@read_route("/bench/read")
def bench_read():
    conn = connection()
    # One read transaction: the count and the rows come from one snapshot.
    conn.execute("BEGIN")
    try:
        count = conn.execute("SELECT COUNT(*) FROM bench_events").fetchone()[0]
        rows = conn.execute(
            "SELECT id, created_at FROM bench_events ORDER BY id DESC LIMIT 20"
        ).fetchall()
    finally:
        conn.execute("COMMIT")
    return {
        "ok": True,
        "count": count,
        "latest": [{"id": r[0], "created_at": r[1]} for r in rows],
    }


PRAGMA_NAMES = (
    "journal_mode",
    "synchronous",
    "busy_timeout",
    "cache_size",
    "mmap_size",
    "journal_size_limit",
    "foreign_keys",
)


def pragmas_here() -> dict:
    """The calling thread's connection's pragmas, and its name: the process
    and the address of the sqlite3.Connection object, which sqlite3.connect
    created with the SQLite handle it holds for its whole life."""
    conn = connection()
    values = {name: conn.execute(f"PRAGMA {name}").fetchone()[0] for name in PRAGMA_NAMES}
    values["connection"] = f"{os.getpid()}/{id(conn):#x}"
    return values


_pragma_turn = itertools.count()


@sqlite.get("/bench/pragmas")
async def bench_pragmas():
    # Every other answer from AnyIO's thread pool, where the writes run on
    # connections of their own, so sampling this route (verify) reaches the
    # writers' connections as well as the event loop's.
    if SQLITE_READS == "threads" or next(_pragma_turn) % 2:
        return await run_in_threadpool(pragmas_here)
    return pragmas_here()


if DATABASE_URL:
    from . import pg  # noqa: E402

    app.include_router(pg.router(templates))
else:
    app.include_router(sqlite)
# The signed-in routes, on either database (app.state.store).
accounts.install(app, templates)
