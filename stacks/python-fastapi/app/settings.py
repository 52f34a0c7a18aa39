"""The switches a study's variants set (README.md, "Environment it honours").

Read by serve.py before uvicorn starts, so a bad value is one line and exit
1 in the supervisor rather than a worker that dies and is restarted. The
defaults are the measured best (README.md, "Optimizing").
"""

import os
import sys


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    value = os.environ.get(name, "") or default
    if value not in choices:
        sys.exit(f"python-fastapi: {name}={value!r} is not one of {', '.join(choices)}")
    return value


UPSTREAM_CLIENT = env_choice("UPSTREAM_CLIENT", "aiohttp", ("aiohttp", "httpx"))
SQLITE_READS = env_choice("SQLITE_READS", "loop", ("loop", "threads"))
SQLITE_MEMSTATUS = env_choice("SQLITE_MEMSTATUS", "0", ("0", "1"))
