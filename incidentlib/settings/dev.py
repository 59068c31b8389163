"""Local development: DEBUG on unless said otherwise, a fixed key, loopback hosts."""

from .base import *  # noqa: F403
from .base import env_bool, env_list

DEBUG = env_bool("DEBUG", default=True)
if not SECRET_KEY:  # noqa: F405
    if not DEBUG:
        from django.core.exceptions import ImproperlyConfigured

        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")
    SECRET_KEY = "dev-only-insecure-key-never-use-in-production"
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]")
STORAGES["staticfiles"]["BACKEND"] = (  # noqa: F405
    "django.contrib.staticfiles.storage.StaticFilesStorage"
)
# Emails are printed where `make run` shows its log, not sent.
MAILERS = {"default": {"BACKEND": "django.core.mail.backends.console.EmailBackend"}}
