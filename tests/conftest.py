import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SEED = REPO / "data" / "cases" / "IL-0585.json"


@pytest.fixture(autouse=True)
def empty_cache():
    """Each test starts with an empty page cache, as a fresh server would: the shared
    cache and each process's memory of it (which entries were good at which version, the
    version last read, the searches it served)."""
    from django.core.cache import cache

    from cases import caching

    cache.clear()
    caching.forget_versions()


@pytest.fixture
def seed_case():
    """IL-0585 as the exchange format gives it: a fresh copy for each test to change."""
    return json.loads(SEED.read_text(encoding="utf-8"))


@pytest.fixture
def write_json(tmp_path):
    """Write a value (or raw text/bytes) to a file in tmp_path and return its path."""

    def write(name, value):
        path = tmp_path / name
        if isinstance(value, bytes):
            path.write_bytes(value)
        elif isinstance(value, str):
            path.write_text(value, encoding="utf-8")
        else:
            path.write_text(json.dumps(value, ensure_ascii=False), encoding="utf-8")
        return path

    return write


@pytest.fixture(autouse=True)
def english_after_each_test():
    """A request for a Korean page leaves Korean active in its thread: the next test's
    messages would be Korean."""
    from django.utils import translation

    yield
    translation.activate("en")


@pytest.fixture(autouse=True)
def fresh_facet_index():
    """Each test builds its own facet index: a rolled-back database reuses version numbers."""
    from cases.catalogue.facet_index import forget

    forget()


# --- the people of most editorial tests -------------------------------------------------


@pytest.fixture
def editor():
    from tests.factories import UserFactory

    return UserFactory(username="eddie", role="editor", email="eddie@example.org")


@pytest.fixture
def reviewer():
    from tests.factories import UserFactory

    return UserFactory(
        username="rita",
        role="reviewer",
        first_name="Rita",
        last_name="Park",
        email="rita@example.org",
    )


@pytest.fixture
def second_reviewer():
    from tests.factories import UserFactory

    return UserFactory(username="ravi", role="reviewer", email="ravi@example.org")


@pytest.fixture
def jun():
    """A reviewer, for tests where two reviewers meet over one case."""
    from tests.factories import UserFactory

    return UserFactory(username="jun", role="reviewer", first_name="Jun")


@pytest.fixture
def mina():
    from tests.factories import UserFactory

    return UserFactory(username="mina", role="reviewer", first_name="Mina")
