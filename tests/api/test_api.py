"""The read API, /api/v1/: cases, terms, organisations, its schema and docs, ETags, CORS,
the rate limit."""

import pytest
from django.core.cache import cache
from django.test import override_settings
from openapi_spec_validator import validate

from cases.api.app import api
from cases.catalogue.facet_index import forget
from cases.models import Case, Vocabulary
from cases.search.text import refresh_search_text
from tests.factories import CaseFactory, OrganisationFactory, TermFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def library():
    dns = TermFactory(vocabulary=Vocabulary.COMPONENT, slug="dns", label_ko="DNS")
    acme = OrganisationFactory(name="Acme", slug="acme")
    cases = [
        CaseFactory(public_id=f"IL-{n:04d}", org=acme, with_terms=[dns] if n % 2 else [])
        for n in range(1, 26)
    ]
    CaseFactory(public_id="IL-0900", status=Case.Status.DRAFT, published_at=None)
    CaseFactory(public_id="IL-0901", status=Case.Status.WITHDRAWN)
    refresh_search_text(Case.objects.all())
    forget()
    return cases


def test_the_openapi_schema_is_valid_openapi_3_1(client):
    response = client.get("/api/v1/openapi.json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.1")
    validate(schema)  # raises on an invalid document
    for path in ("/api/v1/cases", "/api/v1/cases/{case_id}", "/api/v1/terms"):
        assert path in schema["paths"]
    for path in ("/api/v1/organisations", "/api/v1/changes", "/api/v1/cases.jsonl.gz"):
        assert path in schema["paths"]


def test_every_filter_of_the_list_is_a_documented_parameter():
    parameters = {
        p["name"] for p in api.get_openapi_schema()["paths"]["/api/v1/cases"]["get"]["parameters"]
    }
    expected = {"q", "cause", "component", "symptom", "contributing", "domain", "org"}
    assert expected | {"severity", "from", "to", "sort", "page"} <= parameters


def test_the_list_pages_through_every_public_case_once_in_a_stable_order(client, library):
    seen, url = [], "/api/v1/cases"
    while url:
        body = client.get(url).json()
        seen += [case["id"] for case in body["results"]]
        url = body["next"]
    assert len(seen) == len(set(seen)) == 25
    assert "IL-0900" not in seen and "IL-0901" not in seen
    assert body["count"] == 25 and body["pages"] == 2


def test_the_list_takes_the_public_lists_filters(client, library):
    body = client.get("/api/v1/cases?component=dns&org=acme").json()
    assert body["count"] == 13
    assert all("dns" in case["components"] for case in body["results"])


def test_a_filter_the_list_does_not_know_gives_a_notice_not_an_error(client, library):
    response = client.get("/api/v1/cases?from=yesterday&page=abc&severity=<x>")
    assert response.status_code == 200
    assert response.json()["notices"]


def test_a_case_is_in_the_exchange_format(client, library):
    response = client.get("/api/v1/cases/IL-0003")
    assert response.status_code == 200
    assert response.json()["id"] == "IL-0003"
    assert response.json() == client.get("/en/cases/IL-0003.json").json()


def test_a_withdrawn_case_answers_410_with_its_id(client, library):
    response = client.get("/api/v1/cases/IL-0901")
    assert response.status_code == 410
    assert response.json() == {"id": "IL-0901", "status": "withdrawn"}


@pytest.mark.parametrize("case_id", ["IL-0900", "IL-9999", "nothing", "IL-0001%00"])
def test_a_draft_or_unknown_id_answers_404_in_json(client, library, case_id):
    response = client.get(f"/api/v1/cases/{case_id}")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")


def test_an_unchanged_answer_is_304_to_its_etag(client, library):
    first = client.get("/api/v1/cases?component=dns")
    etag = first["ETag"]
    again = client.get("/api/v1/cases?component=dns", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304


def test_a_change_gives_a_new_etag(client, library, editor, reviewer):
    from tests.workflow import approve_edit

    etag = client.get("/api/v1/cases/IL-0003")["ETag"]
    approve_edit(library[2], editor, reviewer, title_en="A new title")
    response = client.get("/api/v1/cases/IL-0003", HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 200
    assert response.json()["title"]["en"] == "A new title"


def test_any_origin_may_read_and_preflight(client, library):
    response = client.get("/api/v1/terms", HTTP_ORIGIN="https://elsewhere.example")
    assert response["Access-Control-Allow-Origin"] == "*"
    assert "ETag" in response["Access-Control-Expose-Headers"]
    preflight = client.options(
        "/api/v1/cases",
        HTTP_ORIGIN="https://elsewhere.example",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="GET",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="if-none-match",
    )
    assert preflight.status_code == 204
    assert "GET" in preflight["Access-Control-Allow-Methods"]
    assert "If-None-Match" in preflight["Access-Control-Allow-Headers"]


def test_the_site_outside_the_api_sends_no_cors(client, library):
    assert "Access-Control-Allow-Origin" not in client.get("/en/cases/")


@override_settings(API_REQUESTS_PER_MINUTE=3)
def test_an_address_over_its_limit_is_told_when_to_come_back(client, library):
    cache.clear()
    for _ in range(3):
        assert client.get("/api/v1/terms").status_code == 200
    refused = client.get("/api/v1/terms")
    assert refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert "Try again" in refused.json()["detail"]
    assert refused["Access-Control-Allow-Origin"] == "*"  # a script can read why
    other = client.get("/api/v1/terms", REMOTE_ADDR="192.0.2.7")
    assert other.status_code == 200


def test_terms_are_the_public_ones_with_both_labels_and_counts(client, library):
    TermFactory(vocabulary=Vocabulary.COMPONENT, slug="only-on-a-draft")
    body = client.get("/api/v1/terms").json()
    slugs = {term["slug"]: term for term in body["results"]}
    assert "only-on-a-draft" not in slugs
    assert slugs["dns"]["label"] == {"en": "Dns", "ko": "DNS"}
    assert slugs["dns"]["cases"] == 13
    assert slugs["dns"]["vocabulary"] == "component"


def test_organisations_are_the_public_ones_with_counts(client, library):
    OrganisationFactory(name="Only drafts", slug="only-drafts")
    body = client.get("/api/v1/organisations").json()
    by_slug = {org["slug"]: org for org in body["results"]}
    assert by_slug["acme"]["cases"] == 25
    assert by_slug["acme"]["page"] == {
        "en": "http://testserver/en/organisations/acme/",
        "ko": "http://testserver/ko/organisations/acme/",
    }
    assert (by_slug["acme"]["name_ko"], by_slug["acme"]["links"]) == ("", [])
    assert "only-drafts" not in by_slug


def test_listing_pages_of_the_api_take_a_constant_number_of_queries(
    client, library, django_assert_max_num_queries
):
    for url in ("/api/v1/cases", "/api/v1/terms", "/api/v1/organisations"):
        cache.clear()
        with django_assert_max_num_queries(20):
            assert client.get(url).status_code == 200
    term = library[0].case_terms.first().term
    for n in range(30):  # ids of their own: the factory's sequence may reach the library's
        CaseFactory(public_id=f"IL-{5000 + n}", org=library[0].org, with_terms=[term])
    forget()
    for url in ("/api/v1/cases", "/api/v1/terms", "/api/v1/organisations"):
        cache.clear()
        with django_assert_max_num_queries(20):
            assert client.get(url).status_code == 200


def test_the_docs_page_lists_every_endpoint_in_both_languages(client):
    assert client.get("/api/v1/docs").status_code == 302
    for language in ("en", "ko"):
        page = client.get(f"/{language}/api/").content.decode()
        for path in ("/api/v1/cases", "/api/v1/changes", "/api/v1/terms", "/api/v1/bulk"):
            assert path in page
        assert "cdn" not in page.lower()


def test_head_is_answered_as_get_without_a_body(client, library):
    for url in ("/api/v1/cases", "/api/v1/cases/IL-0003", "/api/v1/terms"):
        head, get = client.head(url), client.get(url)
        assert head.status_code == 200, url
        assert head["ETag"] == get["ETag"]
        assert head.content == b""


def test_the_case_schema_is_served_and_describes_the_apis_cases(client, library):
    from jsonschema import Draft202012Validator

    response = client.get("/api/v1/schema/case.json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/schema+json"
    schema = response.json()
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    for case in client.get("/api/v1/cases").json()["results"]:
        assert not list(validator.iter_errors(case)), case["id"]
    openapi = client.get("/api/v1/openapi.json").json()
    assert set(openapi["components"]["schemas"]["Case"]["properties"]) == set(schema["properties"])
    item = openapi["components"]["schemas"]["CaseList"]["properties"]["results"]["items"]
    assert item == {"$ref": "#/components/schemas/Case"}
