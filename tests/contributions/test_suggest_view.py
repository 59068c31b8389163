"""The public form that suggests a case: both languages, sent and thanked, every spam rule
refusing and storing nothing, size limits with clear words, CSRF, the rate limit."""

import re

import pytest
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import translation
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cases.models import Suggestion
from tests.contributions.forms import issued, suggestion_data

pytestmark = pytest.mark.django_db


def suggest_url(language="en"):
    with translation.override(language):
        return reverse("cases:suggest")


def send(client, language="en", address="127.0.0.1", **changes):
    return client.post(suggest_url(language), suggestion_data(**changes), REMOTE_ADDR=address)


@pytest.mark.parametrize(
    ("language", "heading", "button"),
    [("en", "Suggest a case", "Send the suggestion"), ("ko", "사례 제안하기", "제안 보내기")],
)
def test_the_form_is_shown_in_both_languages(client, language, heading, button):
    response = client.get(suggest_url(language))
    assert response.status_code == 200
    html = response.content.decode()
    assert f"<h1>{heading}</h1>" in html
    assert button in html
    assert f'lang="{language}"' in html
    assert 'name="csrfmiddlewaretoken"' in html


def test_the_form_is_never_cached(client):
    response = client.get(suggest_url())
    assert "no-store" in response["Cache-Control"]
    # Two readers never share a page: each gets its own time of issue.
    second = client.get(suggest_url())
    issue = re.compile(r'name="issued" value="([^"]+)"')
    assert issue.search(response.content.decode()) and issue.search(second.content.decode())


def test_the_honeypot_is_hidden_from_people_and_screen_readers(client):
    html = client.get(suggest_url()).content.decode()
    trap = re.search(r'<div class="form-trap" aria-hidden="true">(.*?)</div>', html, re.S)
    assert trap, "the honeypot's wrapper is hidden from screen readers"
    assert 'name="website"' in trap.group(1)
    assert "Leave this empty" in trap.group(1)
    assert 'tabindex="-1"' in trap.group(1)
    assert "style=" not in html  # hidden by the stylesheet, as the CSP wants
    from tests.conftest import REPO

    css = (REPO / "static" / "css" / "site.css").read_text()
    assert re.search(r"\.form-trap \{[^}]*left: -10000px", css)


def test_the_form_is_linked_from_every_page_and_the_list(client):
    from tests.factories import CaseFactory

    CaseFactory()
    for url in (reverse("cases:list"), reverse("cases:graph")):
        assert f'href="{suggest_url()}"' in client.get(url).content.decode()
    assert 'href="/ko/suggest/"' in client.get("/ko/cases/").content.decode()


def test_a_sent_suggestion_is_stored_and_the_reader_thanked(client):
    response = send(client, "ko")
    with translation.override("ko"):
        thanks = reverse("cases:suggest-thanks")
    assert response.status_code == 302 and response["Location"] == thanks
    suggestion = Suggestion.objects.get()
    assert suggestion.source_url.endswith("2025-03-01-queue-backlog")
    assert suggestion.source_key == "status.example-cloud.com/incidents/2025-03-01-queue-backlog"
    assert suggestion.organisation == "Example Cloud"
    assert str(suggestion.date) == "2025-03-01"
    assert suggestion.email == "reader@example.net"
    assert suggestion.language == "ko"
    assert suggestion.status == Suggestion.Status.NEW
    page = client.get(thanks)
    assert page.status_code == 200
    assert "감사합니다" in page.content.decode()


def test_only_the_address_is_required(client):
    response = send(client, organisation="", date="", note="", email="")
    assert response.status_code == 302
    suggestion = Suggestion.objects.get()
    assert (suggestion.organisation, suggestion.date, suggestion.email) == ("", None, "")


def test_the_address_is_never_stored(client):
    send(client)
    stored = Suggestion.objects.values().get()
    assert "127.0.0.1" not in str(stored)


# --- a person's mistakes: clear words, nothing stored -------------------------------------


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"source_url": ""}, "source_url", "This field is required."),
        ({"source_url": "ftp://example.org/x"}, "source_url", "only http and https"),
        ({"source_url": "javascript:alert(1)"}, "source_url", "only http and https"),
        ({"source_url": "https://example.org/" + "a" * 1000}, "source_url", "at most 1000"),
        ({"organisation": "O" * 201}, "organisation", "at most 200"),
        ({"note": "n" * 5001}, "note", "at most 5000 characters (it has 5001)"),
        ({"email": "not an email"}, "email", "valid email address"),
        ({"date": "2024-02-30"}, "date", "Enter a real date in the form YYYY-MM-DD"),
        ({"date": "yesterday"}, "date", "Enter a real date in the form YYYY-MM-DD"),
        ({"date": "1850-01-01"}, "date", "A date from 1900 to today"),
        ({"date": "2999-01-01"}, "date", "A date from 1900 to today"),
    ],
)
def test_a_mistake_is_named_at_its_field_and_nothing_is_stored(client, changes, field, words):
    response = send(client, **changes)
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert words in " ".join(errors[field]), errors
    assert 'aria-invalid="true"' in response.content.decode()
    assert not Suggestion.objects.exists()


def test_the_size_limits_are_written_in_the_help_text(client):
    html = client.get(suggest_url()).content.decode()
    for words in ("At most 1,000 characters", "at most 200 characters", "At most 5,000 characters"):
        assert words in html


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    field=st.sampled_from(["source_url", "organisation", "date", "note", "email"]),
    value=st.one_of(
        st.text(max_size=1200).map(lambda text: text.replace("\x00", "")),
        st.text(max_size=300).map(lambda text: "https://example.org/" + text.replace("\x00", "")),
    ),
)
def test_whatever_is_typed_the_answer_is_the_form_or_thanks_never_an_error(client, field, value):
    from django.core.cache import cache

    cache.clear()  # the rate limit would otherwise end the examples
    response = send(client, **{field: value})
    assert response.status_code in (200, 302)
    if response.status_code == 200:
        assert response.context["form"].errors[field]


def test_what_the_reader_wrote_is_kept_after_a_mistake(client):
    response = send(client, email="nope")
    html = response.content.decode()
    assert "Their queue backed up for three hours" in html
    assert 'value="Example Cloud"' in html


# --- robots: refused, shown again, nothing stored -----------------------------------------


def test_a_filled_honeypot_stores_nothing_and_names_no_field(client):
    response = send(client, website="https://cheap-pills.example")
    assert response.status_code == 200
    assert not Suggestion.objects.exists()
    form = response.context["form"]
    assert list(form.errors) == ["__all__"]
    html = response.content.decode()
    assert "could not be checked. Please send it again." in html
    assert "cheap-pills" not in html  # the honeypot comes back empty
    # A fresh time of issue: a person can send it again as it is, some seconds later.
    assert form.data["issued"] != suggestion_data()["issued"]


def test_a_form_sent_too_fast_stores_nothing(client):
    response = send(client, issued=issued(seconds_ago=0))
    assert response.status_code == 200
    assert "quicker than anyone can read the form" in response.content.decode()
    assert not Suggestion.objects.exists()


@pytest.mark.parametrize("token", ["", "forged", issued(seconds_ago=3 * 24 * 3600)])
def test_a_forged_or_stale_form_stores_nothing(client, token):
    response = send(client, issued=token)
    assert response.status_code == 200
    assert "has expired or could not be checked" in response.content.decode()
    assert not Suggestion.objects.exists()


def test_csrf_is_enforced():
    client = Client(enforce_csrf_checks=True)
    response = client.post(suggest_url(), suggestion_data())
    assert response.status_code == 403
    assert not Suggestion.objects.exists()
    page = client.get(suggest_url())
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.content.decode())[1]
    sent = client.post(suggest_url(), suggestion_data(csrfmiddlewaretoken=token))
    assert sent.status_code == 302
    assert Suggestion.objects.count() == 1


def test_other_methods_are_refused(client):
    assert client.put(suggest_url()).status_code == 405
    assert client.post(reverse("cases:suggest-thanks")).status_code == 405


# --- the rate limit -----------------------------------------------------------------------


@override_settings(SUGGESTIONS_PER_HOUR=2)
def test_past_the_hourly_limit_an_address_gets_429_with_retry_after(client):
    assert send(client).status_code == 302
    assert send(client, email="bad").status_code == 200  # a mistake counts too
    response = send(client, "ko")
    assert response.status_code == 429
    assert 3500 <= int(response["Retry-After"]) <= 3600
    html = response.content.decode()
    assert "60분" in html and "제안" in html
    assert Suggestion.objects.count() == 1
    # Another address is not held back.
    other = send(client, address="198.51.100.7")
    assert other.status_code == 302


@override_settings(SUGGESTIONS_PER_HOUR=1)
def test_reading_the_form_does_not_count(client):
    for _ in range(3):
        assert client.get(suggest_url()).status_code == 200
    assert send(client).status_code == 302
