"""The test suite: fast hashing, in-memory SQLite unless DATABASE_URL says otherwise."""

import os

from .base import *  # noqa: F403
from .base import database_from_env

DEBUG = False
SECRET_KEY = "test-only-key"
ALLOWED_HOSTS = ["testserver", "127.0.0.1", "localhost"]
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
if not os.environ.get("DATABASE_URL"):
    DATABASES = {"default": database_from_env(":memory:")}  # noqa: F405
    DATABASES["default"]["OPTIONS"].pop("init_command", None)
STORAGES["staticfiles"]["BACKEND"] = (  # noqa: F405
    "django.contrib.staticfiles.storage.StaticFilesStorage"
)
