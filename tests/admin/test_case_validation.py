"""The admin's case form refuses what the importer refuses, with the importer's words, beside
the field they name; and whatever the admin saves, the whole library still exports and
imports again."""

import datetime

import pytest
from django.urls import reverse
from django.utils import timezone

from cases.editorial import transitions as workflow
from cases.exchange.serialize import case_to_exchange
from cases.exchange.validation import validate_case
from cases.models import Case, Vocabulary
from tests.admin_forms import add_inline_row, change_form_data, form_errors
from tests.factories import (
    CaseFactory,
    CaseStepFactory,
    SourceFactory,
    TermFactory,
    UserFactory,
)
from tests.library import database_fingerprint, export_and_dry_run

pytestmark = pytest.mark.django_db
Status = Case.Status


@pytest.fixture
def reviewer(client):
    user = UserFactory(username="rita", role="reviewer")
    client.force_login(user)
    return user


@pytest.fixture
def draft(reviewer):
    dns = TermFactory(vocabulary=Vocabulary.COMPONENT, slug="dns", label_en="DNS")
    case = CaseFactory(
        public_id="IL-0100",
        status=Status.DRAFT,
        published_at=None,
        created_by=reviewer,
        with_terms=[dns],
    )
    SourceFactory(case=case, url="https://example.org/postmortem")
    CaseStepFactory(case=case, text_en="Rolled back the change.", text_ko="변경을 되돌렸다.")
    CaseFactory(public_id="IL-0101")  # a case to relate to
    return case


def change_url(case):
    return reverse("admin:cases_case_change", args=[case.pk])


def exchange_of(case):
    return case_to_exchange(Case.objects.for_exchange().get(pk=case.pk))


def importer_message(case, change):
    """What the importer says of this case with `change` applied to its exchange form."""
    data = exchange_of(case)
    change(data)
    normal, problems = validate_case(data)
    assert normal is None, "the importer must refuse this"
    return problems


# --- what we found -------------------------------------------------------------------


def test_an_empty_remediation_step_is_refused(client, draft):
    data = change_form_data(client.get(change_url(draft)))
    row = add_inline_row(data, "steps", kind="remediation", position=5, text_en="", text_ko="")
    before = database_fingerprint()
    response = client.post(change_url(draft), data)
    assert response.status_code == 200
    assert "is empty in both languages" in " ".join(form_errors(response)[f"steps-{row}-__all__"])
    assert database_fingerprint() == before


@pytest.mark.parametrize("field", ["detected_after", "resolved_after"])
def test_a_negative_duration_is_refused(client, draft, field):
    response = client.post(
        change_url(draft), change_form_data(client.get(change_url(draft)), **{field: "-00:05:00"})
    )
    assert response.status_code == 200
    assert form_errors(response)[field] == ["must not be negative"]
    draft.refresh_from_db()
    assert getattr(draft, field) is None


def test_a_case_cannot_be_a_recurrence_of_itself(client, draft):
    data = change_form_data(client.get(change_url(draft)), recurrence_of=str(draft.pk))
    response = client.post(change_url(draft), data)
    assert response.status_code == 200
    assert form_errors(response)["recurrence_of"] == ["a case cannot be a recurrence of itself"]
    draft.refresh_from_db()
    assert draft.recurrence_of is None


def test_a_case_cannot_be_related_to_itself(client, draft):
    data = change_form_data(client.get(change_url(draft)))
    row = add_inline_row(data, "outgoing_relations", to_case=draft.pk, position=0)
    response = client.post(change_url(draft), data)
    assert response.status_code == 200
    errors = form_errors(response)
    assert "a case cannot be related to itself" in " ".join(
        errors.get(f"outgoing_relations-{row}-to_case", []) + errors.get("outgoing_relations", [])
    )
    assert not draft.outgoing_relations.exists()


def test_a_revision_of_a_case_that_no_longer_validates_says_why(client, reviewer):
    # A case written before a rule was tightened (here: the length of a text).
    case = CaseFactory(public_id="IL-0200", summary_en="x" * 60_000)
    response = client.post(reverse("admin:cases_case_revise", args=[case.pk]), follow=True)
    assert response.status_code == 200
    text = response.content.decode()
    assert "summary.en" in text and "at most 50,000 characters" in text
    assert not Case.objects.filter(draft_of=case).exists()


# --- every kind of value the importer refuses -------------------------------------------

LONG = "x" * 50_001


def set_path(path, value):
    def change(data):
        target = data
        *parents, last = path
        for key in parents:
            target = target[key]
        target[last] = value

    return change


# (name, the admin's POST change, the same change to the exchange form, where the admin
# shows it: a field of the case form, or "prefix-row-field" of an inline)
REFUSALS = [
    ("unicode digits id", {"public_id": "IL-١٢٣٤"}, set_path(["id"], "IL-١٢٣٤"), "public_id"),
    ("full-width id", {"public_id": "IL-１２３４"}, set_path(["id"], "IL-１２３４"), "public_id"),
    ("short id", {"public_id": "IL-12"}, set_path(["id"], "IL-12"), "public_id"),
    ("lower-case id", {"public_id": "il-1234"}, set_path(["id"], "il-1234"), "public_id"),
    (
        "no title",
        {"title_en": "", "title_ko": ""},
        lambda d: d.update(title={"en": "", "ko": ""}),
        "title_en",
    ),
    ("long title", {"title_en": "t" * 501}, set_path(["title", "en"], "t" * 501), "title_en"),
    ("long summary", {"summary_ko": LONG}, set_path(["summary", "ko"], LONG), "summary_ko"),
    (
        "long impact",
        {"impact_users_en": "u" * 5_001},
        set_path(["impact", "users"], "u" * 5_001),
        "impact_users_en",
    ),
    (
        "negative duration",
        {"detected_after": "-00:05:00"},
        set_path(["timeline", "detected_after"], "-PT5M"),
        "detected_after",
    ),
    (
        "too long a duration",
        {"resolved_after": "7400 00:00:00"},
        set_path(["timeline", "resolved_after"], "P7400D"),
        "resolved_after",
    ),
    ("future date", {"date": "2999-01-01"}, set_path(["date"], "2999-01-01"), "date"),
    ("ancient date", {"date": "1850-01-01"}, set_path(["date"], "1850-01-01"), "date"),
    (
        "unsafe doc link",
        {"docs": ["javascript:alert(1)"]},  # the form sends one value per link
        set_path(["docs"], ["javascript:alert(1)"]),
        "docs",
    ),
    (
        "unsafe case url",
        {"source_url": "ftp://x.example/"},
        set_path(["url"], "ftp://x.example/"),
        "source_url",
    ),
    (
        "licence not an SPDX identifier",
        {"licence": "CC BY 4.0"},
        set_path(["licence"], "CC BY 4.0"),
        "licence",
    ),
    (
        "long written_by",
        {"written_by": "w" * 201},
        set_path(["review", "written_by"], "w" * 201),
        "written_by",
    ),
    (
        "unsafe source",
        {"sources-0-url": "javascript:alert(1)"},
        lambda d: d["sources"][0].update(url="javascript:alert(1)"),
        "sources-0-url",
    ),
    (
        "source kind not a slug",
        {"sources-0-kind": "Post-Mortem"},
        lambda d: d["sources"][0].update(kind="Post-Mortem"),
        "sources-0-kind",
    ),
    (
        "long step",
        {"steps-0-text_en": "s" * 5_001},
        lambda d: d["remediation"][0].update(en="s" * 5_001),
        "steps-0-text_en",
    ),
]


@pytest.mark.parametrize(
    "admin_change,exchange_change,where",
    [pytest.param(a, e, w, id=name) for name, a, e, w in REFUSALS],
)
def test_the_admin_refuses_what_the_importer_refuses_in_its_words(
    client, draft, admin_change, exchange_change, where
):
    said = importer_message(draft, exchange_change)
    before = database_fingerprint()
    response = client.post(
        change_url(draft), change_form_data(client.get(change_url(draft)), **admin_change)
    )
    assert response.status_code == 200, "the form again, not a redirect"
    shown = " ".join(form_errors(response).get(where, []))
    assert any(problem.message in shown for problem in said), (said, form_errors(response))
    assert database_fingerprint() == before


def test_problems_are_named_in_the_editors_language(client, draft):
    data = change_form_data(client.get(change_url(draft)), detected_after="-00:05:00")
    response = client.post(change_url(draft), data, headers={"accept-language": "ko"})
    assert response.status_code == 200
    assert form_errors(response)["detected_after"] == ["음수일 수 없습니다"]


# --- whatever the admin saves, the library re-imports ---------------------------------


def test_a_case_saved_submitted_and_approved_in_the_admin_reimports(client, draft, tmp_path):
    second = UserFactory(username="ravi", role="reviewer")
    data = change_form_data(
        client.get(change_url(draft)), detected_after="00:05:00", summary_en="Edited."
    )
    add_inline_row(data, "steps", kind="action_item", position=0, text_en="Alert on it.")
    assert client.post(change_url(draft), data).status_code == 302
    workflow.case_submit(case=draft, user=UserFactory(username="rita"))
    workflow.case_approve(case=draft, user=second)
    assert "Dry run" in export_and_dry_run(tmp_path)
    published = Case.objects.get(pk=draft.pk)
    assert published.status == Status.PUBLISHED
    assert published.detected_after == datetime.timedelta(minutes=5)
    assert timezone.now() - published.published_at < datetime.timedelta(minutes=1)
