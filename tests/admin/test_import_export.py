"""Importing and exporting cases in the admin: the dry run's report, the confirmation of
exactly the file it read, refusals that write nothing, and the export's round trip."""

import contextlib
import datetime
import io
import json
import re
import threading

import pytest
from django.contrib.messages import get_messages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from cases.exchange.locking import exclusive_import
from cases.exchange.reading import ProblemList
from cases.models import Case, CaseTransition, CaseVersion, PendingImport
from tests.factories import CaseFactory, UserFactory

pytestmark = pytest.mark.django_db

IMPORT_URL = reverse("admin:cases_case_import")
CHANGELIST_URL = reverse("admin:cases_case_changelist")
EXPORT_ALL_URL = reverse("admin:cases_case_export_all")


def confirm_url(token):
    return reverse("admin:cases_case_import_confirm", args=[token])


@pytest.fixture
def reviewer(client):
    user = UserFactory(username="rita", role="reviewer")
    client.force_login(user)
    return user


def another_case(seed_case, case_id, **changes):
    return {**seed_case, "id": case_id, "related": [], "recurrence_of": None, **changes}


def json_lines(*cases):
    return "".join(json.dumps(case, ensure_ascii=False) + "\n" for case in cases).encode()


def upload(client, content, name="cases.jsonl", **options):
    data = {"status": "published", **options}
    if content is not None:
        data["file"] = SimpleUploadedFile(name, content)
    return client.post(IMPORT_URL, data)


def library_state():
    """Every case row as it is, and how many versions and transitions there are: what a
    dry run or a refused import must leave exactly as it found it."""
    cases = sorted(
        Case.objects.values_list(
            "public_id", "title_en", "status", "import_fingerprint", "modified"
        )
    )
    return cases, CaseVersion.objects.count(), CaseTransition.objects.count()


def message_texts(response):
    return [str(message) for message in get_messages(response.wsgi_request)]


def text_of(response):
    return re.sub(r"\s+", " ", response.content.decode())


def has_confirm_button(response):
    return 'name="confirm"' in response.content.decode()


def import_from_file(tmp_path, *cases):
    path = tmp_path / "first.jsonl"
    path.write_bytes(json_lines(*cases))
    call_command("import_cases", str(path), stdout=io.StringIO(), stderr=io.StringIO())


@pytest.fixture
def changed_and_new(seed_case, tmp_path):
    """IL-9001 is in the library; the file changes it and adds IL-9002 and IL-9003."""
    import_from_file(tmp_path, another_case(seed_case, "IL-9001"))
    changed = another_case(seed_case, "IL-9001", title={"en": "A new title", "ko": "새 제목"})
    return json_lines(
        another_case(seed_case, "IL-9002"), changed, another_case(seed_case, "IL-9003")
    )


# --- who may ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("role", "superuser", "allowed"),
    [("editor", False, False), ("reviewer", False, True), (None, True, True)],
)
def test_reviewers_and_superusers_import_and_export_editors_do_not(
    client, role, superuser, allowed
):
    user = UserFactory(username="someone", role=role, is_superuser=superuser)
    client.force_login(user)
    case = CaseFactory()
    listing = client.get(CHANGELIST_URL)
    assert listing.status_code == 200
    assert (IMPORT_URL in listing.content.decode()) is allowed
    assert (EXPORT_ALL_URL in listing.content.decode()) is allowed
    assert ("export_selected" in listing.content.decode()) is allowed
    expected = 200 if allowed else 403
    assert client.get(IMPORT_URL).status_code == expected
    assert client.get(EXPORT_ALL_URL).status_code == expected
    assert client.get(confirm_url("x" * 43)).status_code == (302 if allowed else 403)
    refused_upload = upload(client, b"{}")
    assert refused_upload.status_code == (200 if allowed else 403)
    action = client.post(
        CHANGELIST_URL, {"action": "export_selected", "_selected_action": [case.pk]}
    )
    assert ("Content-Disposition" in action.headers) is allowed


def test_anonymous_visitors_are_sent_to_the_login(client):
    response = client.get(IMPORT_URL)
    assert response.status_code == 302 and "/admin/login/" in response.url
    assert client.get(EXPORT_ALL_URL).status_code == 302


def test_the_upload_is_checked_for_its_csrf_token(reviewer, seed_case):
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(reviewer)
    content = json_lines(another_case(seed_case, "IL-9002"))
    response = strict.post(IMPORT_URL, {"file": SimpleUploadedFile("a.jsonl", content)})
    assert response.status_code == 403
    assert not PendingImport.objects.exists()


# --- the upload page ----------------------------------------------------------------


def test_the_upload_page_offers_the_commands_options_and_says_its_limits(client, reviewer):
    page = text_of(client.get(IMPORT_URL))
    assert 'type="file"' in page and 'accept=".json,.jsonl,application/json"' in page
    assert 'name="force"' in page and 'name="status"' in page
    for status in Case.Status.values:
        assert f'value="{status}"' in page
    assert "20 MiB" in page and "manage.py import_cases" in page
    assert "2 MiB" in page and "50,000" in page


# --- the dry run ----------------------------------------------------------------------


def test_the_dry_run_reports_each_group_and_writes_nothing(client, reviewer, changed_and_new):
    before = library_state()
    response = upload(client, changed_and_new)
    assert response.status_code == 200
    groups = {group["key"]: group for group in response.context["groups"]}
    assert groups["created"]["count"] == 2 and groups["created"]["ids"] == ["IL-9002", "IL-9003"]
    assert groups["updated"]["count"] == 1 and groups["updated"]["ids"] == ["IL-9001"]
    assert groups["unchanged"]["count"] == groups["skipped"]["count"] == 0
    assert has_confirm_button(response)
    assert library_state() == before
    pending = PendingImport.objects.get()
    assert pending.user == reviewer and bytes(pending.content) == changed_and_new


def test_a_long_group_lists_fifty_ids_and_counts_the_rest(client, reviewer, seed_case):
    cases = [another_case(seed_case, f"IL-{8000 + n}") for n in range(53)]
    response = upload(client, json_lines(*cases))
    created = response.context["groups"][0]
    assert created["count"] == 53 and len(created["ids"]) == 50 and created["more"] == 3
    assert "and 3 more" in text_of(response)


def test_a_file_that_changes_nothing_has_nothing_to_confirm(client, reviewer, seed_case, tmp_path):
    import_from_file(tmp_path, another_case(seed_case, "IL-9001"))
    response = upload(client, json_lines(another_case(seed_case, "IL-9001")))
    assert response.context["groups"][2]["count"] == 1  # unchanged
    assert not has_confirm_button(response)
    assert "Nothing would change" in text_of(response)
    assert not PendingImport.objects.exists()


def test_cases_editors_changed_are_skipped_unless_overwritten(
    client, reviewer, seed_case, tmp_path
):
    import_from_file(tmp_path, another_case(seed_case, "IL-9001"))
    Case.objects.filter(public_id="IL-9001").update(title_en="An editor's title")
    changed = json_lines(another_case(seed_case, "IL-9001", title={"en": "Imported", "ko": ""}))
    skipped = upload(client, changed)
    assert skipped.context["groups"][3]["ids"] == ["IL-9001"]
    assert "“Overwrite” ticked" in text_of(skipped)
    assert not has_confirm_button(skipped)
    forced = upload(client, changed, force="on")
    assert forced.context["groups"][1]["ids"] == ["IL-9001"] and has_confirm_button(forced)
    client.post(confirm_url(PendingImport.objects.get().token))
    assert Case.objects.get(public_id="IL-9001").title_en == "Imported"


def test_the_dry_run_and_the_import_say_which_organisations_they_matched(
    client, reviewer, seed_case
):
    from tests.factories import OrganisationFactory

    OrganisationFactory(slug="gitlab", name="GitLab")
    content = json_lines(
        another_case(seed_case, "IL-9001", org="Gitlab", org_slug="gitlab"),
        another_case(seed_case, "IL-9002", org="Git Lab", org_slug="git-lab"),
    )
    response = upload(client, content)
    assert "Gitlab → GitLab (gitlab)" in text_of(response)
    assert "Git Lab → GitLab (gitlab)" in text_of(response)

    done = client.post(confirm_url(PendingImport.objects.get().token), follow=True)
    said = [str(message) for message in get_messages(done.wsgi_request)]
    assert any("Git Lab → GitLab (gitlab)" in message for message in said)
    assert set(Case.objects.values_list("org__slug", flat=True)) == {"gitlab"}


# --- problems: each by case and field, nothing written, no confirmation ------------------


def test_each_problem_is_shown_by_case_and_field_without_a_confirm_button(
    client, reviewer, seed_case
):
    before = library_state()
    content = json_lines(
        another_case(seed_case, "IL-9002", date="yesterday"),
        another_case(seed_case, "IL-9003", severity="apocalyptic"),
        another_case(seed_case, "IL-9004", related=["IL-7777"]),
    )
    response = upload(client, content)
    assert response.status_code == 200
    rows = response.context["problems"]
    assert ("line 1", "IL-9002", "date") in [row[:3] for row in rows]
    assert ("line 2", "IL-9003", "severity") in [row[:3] for row in rows]
    assert ("line 3", "IL-9004", "related[0]") in [row[:3] for row in rows]
    assert any("IL-7777 is neither in the database" in row[3] for row in rows)
    page = text_of(response)
    assert "Nothing can be imported" in page and "Upload a corrected file" in page
    assert not has_confirm_button(response)
    assert library_state() == before and not PendingImport.objects.exists()


def test_more_than_a_thousand_problems_are_counted_not_listed(client, reviewer):
    content = b"[1]\n" * 1200  # a list on each line: one problem a line
    response = upload(client, content)
    assert len(response.context["problems"]) == ProblemList.LISTED
    assert response.context["unlisted"] == 200 and response.context["problem_count"] == 1200
    assert "and 200 more problems, not listed" in text_of(response)


BAD_FILES = {
    "empty": ("cases.jsonl", b"", "The file is empty"),
    "not JSON": ("cases.json", b"this is not JSON", "invalid JSON"),
    "binary": ("picture.json", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "not valid UTF-8"),
    "invalid UTF-8 line": ("cases.jsonl", b'{"id": "IL-9001", "org": "\xff"}\n', "not valid UTF-8"),
    "not a case": ("cases.json", b"42", "must hold a case object or an array"),
    "a list of numbers": ("cases.jsonl", b"[1, 2]\n", "a case must be a JSON object"),
    "no .json ending": ("cases.txt", b"nothing", "invalid JSON"),
}


@pytest.mark.parametrize("name, content, said", BAD_FILES.values(), ids=BAD_FILES)
def test_a_bad_file_gets_a_clear_message_and_writes_nothing(client, reviewer, name, content, said):
    CaseFactory()
    before = library_state()
    response = upload(client, content, name=name)
    assert response.status_code == 200
    assert said in text_of(response)
    assert not has_confirm_button(response) and "Traceback" not in text_of(response)
    assert library_state() == before and not PendingImport.objects.exists()


def test_a_missing_file_is_asked_for(client, reviewer):
    response = upload(client, None)
    assert response.status_code == 200
    assert "Choose a .json or .jsonl file to import." in text_of(response)


@pytest.mark.parametrize("name", ["huge.jsonl", "huge.json"])
def test_a_case_over_the_per_case_limit_is_named_not_a_400(client, reviewer, seed_case, name):
    # 3 MB: over Django's DATA_UPLOAD_MAX_MEMORY_SIZE and FILE_UPLOAD_MAX_MEMORY_SIZE (2.5 MB)
    # and over the format's 2 MiB a case; under the admin's upload limit.
    huge = another_case(seed_case, "IL-9001", lessons={"en": "x" * 3_000_000, "ko": ""})
    response = upload(client, json_lines(huge), name=name)
    assert response.status_code == 200
    assert "a case may be at most 2 MiB of JSON" in text_of(response)
    assert not has_confirm_button(response)


def test_a_file_over_the_upload_limit_is_refused_with_the_limit_said(
    client, reviewer, settings, seed_case
):
    settings.CASE_IMPORT_MAX_UPLOAD_SIZE = 64 * 1024
    content = json_lines(*[another_case(seed_case, f"IL-{8000 + n}") for n in range(20)])
    assert len(content) > 64 * 1024
    response = upload(client, content)
    assert response.status_code == 200
    page = text_of(response)
    assert "larger than 0.0625 MiB" in page and "manage.py import_cases" in page
    assert not Case.objects.exists() and not PendingImport.objects.exists()


def test_a_body_too_large_for_django_is_a_message_not_a_400(client, reviewer):
    # Not a file upload: a form body past DATA_UPLOAD_MAX_MEMORY_SIZE.
    response = client.post(IMPORT_URL, {"status": "x" * 3_000_000})
    assert response.status_code == 200
    assert "The upload could not be read" in text_of(response)


def test_an_unknown_status_is_refused_by_the_form(client, reviewer, seed_case):
    response = upload(client, json_lines(another_case(seed_case, "IL-9001")), status="gone")
    assert response.status_code == 200 and response.context["form"].errors["status"]
    assert not Case.objects.exists()


# --- the confirmation --------------------------------------------------------------------


def test_confirming_imports_the_file_for_the_reviewer_and_links_to_the_cases(
    client, reviewer, changed_and_new
):
    upload(client, changed_and_new)
    token = PendingImport.objects.get().token
    transitions = CaseTransition.objects.count()
    response = client.post(confirm_url(token))
    assert response.status_code == 302 and response.url == CHANGELIST_URL
    assert Case.objects.get(public_id="IL-9001").title_en == "A new title"
    assert set(Case.objects.values_list("public_id", flat=True)) == {
        "IL-9001",
        "IL-9002",
        "IL-9003",
    }
    recorded = CaseTransition.objects.order_by("pk")[transitions:]
    assert {(t.public_id, t.action, t.user) for t in recorded} == {
        ("IL-9002", "incidentlib.case.imported", reviewer),
        ("IL-9003", "incidentlib.case.imported", reviewer),
        ("IL-9001", "incidentlib.case.import_updated", reviewer),
    }
    assert all("rita in the admin from cases.jsonl" in t.note for t in recorded)
    # Three copies of one case, one source: a warning says they may be duplicates.
    said, duplicates = message_texts(response)
    assert "2 created, 1 updated, 0 unchanged, 0 skipped" in said
    assert "Possible duplicates" in duplicates and "IL-9003 looks like IL-9002" in duplicates
    link = re.search(r'href="([^"]+)"', said).group(1)
    assert "public_id__in=IL-9002%2CIL-9003%2CIL-9001" in link
    listing = client.get(link.replace("&amp;", "&"))
    assert listing.status_code == 200
    assert {c.public_id for c in listing.context["cl"].result_list} == {
        "IL-9001",
        "IL-9002",
        "IL-9003",
    }
    assert not PendingImport.objects.exists()


def test_new_cases_get_the_status_chosen(client, reviewer, seed_case):
    upload(client, json_lines(another_case(seed_case, "IL-9002")), status="draft")
    client.post(confirm_url(PendingImport.objects.get().token))
    case = Case.objects.get(public_id="IL-9002")
    assert case.status == Case.Status.DRAFT and case.published_at is None


def test_a_replayed_confirmation_does_nothing_twice(client, reviewer, changed_and_new):
    upload(client, changed_and_new)
    token = PendingImport.objects.get().token
    client.post(confirm_url(token), follow=True)  # (and reads its message)
    after = library_state()
    again = client.post(confirm_url(token))
    assert again.status_code == 302 and again.url == IMPORT_URL
    assert "it was imported already" in message_texts(again)[0]
    assert library_state() == after


def test_of_two_confirmations_at_once_only_one_imports(
    client, reviewer, changed_and_new, monkeypatch
):
    # Both requests read the session and the kept file; then the other one claims it first.
    upload(client, changed_and_new)
    pending = PendingImport.objects.get()
    checked = PendingImport.intact

    def the_other_confirmation_wins(kept, expected):
        assert PendingImport.objects.get(pk=kept.pk).claim()
        return checked(kept, expected)

    monkeypatch.setattr(PendingImport, "intact", the_other_confirmation_wins)
    before = library_state()
    response = client.post(confirm_url(pending.token))
    assert response.url == IMPORT_URL
    assert "imported already: nothing was done twice" in message_texts(response)[0]
    assert library_state() == before


def test_another_user_cannot_use_the_token(client, reviewer, changed_and_new):
    upload(client, changed_and_new)
    token = PendingImport.objects.get().token
    intruder = Client()
    intruder.force_login(UserFactory(username="ravi", role="reviewer"))
    before = library_state()
    refused = intruder.post(confirm_url(token))
    assert refused.status_code == 302 and refused.url == IMPORT_URL
    assert intruder.get(confirm_url(token)).url == IMPORT_URL
    assert library_state() == before
    # Still the uploader's to confirm.
    assert client.post(confirm_url(token)).url == CHANGELIST_URL
    assert Case.objects.filter(public_id="IL-9002").exists()


def test_the_same_user_in_another_session_cannot_use_the_token(client, reviewer, changed_and_new):
    upload(client, changed_and_new)
    token = PendingImport.objects.get().token
    elsewhere = Client()
    elsewhere.force_login(reviewer)
    before = library_state()
    assert elsewhere.post(confirm_url(token)).url == IMPORT_URL
    assert library_state() == before


def test_a_wrong_token_is_refused(client, reviewer):
    response = client.post(confirm_url("not-a-token"), follow=True)
    assert response.status_code == 200
    assert "This import is not waiting for you" in text_of(response)


def test_a_confirmation_after_the_expiry_is_refused(client, reviewer, changed_and_new):
    upload(client, changed_and_new)
    pending = PendingImport.objects.get()
    PendingImport.objects.filter(pk=pending.pk).update(
        uploaded_at=timezone.now() - datetime.timedelta(hours=2),
        expires_at=timezone.now() - datetime.timedelta(seconds=1),
    )
    before = library_state()
    response = client.post(confirm_url(pending.token))
    assert response.url == IMPORT_URL and "This upload expired" in message_texts(response)[0]
    assert library_state() == before and not PendingImport.objects.exists()


def test_expired_uploads_are_deleted_by_the_next_upload(client, reviewer, seed_case):
    upload(client, json_lines(another_case(seed_case, "IL-9002")))
    PendingImport.objects.update(
        uploaded_at=timezone.now() - datetime.timedelta(hours=2),
        expires_at=timezone.now() - datetime.timedelta(hours=1),
    )
    upload(client, json_lines(another_case(seed_case, "IL-9003")))
    assert PendingImport.objects.get().file_name == "cases.jsonl"
    assert PendingImport.objects.get().expires_at > timezone.now()


def test_a_user_has_at_most_three_uploads_waiting(client, reviewer, seed_case):
    tokens = []
    for n in range(4):
        upload(client, json_lines(another_case(seed_case, f"IL-{9100 + n}")))
        tokens.append(PendingImport.objects.latest("pk").token)
    assert sorted(PendingImport.objects.values_list("token", flat=True)) == sorted(tokens[1:])
    assert client.post(confirm_url(tokens[0])).url == IMPORT_URL
    assert client.post(confirm_url(tokens[3])).url == CHANGELIST_URL


def test_a_kept_file_whose_content_changed_is_refused(client, reviewer, changed_and_new, seed_case):
    upload(client, changed_and_new)
    pending = PendingImport.objects.get()
    swapped = json_lines(another_case(seed_case, "IL-6666"))
    PendingImport.objects.filter(pk=pending.pk).update(content=swapped)
    before = library_state()
    response = client.post(confirm_url(pending.token))
    assert response.url == IMPORT_URL
    assert "not the one the dry run read" in message_texts(response)[0]
    assert library_state() == before and not Case.objects.filter(public_id="IL-6666").exists()


def test_the_waiting_page_shows_the_dry_runs_counts_and_the_button(
    client, reviewer, changed_and_new
):
    upload(client, changed_and_new)
    response = client.get(confirm_url(PendingImport.objects.get().token))
    assert response.status_code == 200 and has_confirm_button(response)
    counts = {group["key"]: group["count"] for group in response.context["groups"]}
    assert counts == {"created": 2, "updated": 1, "unchanged": 0, "skipped": 0}


def test_a_library_changed_since_the_dry_run_is_imported_as_it_now_is_and_said(
    client, reviewer, seed_case
):
    upload(client, json_lines(another_case(seed_case, "IL-9002")))
    # Meanwhile an editor makes IL-9002 by hand: the import now finds it edited and skips it.
    CaseFactory(public_id="IL-9002")
    response = client.post(confirm_url(PendingImport.objects.get().token))
    said = message_texts(response)
    assert "0 created, 0 updated, 0 unchanged, 1 skipped" in said[0]
    assert "Skipped, because an editor changed them" in said[1]
    assert "the dry run expected 1 created, 0 updated" in said[2]


def test_a_library_changed_so_that_the_file_has_problems_imports_nothing(
    client, reviewer, seed_case
):
    referenced = CaseFactory(public_id="IL-0500")
    upload(client, json_lines(another_case(seed_case, "IL-9002", related=["IL-0500"])))
    referenced.delete()
    before = library_state()
    response = client.post(confirm_url(PendingImport.objects.get().token))
    assert response.status_code == 200
    page = text_of(response)
    assert "Nothing was imported: the library changed since the dry run" in page
    assert ("line 1", "IL-9002", "related[0]") in [row[:3] for row in response.context["problems"]]
    assert not has_confirm_button(response)
    assert library_state() == before


# --- one import at a time ---------------------------------------------------------------


@contextlib.contextmanager
def import_running_elsewhere():
    """Hold the import lock from another thread (its own connection), as a command would."""
    holding, done = threading.Event(), threading.Event()

    def hold():
        try:
            with exclusive_import():
                holding.set()
                done.wait(30)
        finally:
            connection.close()

    thread = threading.Thread(target=hold)
    thread.start()
    assert holding.wait(10)
    try:
        yield
    finally:
        done.set()
        thread.join()


@pytest.mark.django_db(transaction=True)
def test_while_another_import_runs_the_page_says_so_at_once(client, seed_case):
    client.force_login(UserFactory(username="rita", role="reviewer"))
    content = json_lines(another_case(seed_case, "IL-9002"))
    with import_running_elsewhere():
        busy = upload(client, content)
    assert "Another import is running; try again shortly." in text_of(busy)
    assert not PendingImport.objects.exists()

    upload(client, content)
    token = PendingImport.objects.get().token
    with import_running_elsewhere():
        waiting = client.post(confirm_url(token))
    assert waiting.url == confirm_url(token)
    assert "Another import is running" in message_texts(waiting)[0]
    assert not Case.objects.exists() and PendingImport.objects.exists()
    assert client.post(confirm_url(token)).url == CHANGELIST_URL
    assert Case.objects.filter(public_id="IL-9002").exists()


# --- export -----------------------------------------------------------------------------


def export_selected(client, cases):
    return client.post(
        CHANGELIST_URL,
        {"action": "export_selected", "_selected_action": [case.pk for case in cases]},
    )


def downloaded(response):
    assert response.streaming
    return b"".join(response.streaming_content).decode()


def test_export_selected_downloads_those_cases_as_json_lines(client, reviewer):
    chosen = [CaseFactory(public_id="IL-0002"), CaseFactory(public_id="IL-0001")]
    CaseFactory(public_id="IL-0003")
    response = export_selected(client, chosen)
    today = timezone.localdate().isoformat()
    assert response["Content-Disposition"] == (
        f'attachment; filename="incident-library-{today}-2-cases.jsonl"'
    )
    lines = downloaded(response).splitlines()
    assert [json.loads(line)["id"] for line in lines] == ["IL-0001", "IL-0002"]


def test_a_selected_working_copy_exports_its_case_as_export_cases_does(client, reviewer):
    published = CaseFactory(public_id="IL-0001", title_en="Approved title")
    copy = CaseFactory(
        public_id="IL-0001", draft_of=published, title_en="Waiting", status=Case.Status.DRAFT
    )
    lines = downloaded(export_selected(client, [copy])).splitlines()
    assert [json.loads(line)["title"]["en"] for line in lines] == ["Approved title"]
    both = downloaded(export_selected(client, [copy, published])).splitlines()
    assert len(both) == 1


def test_the_export_of_selected_cases_imports_again_as_unchanged(
    client, reviewer, seed_case, tmp_path
):
    import_from_file(tmp_path, *[another_case(seed_case, f"IL-{9000 + n}") for n in range(1, 4)])
    chosen = Case.objects.filter(public_id__in=["IL-9001", "IL-9003"])
    exported = tmp_path / "exported.jsonl"
    exported.write_text(downloaded(export_selected(client, chosen)), encoding="utf-8")
    out = io.StringIO()
    call_command("import_cases", str(exported), "--dry-run", stdout=out, stderr=io.StringIO())
    assert "created 0, updated 0, unchanged 2, skipped 0" in out.getvalue()
    # And through the admin's own dry run.
    report = upload(client, exported.read_bytes())
    counts = {group["key"]: group["count"] for group in report.context["groups"]}
    assert counts == {"created": 0, "updated": 0, "unchanged": 2, "skipped": 0}


def test_export_all_streams_every_case_as_export_cases_writes_it(client, reviewer, tmp_path):
    for n in range(1, 4):
        CaseFactory(public_id=f"IL-{n:04d}")
    response = client.get(EXPORT_ALL_URL)
    assert response.streaming
    assert "-3-cases.jsonl" in response["Content-Disposition"]
    path = tmp_path / "all.jsonl"
    call_command("export_cases", "--output", str(path), stderr=io.StringIO())
    assert downloaded(response) == path.read_text(encoding="utf-8")


def test_the_export_needs_as_many_queries_for_many_cases_as_for_few(
    client, reviewer, django_assert_max_num_queries
):
    def queries_for(count, first):
        cases = [CaseFactory(public_id=f"IL-{first + n:04d}") for n in range(count)]
        with django_assert_max_num_queries(30) as captured:
            lines = downloaded(export_selected(client, cases)).splitlines()
        assert len(lines) == count
        return len(captured.captured_queries)

    assert queries_for(2, 100) == queries_for(25, 200)
