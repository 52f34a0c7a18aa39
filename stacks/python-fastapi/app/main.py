"""The lab app (shared/design/APP.md) on FastAPI."""

import os
import sqlite3
import time
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse
from fastapi.templating import Jinja2Templates

from .db import connection

UPSTREAM_URL = os.environ.get("UPSTREAM_URL", "http://127.0.0.1:9090")
PAYLOAD = "stacklab-bench-event-" + "x" * 179  # 200 ASCII bytes

templates = Jinja2Templates(directory=Path(__file__).parent / "templates")


@asynccontextmanager
async def lifespan(app: FastAPI):
    # One keep-alive client per worker process, shared by every request.
    # httpx's default pool (100 connections) would cap the upstream case at
    # 100 requests per 100 ms; the io study drives 512 connections.
    limits = httpx.Limits(max_connections=1024, max_keepalive_connections=1024)
    async with httpx.AsyncClient(
        base_url=UPSTREAM_URL, limits=limits, timeout=10.0, trust_env=False
    ) as client:
        app.state.upstream = client
        yield


# No /docs, /redoc or /openapi.json in production: the contract's "anything
# else" is a 404.
app = FastAPI(lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)


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


@app.get("/items")
def items():
    return {"items": newest_items(connection())}


@app.get("/page")
def page(request: Request):
    return templates.TemplateResponse(
        request, "page.html", {"items": newest_items(connection())}
    )


@app.get("/bench/upstream")
async def bench_upstream(request: Request):
    client: httpx.AsyncClient = request.app.state.upstream
    try:
        r = await client.get("/delay", params={"ms": 100})
    except httpx.HTTPError as e:
        return JSONResponse(
            {"ok": False, "error": f"{type(e).__name__}: {e}"}, status_code=502
        )
    if r.status_code != 200:
        return JSONResponse(
            {"ok": False, "error": f"upstream answered {r.status_code}"},
            status_code=502,
        )
    return {"ok": True, "upstream": r.status_code}


@app.post("/bench/write")
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


@app.get("/bench/read")
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


@app.get("/bench/pragmas")
def bench_pragmas():
    conn = connection()
    return {name: conn.execute(f"PRAGMA {name}").fetchone()[0] for name in PRAGMA_NAMES}
