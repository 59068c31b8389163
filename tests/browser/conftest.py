"""Real browser tests: Playwright driving Debian's Chromium against the live test server."""

import io
import os
import shutil
from pathlib import Path

import pytest
from django.core.management import call_command

from tests.conftest import REPO

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# SCREENSHOTS_DIR=/tmp/somewhere keeps one run's pictures apart from another's.
SCREENSHOTS = Path(os.environ.get("SCREENSHOTS_DIR", REPO / "test-artifacts" / "screenshots"))
# Without these, Chromium's background connections meet this machine's closed network.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}

# Playwright's sync API runs an event loop in this thread; the test's own ORM calls are
# still synchronous, so Django's guard against async contexts does not apply.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists() or shutil.which(CHROMIUM) is None:
        message = f"Chromium not found at {CHROMIUM}: apt-get install chromium"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


@pytest.fixture(autouse=True)
def closed_contexts_after_each_test(request):
    """Every browser context a test opened is closed after it. An open one keeps its HTTP
    connections to the live server alive, and each holds a server thread with a database
    connection: on PostgreSQL they piled up to "too many clients" in a whole run."""
    if "browser" not in request.fixturenames:
        yield
        return
    browser = request.getfixturevalue("browser")
    yield
    for context in browser.contexts:
        context.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport=DESKTOP, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()


@pytest.fixture
def bundled_site(transactional_db, live_server):
    call_command("load_taxonomy", str(REPO / "data" / "taxonomy.json"), stdout=io.StringIO())
    call_command("import_cases", str(REPO / "data" / "cases"), stdout=io.StringIO())
    return live_server.url


@pytest.fixture
def screenshot():
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(page, name, *, full_page=True):
        path = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=full_page)
        return path

    return take
