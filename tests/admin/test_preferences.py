"""Each editor's own notification settings, from the admin's user tools."""

import pytest
from django.urls import reverse

from cases.models import EditorPreference
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PAGE = "/admin/cases/editorpreference/mine/"


def test_the_page_is_where_the_emails_and_the_user_tools_say():
    assert reverse("admin:cases_preferences") == PAGE


def test_every_admin_page_links_to_it_from_the_user_tools(client):
    client.force_login(UserFactory(username="eddie", role="editor"))
    page = client.get("/admin/").content.decode()
    user_tools = page[page.index('id="user-tools"') :]
    assert f'<a href="{PAGE}">Notification settings</a>' in user_tools[: user_tools.index("</div>")]


def test_an_editor_sees_the_defaults_and_turns_emails_off(client):
    editor = UserFactory(username="eddie", role="editor", email="eddie@example.org")
    client.force_login(editor)
    page = client.get(PAGE)
    assert page.status_code == 200
    assert page.context["form"].initial == {"email_notifications": True, "language": "en"}
    assert "Emails go to eddie@example.org." in page.content.decode()
    response = client.post(PAGE, {"language": "ko"})  # an unchecked box is not sent
    assert response.status_code == 302 and response.url == PAGE
    preference = EditorPreference.objects.get(user=editor)
    assert (preference.email_notifications, preference.language) == (False, "ko")
    client.post(PAGE, {"email_notifications": "on", "language": "en"})
    preference.refresh_from_db()
    assert (preference.email_notifications, preference.language) == (True, "en")
    assert EditorPreference.objects.count() == 1


def test_a_bad_language_is_refused_in_the_form_and_nothing_is_saved(client):
    editor = UserFactory(username="eddie", role="editor")
    client.force_login(editor)
    response = client.post(PAGE, {"email_notifications": "on", "language": "fr"})
    assert response.status_code == 200
    assert "language" in response.context["form"].errors
    assert not EditorPreference.objects.exists()


def test_an_account_without_an_address_is_told_that_no_email_reaches_it(client):
    client.force_login(UserFactory(username="eddie", role="editor", email=""))
    assert "no email can reach you" in client.get(PAGE).content.decode()


def test_only_staff_reach_it(client):
    assert client.get(PAGE).status_code == 302  # to the login page
    client.force_login(UserFactory(username="reader", is_staff=False))
    assert client.get(PAGE).status_code == 302


def test_nobody_adds_someone_elses_preferences(client):
    client.force_login(UserFactory(username="root", is_superuser=True))
    assert client.get("/admin/cases/editorpreference/add/").status_code == 403
    assert client.get("/admin/cases/editorpreference/").status_code == 200
