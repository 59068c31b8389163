"""What keeps machines out of readers' forms: the honeypot, the signed time of issue and
the per-address rate limit (cases.contributions.guard, incidentlib.ratelimit)."""

import time
from unittest import mock

import pytest
from django import forms
from django.http import HttpResponse
from django.test import RequestFactory, override_settings

from cases.contributions import guard
from incidentlib.ratelimit import Limit, too_many
from tests.contributions.forms import issued


class NoteForm(guard.GuardedForm):
    note = forms.CharField()


def sent(**data):
    form = NoteForm({"note": "hello", "website": "", "issued": issued(), **data})
    return form.is_valid(), form


def test_a_person_s_form_passes():
    valid, form = sent()
    assert valid, form.errors
    assert form.refused_as is None


def test_a_filled_honeypot_is_refused_without_naming_the_field():
    valid, form = sent(website="https://spam.example")
    assert not valid
    assert form.refused_as == "honeypot"
    assert "website" not in form.errors  # nothing tells a robot which field gave it away
    assert form.non_field_errors() == [
        "This form has expired or could not be checked. Please send it again."
    ]


def test_a_form_sent_sooner_than_the_minimum_is_refused_as_too_fast():
    valid, form = sent(issued=issued(seconds_ago=guard.MIN_SECONDS - 2))
    assert not valid
    assert form.refused_as == "too fast"
    assert "quicker than anyone can read" in form.non_field_errors()[0]


def test_the_minimum_is_read_when_checked(monkeypatch):
    monkeypatch.setattr(guard, "MIN_SECONDS", 0)
    assert sent(issued=guard.issued_now())[0]


@pytest.mark.parametrize(
    "token",
    [
        "",
        "not a token",
        issued()[:-2] + "xx",  # a signature that does not match
        "MTIzNDU2Nzg5MA:1tAbCd:forged-signature-forged-signature-xx",
    ],
)
def test_a_forged_or_missing_time_of_issue_is_refused(token):
    valid, form = sent(issued=token)
    assert not valid
    assert form.refused_as == "expired or forged"
    assert "could not be checked" in form.non_field_errors()[0]


def test_a_time_of_issue_signed_with_another_salt_is_refused():
    from django.core import signing

    token = signing.dumps(int(time.time()) - 60, salt="somewhere else")
    valid, form = sent(issued=token)
    assert not valid and form.refused_as == "expired or forged"


def test_a_form_older_than_its_max_age_is_refused_as_expired():
    valid, form = sent(issued=issued(seconds_ago=guard.MAX_AGE + 60))
    assert not valid
    assert form.refused_as == "expired or forged"
    assert "has expired" in form.non_field_errors()[0]


def test_a_time_of_issue_that_is_no_number_is_refused():
    with mock.patch("time.time", return_value=time.time() - 60):
        from django.core import signing

        token = signing.dumps("yesterday", salt=guard.SALT)
    valid, form = sent(issued=token)
    assert not valid and form.refused_as == "too fast"


def test_a_refused_form_is_shown_again_with_a_new_issue_and_the_honeypot_empty():
    _valid, form = sent(website="filled by a browser", issued=issued(seconds_ago=1))
    old = form.data["issued"]
    form.fresh_issue()
    assert form.data["issued"] != old
    assert form.data["website"] == ""
    assert form["note"].value() == "hello"  # what the person wrote stays


def test_an_unbound_form_carries_a_fresh_time_of_issue():
    form = NoteForm()
    issued_at = guard.signing.loads(form.initial["issued"], salt=guard.SALT)
    assert abs(issued_at - time.time()) < 5


# --- the rate limit ---------------------------------------------------------------------


def request_from(address):
    return RequestFactory().post("/", REMOTE_ADDR=address)


def test_the_limit_allows_its_requests_then_says_how_long_to_wait():
    limit = Limit("test-scope", 3, 600)
    assert [limit.wait(request_from("192.0.2.1")) for _ in range(3)] == [0, 0, 0]
    wait = limit.wait(request_from("192.0.2.1"))
    assert 590 <= wait <= 600


def test_another_address_is_counted_apart():
    limit = Limit("test-scope", 1, 600)
    assert limit.wait(request_from("192.0.2.1")) == 0
    assert limit.wait(request_from("192.0.2.1")) > 0
    assert limit.wait(request_from("198.51.100.7")) == 0


def test_another_scope_is_counted_apart():
    assert Limit("one", 1, 600).wait(request_from("192.0.2.1")) == 0
    assert Limit("two", 1, 600).wait(request_from("192.0.2.1")) == 0
    assert Limit("one", 1, 600).wait(request_from("192.0.2.1")) > 0


def test_a_new_window_starts_when_the_old_one_is_over():
    limit = Limit("test-scope", 1, 60)
    now = time.time()
    assert limit.wait(request_from("192.0.2.1")) == 0
    assert limit.wait(request_from("192.0.2.1")) > 0
    from django.core.cache import cache

    cache.clear()  # what the cache does once the window's keys expire
    with mock.patch("time.time", return_value=now + 61):
        assert limit.wait(request_from("192.0.2.1")) == 0


@override_settings(TRUSTED_PROXY_COUNT=1)
def test_behind_a_proxy_each_client_is_counted_by_its_own_address():
    limit = Limit("test-scope", 1, 600)
    factory = RequestFactory()

    def via_proxy(client):
        return factory.post("/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR=client)

    assert limit.wait(via_proxy("192.0.2.1")) == 0
    assert limit.wait(via_proxy("192.0.2.1")) > 0
    assert limit.wait(via_proxy("198.51.100.7")) == 0


def test_too_many_is_a_429_saying_when_to_retry():
    response = too_many(HttpResponse("slow down"), 42)
    assert response.status_code == 429
    assert response["Retry-After"] == "42"
