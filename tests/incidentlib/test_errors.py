"""The site's own error pages, in English and Korean, never a traceback or a setting."""

import pytest
from django.conf import settings
from django.template.loader import render_to_string
from django.test import Client
from django.utils import translation

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

HEADINGS = {
    400: {"en": "Bad request", "ko": "잘못된 요청"},
    403: {"en": "Forbidden", "ko": "접근할 수 없음"},
    404: {"en": "Not found", "ko": "찾을 수 없음"},
    500: {"en": "Something went wrong", "ko": "문제가 생겼습니다"},
}


def assert_own_page(response, status, language):
    text = response.content.decode()
    assert response.status_code == status
    assert response["Content-Type"].startswith("text/html")
    assert f'<html lang="{language}">' in text
    assert f"<h1>{HEADINGS[status][language]}</h1>" in text
    assert "Traceback" not in text and settings.SECRET_KEY not in text
    # The security headers reach error pages too.
    assert "default-src 'self'" in response["Content-Security-Policy"]
    assert response["X-Frame-Options"] == "DENY"


@pytest.mark.parametrize("language", ["en", "ko"])
def test_not_found_speaks_the_language_of_the_address(client, language):
    response = client.get(f"/{language}/cases/IL-9999/", headers={"accept-language": "en"})
    assert_own_page(response, 404, "ko" if language == "ko" else "en")


def test_not_found_outside_the_language_prefix_follows_accept_language(client):
    response = client.get("/no-such-page", headers={"accept-language": "ko-KR,ko;q=0.9"})
    assert_own_page(response, 404, "ko")


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_forged_host_header_gets_the_400_page(client, language):
    response = client.get(f"/{language}/cases/", headers={"host": "attacker.example"})
    assert_own_page(response, 400, language)
    assert "attacker.example" not in response.content.decode()


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_staff_member_without_the_right_gets_the_403_page(client, language):
    client.force_login(UserFactory(role=None))
    response = client.get("/admin/cases/case/add/", headers={"accept-language": language})
    assert_own_page(response, 403, language)


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_form_without_its_csrf_token_gets_our_403_page(language):
    client = Client(enforce_csrf_checks=True)
    response = client.post(
        "/admin/login/", {"username": "x", "password": "y"}, headers={"accept-language": language}
    )
    text = response.content.decode()
    assert response.status_code == 403
    assert f'<html lang="{language}">' in text
    expired = {"en": "This form has expired", "ko": "양식이 만료되었습니다"}[language]
    assert f"<h1>{expired}</h1>" in text
    assert "CSRF verification failed" not in text


@pytest.fixture
def broken_list(monkeypatch):
    """The list view fails with an ordinary bug."""

    def fail(*args, **kwargs):
        raise RuntimeError("a bug in the listing")

    monkeypatch.setattr("cases.public.views.build_listing", fail)
    return Client(raise_request_exception=False)


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_bug_gets_the_500_page_in_the_language_of_the_address(broken_list, language):
    response = broken_list.get(f"/{language}/cases/", headers={"accept-language": "en"})
    assert_own_page(response, 500, language)
    assert "a bug in the listing" not in response.content.decode()


def test_the_500_page_renders_without_a_request():
    # As Django itself would render it, were our handler not used.
    with translation.override("en"):
        assert "<h1>Something went wrong</h1>" in render_to_string("500.html")


def test_a_500_page_that_cannot_render_still_answers(broken_list, monkeypatch):
    def unrenderable(*args, **kwargs):
        raise ValueError("Missing staticfiles manifest entry for 'css/site.css'")

    monkeypatch.setattr("incidentlib.errors.render_to_string", unrenderable)
    response = broken_list.get("/en/cases/")
    assert response.status_code == 500
    assert "<h1>Server error</h1>" in response.content.decode()
    assert "manifest" not in response.content.decode()
