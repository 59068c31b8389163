"""Production settings, security headers and the throttling of admin logins."""

import base64
import hashlib
import os
import re
import secrets
import subprocess
import sys
from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.http import HttpRequest
from django.test import RequestFactory
from django.utils import timezone

from cases.models import Case
from incidentlib.security import client_ip
from tests.conftest import REPO
from tests.factories import CaseFactory, UserFactory

# --- production settings ------------------------------------------------------------


def run_in_production(*args, **env):
    """manage.py (or python -c) under incidentlib.settings.production, in a clean process."""
    # Not this test run's settings, nor the browser tests' DJANGO_ALLOW_ASYNC_UNSAFE (which
    # check --deploy rightly warns about).
    left_out = {
        "SECRET_KEY",
        "ALLOWED_HOSTS",
        "DEBUG",
        "DJANGO_SETTINGS_MODULE",
        "DJANGO_ALLOW_ASYNC_UNSAFE",
    }
    environment = {key: value for key, value in os.environ.items() if key not in left_out}
    environment.update(DJANGO_SETTINGS_MODULE="incidentlib.settings.production", **env)
    environment = {key: value for key, value in environment.items() if value is not None}
    return subprocess.run(
        [sys.executable, *args], cwd=REPO, env=environment, capture_output=True, text=True
    )


PRODUCTION_ENV = {"SECRET_KEY": secrets.token_urlsafe(50), "ALLOWED_HOSTS": "example.org"}


def test_check_deploy_finds_nothing_to_warn_about():
    result = run_in_production("manage.py", "check", "--deploy", **PRODUCTION_ENV)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "WARNINGS" not in output
    assert "System check identified some issues" not in output
    assert "System check identified no issues" in output


@pytest.mark.parametrize("missing", ["SECRET_KEY", "ALLOWED_HOSTS"])
def test_production_refuses_to_start_without(missing):
    result = run_in_production("manage.py", "check", **{**PRODUCTION_ENV, missing: None})
    assert result.returncode != 0
    assert f"ImproperlyConfigured: {missing} must be set in production." in result.stderr


PRODUCTION_REQUESTS = """
import django
django.setup()
from django.test import Client
client = Client(HTTP_HOST="example.org")
for path, headers in [
    ("/healthz", {}),
    ("/robots.txt", {}),
    ("/robots.txt", {"X-Forwarded-Proto": "https"}),
]:
    response = client.get(path, headers=headers)
    print(path, headers, response.status_code, response.get("Location"),
          response.get("Strict-Transport-Security"))
"""


def test_production_redirects_to_https_but_not_the_health_check(tmp_path):
    result = run_in_production(
        "-c",
        PRODUCTION_REQUESTS,
        DATABASE_URL=f"sqlite:///{tmp_path / 'empty.sqlite3'}",
        **PRODUCTION_ENV,
    )
    assert result.returncode == 0, result.stderr
    healthz, plain, https = result.stdout.splitlines()
    # The load balancer checks /healthz over plain HTTP: an answer, not a redirect.
    assert healthz.endswith("200 None None")
    assert plain.endswith("301 https://example.org/robots.txt None")
    # Behind the proxy that ended TLS: served, with HSTS for a year, subdomains, preload.
    assert https.endswith("200 None max-age=31536000; includeSubDomains; preload")


# --- headers on every response ------------------------------------------------------


@pytest.fixture
def published_case(db):
    CaseFactory(public_id="IL-0002", status=Case.Status.WITHDRAWN)
    return CaseFactory(public_id="IL-0001")


@pytest.mark.parametrize(
    "path, status",
    [
        ("/en/cases/", 200),
        ("/ko/cases/IL-0001/", 200),
        ("/en/cases.json", 200),
        ("/admin/login/", 200),
        ("/en/no-such-page/", 404),
        ("/en/cases/IL-0002/", 410),
    ],
)
def test_security_headers_on_every_kind_of_response(client, published_case, path, status):
    response = client.get(path)
    assert response.status_code == status
    csp = response["Content-Security-Policy"]
    assert "default-src 'self'" in csp
    assert "frame-ancestors 'none'" in csp
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["X-Frame-Options"] == "DENY"
    assert response["Cross-Origin-Opener-Policy"] == "same-origin"


def directive(policy, name):
    return next(part.split()[1:] for part in policy.split("; ") if part.split()[0] == name)


def test_the_policy_allows_no_inline_script_or_style(client, published_case):
    policy = client.get("/en/cases/")["Content-Security-Policy"]
    assert directive(policy, "script-src") == ["'self'"]
    assert "'unsafe-inline'" not in directive(policy, "style-src")
    assert "'unsafe-eval'" not in policy


def test_admin_pages_get_a_nonce_for_their_scripts(admin_client):
    response = admin_client.get("/admin/cases/case/add/")
    nonce = re.search(r"'nonce-([^']+)'", response["Content-Security-Policy"]).group(1)
    assert f'nonce="{nonce}"'.encode() in response.content
    # A fresh one for every request.
    assert nonce not in admin_client.get("/admin/cases/case/add/")["Content-Security-Policy"]


def test_the_style_hash_is_that_of_the_vendored_cytoscape():
    # Cytoscape inserts one <style> rule of its own; the policy allows exactly that text.
    script = (REPO / "static/vendor/cytoscape/cytoscape.min.js").read_text(encoding="utf-8")
    container_class = re.search(r'"(_+cytoscape_container)"', script).group(1)
    assert '" { position: relative; }"' in script
    rule = "." + container_class + " { position: relative; }"
    digest = base64.b64encode(hashlib.sha256(rule.encode()).digest()).decode()
    assert f"'sha256-{digest}'" in settings.SECURE_CSP["style-src"]


def test_no_template_has_inline_script_or_style():
    for template in (REPO / "templates").rglob("*.html"):
        text = template.read_text(encoding="utf-8")
        assert not re.search(r"\sstyle=|<style|\son[a-z]+=", text), template
        assert not re.search(r"<script(?![^>]*\ssrc=)", text), template


# --- the client's address behind proxies --------------------------------------------


@pytest.mark.parametrize(
    "proxies, forwarded, expected",
    [
        (0, "203.0.113.9", "10.0.0.2"),  # no trusted proxy: the header is the client's own
        (1, "", "10.0.0.2"),
        (1, "203.0.113.9", "203.0.113.9"),
        (1, "198.51.100.1, 203.0.113.9", "203.0.113.9"),  # the left entry is forgeable
        (2, "198.51.100.1, 203.0.113.9", "198.51.100.1"),
        (2, "203.0.113.9", "10.0.0.2"),
        (1, "not-an-address", "10.0.0.2"),
    ],
)
def test_client_ip_trusts_only_the_proxies_it_is_told_of(settings, proxies, forwarded, expected):
    settings.TRUSTED_PROXY_COUNT = proxies
    request = RequestFactory().get("/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR=forwarded)
    assert client_ip(request) == expected


@pytest.mark.parametrize("remote", ["203.0.113.5", "2001:db8::5"])
def test_a_client_that_bypasses_the_proxy_is_known_by_its_own_address(settings, remote):
    # X-Forwarded-For means something only when a proxy of ours wrote it: the address that
    # connected must be one of TRUSTED_PROXY_NETWORKS.
    settings.TRUSTED_PROXY_COUNT = 1
    settings.TRUSTED_PROXY_NETWORKS = ["10.0.0.0/8", "fd00::/8"]
    request = RequestFactory().get("/", REMOTE_ADDR=remote, HTTP_X_FORWARDED_FOR="192.0.2.77")
    assert client_ip(request) == remote


# --- login throttling ---------------------------------------------------------------

LOCKED = "Too many failed sign-ins"


@pytest.fixture
def accounts(db):
    return [UserFactory(username=name) for name in ("mina", "jun", "sora")]


def sign_in(client, username, password="pw", address="192.0.2.1", **headers):
    return client.post(
        "/admin/login/?next=/admin/",
        {"username": username, "password": password},
        REMOTE_ADDR=address,
        headers=headers,
    )


def signed_in(response):
    return response.status_code == 302 and response.url == "/admin/"


def test_five_wrong_passwords_lock_the_account_from_that_address_only(client, accounts):
    for _ in range(4):
        response = sign_in(client, "mina", "wrong")
        assert response.status_code == 200 and b"errornote" in response.content
    assert sign_in(client, "mina", "wrong").status_code == 429

    response = sign_in(client, "mina")
    assert response.status_code == 429
    assert LOCKED in response.content.decode()
    assert response["Retry-After"] == "900"
    assert "_auth_user_id" not in client.session
    # Nobody can lock someone else out: from another address the right password works.
    assert signed_in(sign_in(client, "mina", address="198.51.100.7"))


def test_failing_for_someone_else_every_quarter_hour_never_locks_them_out(client, accounts):
    attacker, editor = "203.0.113.66", "198.51.100.20"
    for _round in range(3):
        for _ in range(6):
            sign_in(client, "mina", "wrong", address=attacker)
        assert sign_in(client, "mina", address=attacker).status_code == 429
        assert signed_in(sign_in(client, "mina", address=editor))
        client.logout()


def test_behind_a_proxy_each_client_address_is_throttled_on_its_own(client, accounts, settings):
    settings.TRUSTED_PROXY_COUNT = 1
    balancer = "10.0.0.254"
    for _ in range(5):
        sign_in(client, "jun", "wrong", address=balancer, x_forwarded_for="203.0.113.5")
    locked = sign_in(client, "jun", address=balancer, x_forwarded_for="203.0.113.5")
    assert locked.status_code == 429
    assert signed_in(sign_in(client, "jun", address=balancer, x_forwarded_for="203.0.113.6"))


def test_a_forged_forwarded_for_does_not_reset_the_lock_when_no_proxy_stands_between(
    client, accounts, settings
):
    # Production trusts one proxy; a client that reaches the app directly writes its own
    # X-Forwarded-For, and a new address in it each time must not give it new guesses.
    settings.TRUSTED_PROXY_COUNT = 1
    settings.TRUSTED_PROXY_NETWORKS = ["10.0.0.0/8"]
    for n in range(5):
        sign_in(client, "mina", "wrong", address="203.0.113.5", x_forwarded_for=f"192.0.2.{n}")
    response = sign_in(client, "mina", address="203.0.113.5", x_forwarded_for="192.0.2.99")
    assert response.status_code == 429


def test_the_lock_lifts_after_a_quarter_of_an_hour(client, accounts):
    for _ in range(5):
        sign_in(client, "mina", "wrong")

    def failures_ago(minutes):
        AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=minutes))

    failures_ago(14)
    assert sign_in(client, "mina").status_code == 429
    failures_ago(16)
    assert signed_in(sign_in(client, "mina"))


def test_the_lockout_page_speaks_korean(client, accounts):
    for _ in range(5):
        sign_in(client, "mina", "wrong")
    response = sign_in(client, "mina", accept_language="ko")
    assert response.status_code == 429
    text = response.content.decode()
    assert '<html lang="ko">' in text
    assert "로그인 실패가 너무 많습니다" in text and "15분" in text


def test_client_login_works_when_given_a_request(client, accounts):
    # The axes backend needs the request; without one Django's client.login() cannot work.
    with pytest.raises(ValueError, match="requires a request"):
        client.login(username="mina", password="pw")
    assert client.login(request=HttpRequest(), username="mina", password="pw")
    assert client.get("/admin/").status_code == 200
