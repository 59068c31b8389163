"""What issue #20 found when readers searched, each as a test: typos, other word forms,
a word the case lacks, organisations written in Hangul, an organisation's name inside
other words, quoted phrases, Korean words over English-only cases; and how the list says
that it corrected or widened a search."""

import datetime

import pytest

from cases.models import Case
from cases.search.text import refresh_search_text
from tests.factories import CaseFactory, OrganisationFactory
from tests.pages import listed_ids, text_of

pytestmark = pytest.mark.django_db


def english_case(public_id, org, title, summary, *, status=Case.Status.PUBLISHED, days=0):
    """A case as an English-only catalogue brings it: no Korean at all."""
    return CaseFactory(
        public_id=public_id,
        org=org,
        title_en=title,
        title_ko="",
        summary_en=summary,
        summary_ko="",
        status=status,
        date=datetime.date(2020, 1, 1) + datetime.timedelta(days=days),
    )


@pytest.fixture
def catalogue():
    orgs = {
        "gitlab": OrganisationFactory(slug="gitlab", name="GitLab", aliases_ko="깃랩"),
        "meta": OrganisationFactory(
            slug="meta", name="Meta", aliases_en="Facebook", aliases_ko="페이스북\n메타"
        ),
        "cloudflare": OrganisationFactory(
            slug="cloudflare", name="Cloudflare", aliases_ko="클라우드플레어"
        ),
        "github": OrganisationFactory(slug="github", name="GitHub"),
        "atlassian": OrganisationFactory(slug="atlassian", name="Atlassian"),
        "openai": OrganisationFactory(slug="openai", name="OpenAI"),
        "telco": OrganisationFactory(slug="telco", name="Telco"),
        "pooling": OrganisationFactory(slug="pooling", name="Pooling"),
    }
    english_case(
        "IL-9001",
        orgs["gitlab"],
        "An engineer removed the primary database directory",
        "Replication lagged and an engineer ran the removal on the wrong host.",
    )
    english_case(
        "IL-9002",
        orgs["meta"],
        "A backbone command disconnected the data centers",
        "BGP routes to the DNS servers were withdrawn, and the sites went dark.",
    )
    english_case(
        "IL-9003",
        orgs["cloudflare"],
        "A WAF rule with a backtracking regex exhausted CPU",
        "A regular expression in a new rule backtracked on every request.",
    )
    # Two GitHub cases about metadata, newer than Meta's: dates alone would put them first.
    english_case(
        "IL-9004",
        orgs["github"],
        "Metadata storage failover",
        "The metadata cluster failed over.",
        days=900,
    )
    english_case(
        "IL-9005",
        orgs["github"],
        "Repository metadata lag",
        "Metadata replicas fell behind.",
        days=901,
    )
    english_case(
        "IL-9006",
        orgs["atlassian"],
        "A script caused site deletion for hundreds of customers",
        "A maintenance script was given site identifiers instead of app identifiers.",
    )
    english_case(
        "IL-9007",
        orgs["openai"],
        "A redis-py client bug showed users other users' titles",
        "Cancelled requests left connections in a bad state in the client library.",
    )
    english_case(
        "IL-9008",
        orgs["telco"],
        "Fire at a telephone exchange cut service",
        "A fire in the exchange building took lines down for days.",
    )
    english_case(
        "IL-9009",
        orgs["pooling"],
        "The connection pool ran dry",
        "Every connection pool of the service was exhausted by slow queries.",
    )
    english_case(
        "IL-9010",
        orgs["pooling"],
        "Pool sizes and connection limits",
        "A pool of workers hit a limit on each connection to the database.",
    )
    refresh_search_text(Case.objects.all())
    return orgs


def test_a_misspelled_word_is_corrected_and_said(client, catalogue):
    response = client.get("/en/cases/?q=cloudfare regex")
    assert listed_ids(response) == ["IL-9003"]
    page = text_of(response)
    assert "No case has “cloudfare”." in page
    assert "Showing results for cloudflare regex" in page
    json = client.get("/en/cases.json?q=cloudfare regex").json()
    assert json["search"] == {"answered": "corrected", "corrected": "cloudflare regex"}
    assert [case["id"] for case in json["results"]] == ["IL-9003"]


def test_other_forms_of_english_words_match(client, catalogue):
    # The case says "site deletion"; the reader types "deleted sites".
    assert listed_ids(client.get("/en/cases/?q=atlassian deleted sites")) == ["IL-9006"]
    assert listed_ids(client.get("/en/cases/?q=removing databases")) == ["IL-9001"]


def test_common_words_never_block_a_match(client, catalogue):
    # "in", "a": the case says "Fire at a telephone exchange".
    assert listed_ids(client.get("/en/cases/?q=fire in a telephone exchange")) == ["IL-9008"]


def test_a_word_the_case_lacks_lists_the_cases_with_the_most_words(client, catalogue):
    response = client.get("/en/cases/?q=postmortem redis client bug chatgpt")
    assert listed_ids(response)[0] == "IL-9007"
    assert "No case has every word of your search." in text_of(response)
    json = client.get("/en/cases.json?q=postmortem redis client bug chatgpt").json()
    assert json["search"]["answered"] == "partial"
    assert json["results"][0]["id"] == "IL-9007"


@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("깃랩 데이터베이스", "IL-9001"),
        ("페이스북 BGP", "IL-9002"),
        ("클라우드플레어 정규식", "IL-9003"),
        ("facebook", "IL-9002"),
    ],
)
def test_an_organisation_written_in_hangul_finds_its_english_only_cases(
    client, catalogue, query, found
):
    assert listed_ids(client.get(f"/ko/cases/?q={query}"))[0] == found


def test_a_named_organisation_ranks_its_own_cases_first(client, catalogue):
    # Both GitHub cases say "metadata", which begins with "meta", and are newer.
    ranked = listed_ids(client.get("/en/cases/?q=Meta"))
    assert ranked[0] == "IL-9002"
    assert set(ranked[1:]) == {"IL-9004", "IL-9005"}


def test_a_quoted_phrase_matches_the_words_in_order(client, catalogue):
    assert listed_ids(client.get('/en/cases/?q="connection pool"')) == ["IL-9009"]
    # Without quotes both cases have both words.
    assert set(listed_ids(client.get("/en/cases/?q=connection pool"))) == {"IL-9009", "IL-9010"}


def test_korean_words_reach_cases_written_only_in_english(client, catalogue):
    assert "IL-9003" in listed_ids(client.get("/ko/cases/?q=정규식"))
    assert "IL-9008" in listed_ids(client.get("/ko/cases/?q=화재"))


def test_the_korean_word_for_an_outage_reaches_english_cases(client):
    english_case("IL-9101", OrganisationFactory(), "A regional outage", "Service stopped.")
    refresh_search_text(Case.objects.all())
    assert listed_ids(client.get("/ko/cases/?q=장애")) == ["IL-9101"]


def test_a_word_no_case_has_nor_anything_like_it_lists_nothing(client, catalogue):
    response = client.get("/en/cases/?q=zzyzx")
    assert listed_ids(response) == []
    assert "No published case matches these filters." in text_of(response)


def test_a_draft_never_lends_a_word_to_a_correction(client, catalogue):
    english_case(
        "IL-9201",
        OrganisationFactory(),
        "Quokkaservice secret rollout",
        "Drafted only.",
        status=Case.Status.DRAFT,
    )
    refresh_search_text(Case.objects.all())
    response = client.get("/en/cases/?q=quokkaservise")
    assert listed_ids(response) == []
    assert "quokkaservice" not in text_of(response).casefold()


def test_a_correction_found_only_in_a_withdrawn_case_is_not_offered(client, catalogue):
    case = english_case("IL-9202", OrganisationFactory(), "Wombatqueue stalled", "Queue.")
    refresh_search_text(Case.objects.all())
    assert listed_ids(client.get("/en/cases/?q=wombatqeue")) == ["IL-9202"]
    Case.objects.filter(pk=case.pk).update(status=Case.Status.WITHDRAWN)
    from cases.caching import public_content_changed

    public_content_changed()
    assert listed_ids(client.get("/en/cases/?q=wombatqeue")) == []


def queries_of(client, url):
    """The queries of one request that the page cache does not answer."""
    from django.core.cache import cache
    from django.db import connections
    from django.test.utils import CaptureQueriesContext

    cache.clear()
    with CaptureQueriesContext(connections["default"]) as queries:
        client.get(url)
    return len(queries)


@pytest.mark.parametrize("query", ["cloudfare outage", "postmortem redis client bug chatgpt"])
def test_a_corrected_or_widened_search_asks_as_many_queries_for_more_cases(
    client, catalogue, query
):
    from cases.caching import public_content_changed

    url = f"/en/cases/?q={query}"
    client.get(url)  # the facet index, built once per version
    few = queries_of(client, url)
    for n in range(30):
        english_case(f"IL-93{n:02d}", catalogue["telco"], f"Other case {n}", "Nothing alike.")
    refresh_search_text(Case.objects.all())
    public_content_changed()
    client.get(url)
    assert queries_of(client, url) == few


def test_a_search_typed_in_the_lists_form_is_ranked_by_relevance(client, catalogue):
    # The form sends its sort field with the words: from the list without a search it
    # used to send "newest", so every first search came newest first.
    form = client.get("/en/cases/").content.decode()
    assert '<option value="" selected>' in form
    assert 'value="newest"' not in form
    response = client.get("/en/cases/?q=Meta&sort=")
    assert response.context["listing"].sort == "relevance"
    assert listed_ids(response)[0] == "IL-9002"


def test_an_organisation_named_in_hangul_is_offered_as_a_filter(client, catalogue):
    response = client.get("/ko/cases/?q=깃랩 데이터베이스")
    suggestions = [(name, item.slug) for name, item in response.context["listing"].suggestions]
    assert ("org", "gitlab") in suggestions
