"""When the database goes away: 503 and the friendly page, then recovery without a restart."""

import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from contextlib import contextmanager, suppress

import pytest
from django.db import connection

from tests.conftest import REPO
from tests.factories import CaseFactory, UserFactory

UNAVAILABLE = {"en": "Temporarily unavailable", "ko": "잠시 이용할 수 없음"}


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def database_unreachable():
    """Point this process's connection at a database that is not there, then back."""
    original = dict(connection.settings_dict)
    connection.close()
    if connection.vendor == "sqlite":
        connection.settings_dict["NAME"] = "/nonexistent-directory/db.sqlite3"
    else:
        connection.settings_dict.update(HOST="127.0.0.1", PORT=str(free_port()))
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict.clear()
        connection.settings_dict.update(original)


@pytest.fixture
def library(transactional_db):
    return CaseFactory(public_id="IL-0001")


@pytest.mark.parametrize("language", ["en", "ko"])
def test_pages_answer_503_while_the_database_is_away_and_recover(client, library, language):
    with database_unreachable():
        response = client.get(f"/{language}/cases/IL-0001/")
        text = response.content.decode()
        assert response.status_code == 503
        assert response["Retry-After"] == "30"
        assert f"<h1>{UNAVAILABLE[language]}</h1>" in text
        assert "Traceback" not in text and "OperationalError" not in text
        assert "default-src 'self'" in response["Content-Security-Policy"]
        assert client.get("/healthz").status_code == 503
    assert client.get(f"/{language}/cases/IL-0001/").status_code == 200
    assert client.get("/healthz").status_code == 200


def test_pages_cached_before_the_database_went_away_are_still_served(client, library):
    assert client.get("/en/cases/IL-0001/").status_code == 200
    with database_unreachable():
        cached = client.get("/en/cases/IL-0001/")
        assert cached.status_code == 200 and cached["X-Cache"] == "hit"
        assert "IL-0001" in cached.content.decode()
        assert client.get("/en/cases/?q=never+cached").status_code == 503


def test_a_signed_in_editor_also_gets_503_not_500(client, library):
    # Their session lives in the database: reading it is what fails first.
    client.force_login(UserFactory(role="editor"))
    with database_unreachable():
        assert client.get("/admin/").status_code == 503
        assert client.get("/en/cases/").status_code == 503
    assert client.get("/admin/").status_code == 200


# --- a real PostgreSQL outage, seen by a real server --------------------------------


class TcpProxy:
    """Forwards a loopback port to PostgreSQL. Stopping it is the database going away:
    the port refuses connections and every open connection is cut. Starting it again
    brings the database back on the same port."""

    def __init__(self, target):
        self.target = target
        self.port = free_port()
        self.sockets = []
        self.running = False

    def start(self):
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen()
        listener.settimeout(0.1)
        self.running = True
        self.sockets = [listener]
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def stop(self):
        self.running = False
        for sock in self.sockets:
            with suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def _accept(self, listener):
        while self.running:
            try:
                client, _address = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            client.settimeout(None)
            upstream = socket.create_connection(self.target)
            self.sockets += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pipe(source, sink):
        with suppress(OSError):  # the proxy was stopped
            while data := source.recv(65536):
                sink.sendall(data)


def fetch(url):
    try:
        with urllib.request.urlopen(url, timeout=20) as response:
            return response.status, response.read().decode(), response.headers
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(), error.headers


@pytest.mark.skipif(
    not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")),
    reason="a real outage needs PostgreSQL (DATABASE_URL=postgres://...)",
)
def test_a_running_server_rides_out_a_postgresql_outage(library, tmp_path):
    database = connection.settings_dict
    proxy = TcpProxy((database["HOST"] or "127.0.0.1", int(database["PORT"] or 5432)))
    proxy.start()
    port = free_port()
    user = database["USER"] or "postgres"
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "incidentlib.settings.test",
        # The test database (committed rows: transactional_db), through the proxy.
        "DATABASE_URL": f"postgres://{user}@127.0.0.1:{proxy.port}/{database['NAME']}",
    }
    log = (tmp_path / "gunicorn.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "incidentlib.wsgi", "--bind", f"127.0.0.1:{port}"],
        cwd=REPO,
        env=environment,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if fetch(f"{base}/healthz")[0] == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, (tmp_path / "gunicorn.log").read_text()
            time.sleep(0.2)
        assert fetch(f"{base}/en/cases/IL-0001/")[0] == 200

        proxy.stop()
        # Addresses not yet in the page cache, which would otherwise still answer.
        status, text, headers = fetch(f"{base}/ko/cases/IL-0001/")
        assert status == 503, text
        assert f"<h1>{UNAVAILABLE['ko']}</h1>" in text and "Traceback" not in text
        assert headers["Retry-After"] == "30"
        assert fetch(f"{base}/en/cases/?q=during")[0] == 503
        assert fetch(f"{base}/healthz")[0] == 503

        proxy.start()
        assert fetch(f"{base}/healthz")[0] == 200
        assert fetch(f"{base}/en/cases/?q=after")[0] == 200
        assert fetch(f"{base}/en/cases.json")[0] == 200
        assert server.poll() is None  # the same server, never restarted
    finally:
        server.terminate()
        server.wait(timeout=10)
        proxy.stop()
        log.close()
