"""Start the app under uvicorn with one worker process per CPU given
(WEB_CONCURRENCY overrides the count).

uvicorn's async workers each use a whole core, so the production norm is
one per CPU (not gunicorn's 2n+1, which is for blocking workers).
"""

import os
import sys

import uvicorn

# The variant switches, checked here in the supervisor before any worker
# starts (a worker that exits on a bad value would be restarted forever).
import app.settings  # noqa: F401


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name, "")
    if raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        sys.exit(f"python-fastapi: {name}={raw!r} is not a positive integer")
    return value


def main() -> None:
    # WEB_CONCURRENCY is uvicorn's (and gunicorn's) own name for the worker
    # count; a study's variant sets it to compare worker counts.
    workers = env_int("WEB_CONCURRENCY", env_int("LAB_CPUS", len(os.sched_getaffinity(0))))
    port = env_int("PORT", 8080)
    uvicorn.run(
        "app.main:app",
        host="0.0.0.0",
        port=port,
        workers=workers,
        access_log=False,
        log_level="warning",
        proxy_headers=False,
        # Keep-alive connections from the load generator would otherwise
        # hold shutdown open; the lab wants an exit within 5 s of SIGTERM.
        timeout_graceful_shutdown=3,
    )


if __name__ == "__main__":
    main()
