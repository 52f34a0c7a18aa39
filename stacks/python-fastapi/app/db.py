"""SQLite access: one connection per thread, set up with the lab's pragmas.

Each thread that asks opens its own connection on first use (sqlite3
connections must not be shared between threads) and keeps it for the life
of the worker: the event loop's thread for the read routes, and each of
AnyIO's pool threads for the writes (and for the reads too when
SQLITE_READS=threads).
"""

import os
import threading

from . import memstatus  # noqa: F401  (before sqlite3: SQLite's memory statistics off)

import sqlite3  # noqa: E402

DATABASE_PATH = os.environ.get("DATABASE_PATH", "/data/app.db")

PRAGMAS = (
    "PRAGMA journal_mode = WAL",
    "PRAGMA synchronous = NORMAL",
    "PRAGMA busy_timeout = 5000",
    "PRAGMA cache_size = 2000",
    "PRAGMA mmap_size = 134217728",
    "PRAGMA journal_size_limit = 67108864",
    "PRAGMA foreign_keys = ON",
)

_local = threading.local()


def _open() -> sqlite3.Connection:
    # mode=rw: the lab creates and seeds the file; a missing file is an
    # error, never a new empty database. isolation_level=None: we issue
    # BEGIN ourselves, so writes can say IMMEDIATE.
    conn = sqlite3.connect(
        f"file:{DATABASE_PATH}?mode=rw", uri=True, isolation_level=None, timeout=5.0
    )
    for pragma in PRAGMAS:
        conn.execute(pragma)
    return conn


def connection() -> sqlite3.Connection:
    """The calling thread's connection, opened (with the pragmas) on first use."""
    conn = getattr(_local, "conn", None)
    if conn is None:
        conn = _open()
        _local.conn = conn
    return conn
