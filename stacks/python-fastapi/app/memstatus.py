"""Turn SQLite's memory statistics off before the sqlite3 module starts SQLite.

Debian's libsqlite3 is built with memory statistics on (SQLITE_DEFAULT_MEMSTATUS
is not 0; `probes/sqliteinfo` shows it): every allocation and free then takes
one process-wide mutex, so threads using their own connections still queue on
malloc. Python has no binding for sqlite3_config, and it only works before
sqlite3_initialize(), which CPython 3.11's _sqlite3 calls when it is first
imported. So this module must be imported before `import sqlite3` anywhere in
the process: it loads the same libsqlite3.so.0 that _sqlite3 links (the
dynamic linker then hands _sqlite3 this already-loaded copy) and calls
sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0).

SQLITE_MEMSTATUS=1 leaves SQLite's default (statistics on), for a study's
variant to measure the difference.
"""

import ctypes
import sys

from .settings import SQLITE_MEMSTATUS

SQLITE_OK = 0
SQLITE_CONFIG_MEMSTATUS = 9
SQLITE_STATUS_MEMORY_USED = 0

_lib = ctypes.CDLL("libsqlite3.so.0")
_lib.sqlite3_status64.argtypes = (
    ctypes.c_int,
    ctypes.POINTER(ctypes.c_int64),
    ctypes.POINTER(ctypes.c_int64),
    ctypes.c_int,
)

if "sqlite3" in sys.modules or "_sqlite3" in sys.modules:
    # Too late: SQLite is initialised and sqlite3_config would be refused.
    sys.exit("python-fastapi: app.memstatus must be imported before sqlite3")

if SQLITE_MEMSTATUS == "0":
    # sqlite3_config is variadic; ctypes passes the int as an int.
    rc = _lib.sqlite3_config(SQLITE_CONFIG_MEMSTATUS, ctypes.c_int(0))
    if rc != SQLITE_OK:
        sys.exit(f"python-fastapi: sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) returned {rc}")


def memory_used() -> int:
    """SQLite's own count of the bytes it holds: 0 while statistics are off."""
    cur, high = ctypes.c_int64(), ctypes.c_int64()
    _lib.sqlite3_status64(SQLITE_STATUS_MEMORY_USED, ctypes.byref(cur), ctypes.byref(high), 0)
    return cur.value
