"""The signed-in routes' database work on the SQLite file (app/accounts.py
calls it). As for the other routes (README.md, "Concurrency"): the reads
are index lookups of a row or twenty and run on the event loop, on the
loop thread's connection (in AnyIO's thread pool with SQLITE_READS=threads);
every write is a `BEGIN IMMEDIATE` transaction in AnyIO's thread pool, on
that thread's connection, because it may wait up to busy_timeout for the
write lock another worker process holds."""

from . import memstatus  # noqa: F401  (before sqlite3: SQLite's memory statistics off)

import sqlite3  # noqa: E402

from starlette.concurrency import run_in_threadpool  # noqa: E402

from .db import connection  # noqa: E402
from .settings import SQLITE_READS  # noqa: E402

SESSION = "SELECT user_id FROM sessions WHERE token = ? AND expires_at > ?"
USER = "SELECT id, email FROM users WHERE id = ?"
USER_BY_EMAIL = "SELECT id, password_hash FROM users WHERE email = ?"
ORDERS = (
    "SELECT id, email, status, total_cents, currency, placed_at FROM orders "
    "WHERE user_id = ? ORDER BY id DESC LIMIT 20"
)


def write(conn: sqlite3.Connection, work):
    """work(conn) inside BEGIN IMMEDIATE ... COMMIT (rolled back if it raises)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        result = work(conn)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return result


async def read(fn, *args):
    if SQLITE_READS == "threads":
        return await run_in_threadpool(fn, *args)
    return fn(*args)


def _session_user(token: str, now: int) -> dict | None:
    conn = connection()
    row = conn.execute(SESSION, (token, now)).fetchone()
    if row is None:
        return None
    user = conn.execute(USER, (row[0],)).fetchone()
    return None if user is None else {"id": user[0], "email": user[1]}


def _user_by_email(email: str) -> dict | None:
    row = connection().execute(USER_BY_EMAIL, (email,)).fetchone()
    return None if row is None else {"id": row[0], "password_hash": row[1]}


def _recent_orders(user_id: int) -> list[dict]:
    rows = connection().execute(ORDERS, (user_id,)).fetchall()
    return [
        {"id": r[0], "email": r[1], "status": r[2], "total_cents": r[3], "currency": r[4], "placed_at": r[5]}
        for r in rows
    ]


def _create_session(token: str, user_id: int, created: int, expires: int) -> None:
    write(
        connection(),
        lambda c: c.execute(
            "INSERT INTO sessions (token, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
            (token, user_id, created, expires),
        ),
    )


def _delete_session(token: str) -> None:
    write(connection(), lambda c: c.execute("DELETE FROM sessions WHERE token = ?", (token,)))


def _place_order(user_id: int, email: str, cents: int, currency: str, now: int) -> int:
    def work(c: sqlite3.Connection) -> int:
        order_id = c.execute(
            "INSERT INTO orders (user_id, email, status, total_cents, currency, placed_at) "
            "VALUES (?, ?, 'PENDING', ?, ?, ?)",
            (user_id, email, cents, currency, now),
        ).lastrowid
        c.execute(
            "INSERT INTO jobs (order_id, action, created_at) VALUES (?, 'placed', ?)", (order_id, now)
        )
        return order_id

    return write(connection(), work)


def _cancel_order(order_id: int, user_id: int, now: int) -> str:
    def work(c: sqlite3.Connection) -> str:
        row = c.execute(
            "SELECT status FROM orders WHERE id = ? AND user_id = ?", (order_id, user_id)
        ).fetchone()
        if row is None:
            return "missing"
        if row[0] != "PENDING":
            return "not-pending"
        c.execute("UPDATE orders SET status = 'CANCELLED' WHERE id = ?", (order_id,))
        c.execute(
            "INSERT INTO jobs (order_id, action, created_at) VALUES (?, 'cancelled', ?)", (order_id, now)
        )
        return "cancelled"

    return write(connection(), work)


def _take_job(now_ms) -> bool:
    def work(c: sqlite3.Connection) -> bool:
        job = c.execute("SELECT id, order_id, action FROM jobs ORDER BY id LIMIT 1").fetchone()
        if job is None:  # another worker process took it first
            return False
        c.execute("INSERT INTO audit (order_id, action, at) VALUES (?, ?, ?)", (job[1], job[2], now_ms()))
        c.execute("DELETE FROM jobs WHERE id = ?", (job[0],))
        return True

    return write(connection(), work)


def _any_job() -> bool:
    return connection().execute("SELECT 1 FROM jobs LIMIT 1").fetchone() is not None


class SqliteStore:
    async def session_user(self, token: str, now: int) -> dict | None:
        return await read(_session_user, token, now)

    async def user_by_email(self, email: str) -> dict | None:
        return await read(_user_by_email, email)

    async def recent_orders(self, user_id: int) -> list[dict]:
        return await read(_recent_orders, user_id)

    async def create_session(self, token: str, user_id: int, created: int, expires: int) -> None:
        await run_in_threadpool(_create_session, token, user_id, created, expires)

    async def delete_session(self, token: str) -> None:
        await run_in_threadpool(_delete_session, token)

    async def place_order(self, user_id: int, email: str, cents: int, currency: str, now: int) -> int:
        return await run_in_threadpool(_place_order, user_id, email, cents, currency, now)

    async def cancel_order(self, order_id: int, user_id: int, now: int) -> str:
        return await run_in_threadpool(_cancel_order, order_id, user_id, now)

    async def work_one(self, now_ms) -> bool:
        # A read first (no lock): an idle poll never takes the write lock
        # that the order and write routes wait on.
        if not await read(_any_job):
            return False
        return await run_in_threadpool(_take_job, now_ms)
