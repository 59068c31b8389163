"""The relevance set (tests/search/relevance): known-item queries over the bundled cases and
the test catalogue, run through the public list as readers run them. The search must put a
query's known case in the first five for at least 95% of them, and no query may get a
page with no result at all. `make relevance` prints the figures by kind."""

import json
from collections import Counter

import pytest
from django.db import transaction
from django.test import Client
from django.utils import translation

from cases.models import Case
from tests.pages import listed_ids
from tests.search.relevance import measure

pytestmark = pytest.mark.django_db

HIT_AT_5_NEEDED = 0.95
MIN_QUERIES = 60
MIN_PER_KIND = 8
QUERY_KEYS = {"q", "language", "expect", "kind"}


@pytest.fixture(scope="module")
def relevance_library(django_db_setup, django_db_blocker):
    """Loaded once for the module, in a transaction rolled back after its last test (each
    test's own transaction is a savepoint inside it)."""
    with django_db_blocker.unblock(), transaction.atomic():
        printed = measure.load_library()
        yield printed
        transaction.set_rollback(True)


@pytest.fixture(scope="module")
def outcomes(relevance_library, django_db_blocker):
    """Every query asked once, for the tests that judge the answers."""
    with django_db_blocker.unblock(), translation.override("en"):
        return measure.run(Client(), measure.load_queries())


def test_the_catalogue_imports_cleanly(relevance_library):
    files = sorted(measure.CATALOGUE.glob("*.json"))
    assert f"created {len(files)}, updated 0, unchanged 0, skipped 0" in relevance_library
    assert 35 <= len(files) <= 45
    catalogue = Case.objects.public().filter(public_id__in=[f.stem for f in files])
    assert catalogue.count() == len(files)
    for case in catalogue.prefetch_related("sources"):
        # Shaped like an imported public catalogue: English only, each with its source.
        assert case.title_en and case.summary_en and case.lessons_en, case.public_id
        assert not (case.title_ko or case.summary_ko or case.lessons_ko), case.public_id
        assert case.sources.exists(), case.public_id


def test_the_queries_are_well_formed(relevance_library):
    raw = json.loads(measure.QUERIES.read_text(encoding="utf-8"))
    assert all(set(item) == QUERY_KEYS for item in raw), "each query has q, language, expect, kind"
    queries = measure.load_queries()
    assert len(queries) >= MIN_QUERIES
    kinds = Counter(query.kind for query in queries)
    assert set(kinds) == set(measure.KINDS), kinds
    assert min(kinds.values()) >= MIN_PER_KIND, kinds
    assert {query.language for query in queries} == set(measure.LANGUAGES)
    asked = [(query.language, query.q.casefold()) for query in queries]
    assert len(asked) == len(set(asked)), "a query is asked twice"
    public = set(Case.objects.public().values_list("public_id", flat=True))
    for query in queries:
        assert query.q.strip() and query.expect, query
        assert len(set(query.expect)) == len(query.expect), query
        unknown = set(query.expect) - public
        assert not unknown, f"{query} expects cases that are not loaded: {sorted(unknown)}"


def test_the_json_list_ranks_as_the_page_does(client, relevance_library):
    # The set reads ranks from the JSON list: it must be the page's order.
    for query in measure.load_queries()[::9]:
        page = client.get(f"/{query.language}/cases/", {"q": query.q})
        json_ids = [
            case["id"]
            for case in client.get(measure.list_url(query.language, query.q, 1)).json()["results"]
        ]
        assert json_ids == listed_ids(page), query


def test_known_items_are_in_the_first_five(outcomes):
    hit_at_5 = measure.figures(outcomes).hit_at_5
    assert hit_at_5 >= HIT_AT_5_NEEDED, (
        f"hit@5 is {hit_at_5:.1%}, below {HIT_AT_5_NEEDED:.0%}. Missed:\n{measure.misses(outcomes)}"
    )


def test_no_query_gets_an_empty_page(outcomes):
    empty = [measure.describe(o) for o in outcomes if o.empty]
    assert not empty, "Queries with no result:\n" + "\n".join(empty)


def test_meta_ranks_its_own_cases_above_metadata(client, relevance_library):
    # "meta" begins "metadata": the organisation's cases must come before cases that only
    # mention metadata.
    found = client.get(measure.list_url("en", "Meta", 1)).json()["results"]
    owners = [case["org_slug"] == "meta" for case in found]
    assert any(owners)
    assert owners == sorted(owners, reverse=True), [
        (case["id"], case["org_slug"]) for case in found
    ]
