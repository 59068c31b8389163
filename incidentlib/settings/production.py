"""Production: refuses to start without its secrets, and speaks only HTTPS."""

import os

from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F403

if DEBUG:  # noqa: F405
    raise ImproperlyConfigured("DEBUG must be off in production.")
if not SECRET_KEY:  # noqa: F405
    raise ImproperlyConfigured("SECRET_KEY must be set in production.")
if not ALLOWED_HOSTS:  # noqa: F405
    raise ImproperlyConfigured("ALLOWED_HOSTS must be set in production.")

# TLS ends at the load balancer, which says so in X-Forwarded-Proto and appends the
# client's address to X-Forwarded-For (used to throttle logins by address).
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
TRUSTED_PROXY_COUNT = int(os.environ.get("TRUSTED_PROXY_COUNT", "1"))
SECURE_SSL_REDIRECT = True
# The load balancer's health check speaks plain HTTP and must not be redirected.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
# A year, this host and every subdomain, and consent to browsers' preload lists: once
# preloaded, going back to plain HTTP takes months, so serve every subdomain over HTTPS.
SECURE_HSTS_SECONDS = 60 * 60 * 24 * 365
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True

# Links in emails lead to the first host name over HTTPS, unless SITE_URL names another.
if "SITE_URL" not in os.environ:
    first_host = ALLOWED_HOSTS[0]  # noqa: F405
    if "*" in first_host:
        raise ImproperlyConfigured("SITE_URL must be set when ALLOWED_HOSTS starts with '*'.")
    SITE_URL = f"https://{first_host.lstrip('.')}"
