"""`make bench`: production-like (DEBUG off, collected static files), on a scratch database."""

import os
from pathlib import Path

from .base import *  # noqa: F403

DEBUG = False
SECRET_KEY = "bench-only-key"
ALLOWED_HOSTS = ["testserver", "127.0.0.1", "localhost"]
STATIC_ROOT = Path(os.environ.get("BENCH_STATIC_ROOT", BASE_DIR / "staticfiles"))  # noqa: F405
LOGGING = {"version": 1, "disable_existing_loggers": False, "root": {"level": "ERROR"}}
