"""The Atom feed: it follows the list's filters, and dates each entry by the case's own
publication and update, never by the import that brought it."""

import datetime
import xml.etree.ElementTree as ET

import pytest
from django.core.management import call_command

from cases.models import Case
from cases.search.text import refresh_search_text
from tests.factories import CaseFactory

pytestmark = pytest.mark.django_db
ATOM = "{http://www.w3.org/2005/Atom}"


def entries(client, url):
    response = client.get(url)
    assert response.status_code == 200
    feed = ET.fromstring(response.content)
    return feed, {
        entry.find(f"{ATOM}title").text.split(":")[0]: entry for entry in feed.iter(f"{ATOM}entry")
    }


def test_the_feed_takes_the_lists_filters(client, library):
    _feed, dns = entries(client, "/en/feed.atom?component=dns")
    listed = client.get("/en/cases.json?component=dns").json()
    assert set(dns) == {case["id"] for case in listed["results"]}
    _feed, meta = entries(client, "/en/feed.atom?org=meta&component=dns")
    assert set(meta) == {
        case["id"] for case in client.get("/en/cases.json?org=meta&component=dns").json()["results"]
    }
    assert set(meta) <= set(dns) and set(meta) != set(entries(client, "/en/feed.atom")[1])


def test_the_feed_takes_a_search(client, library):
    _feed, found = entries(client, "/en/feed.atom?q=throughput")
    assert found and all(
        "Throughput" in entry.find(f"{ATOM}title").text for entry in found.values()
    )


def test_a_filtered_feed_says_so_and_links_its_list(client, library):
    feed, _entries = entries(client, "/en/feed.atom?component=dns&page=3&sort=oldest")
    assert "component dns" in feed.find(f"{ATOM}title").text
    link = feed.find(f"{ATOM}link[@rel='alternate']").get("href")
    assert link.endswith("/en/cases/?component=dns")  # its filters, not the page or order


@pytest.mark.parametrize("query", ["component=no-such-term", "from=yesterday", "q=%00"])
def test_a_feed_of_filters_it_does_not_understand_is_empty_or_plain_not_an_error(
    client, library, query
):
    assert client.get(f"/en/feed.atom?{query}").status_code == 200


def test_each_entry_carries_the_cases_own_times(client):
    published = datetime.datetime(2024, 3, 1, 9, tzinfo=datetime.UTC)
    updated = datetime.datetime(2024, 5, 2, 10, tzinfo=datetime.UTC)
    CaseFactory(public_id="IL-0001", published_at=published, updated_at=updated)
    refresh_search_text(Case.objects.all())
    _feed, found = entries(client, "/en/feed.atom")
    entry = found["IL-0001"]
    assert entry.find(f"{ATOM}published").text == "2024-03-01T09:00:00+00:00"
    assert entry.find(f"{ATOM}updated").text == "2024-05-02T10:00:00+00:00"


def test_imported_cases_are_dated_by_their_own_data_not_the_import(client, tmp_path, seed_case):
    call_command("load_taxonomy", "data/taxonomy.json", verbosity=0)
    seed_case["updated_at"] = "2025-06-01T08:00:00Z"
    seed_case["review"]["reviewed_at"] = None
    path = tmp_path / "cases.json"
    import json

    path.write_text(json.dumps([seed_case]))
    call_command("import_cases", str(path), verbosity=0)
    case = Case.objects.get(public_id=seed_case["id"])
    assert case.published_at == datetime.datetime(2025, 6, 1, 8, tzinfo=datetime.UTC)
    _feed, found = entries(client, "/en/feed.atom")
    assert found[seed_case["id"]].find(f"{ATOM}published").text.startswith("2025-06-01")


def test_every_bundled_case_has_a_time_of_its_own():
    import json
    from pathlib import Path

    for path in sorted(Path("data/cases").glob("*.json")):
        data = json.loads(path.read_text())
        own = data.get("updated_at") or (data.get("review") or {}).get("reviewed_at")
        assert own, f"{path.name} would be dated by its import"


def test_the_list_links_the_feed_of_its_filters(client, library):
    html = client.get("/en/cases/?component=dns").content.decode()
    assert 'href="/en/feed.atom?component=dns"' in html
