"""Whatever an editor types, in any order of saves: the admin answers with the form again or
saves, never with an error page, and after every save the whole library still exports and
imports again. (Hypothesis draws the edits: good values, bad values and any text.)"""

import itertools

import pytest
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cases.models import Case, Vocabulary
from tests.admin_forms import add_inline_row, change_form_data
from tests.factories import CaseFactory, CaseStepFactory, SourceFactory, TermFactory, UserFactory
from tests.library import export_and_dry_run

pytestmark = pytest.mark.django_db

# Any text a browser can send (a lone surrogate cannot be encoded into a form).
TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80)
TEXTS = st.one_of(TEXT, st.sampled_from(["", " ", "x" * 5_001, "한국어 요약.", "a\x00b"]))
DURATIONS = st.sampled_from(
    ["", "00:05:00", "-00:05:00", "1 02:03:04", "7400 00:00:00", "abc", "99999999 00:00:00"]
    + ["3h 15m", "PT45M", "2d 4h", "-5m", "99999d", "3 hours-ish"]
)
DATES = st.one_of(
    st.dates().map(lambda d: d.isoformat()), st.sampled_from(["", "2024-02-30", "tomorrow"])
)
IDS = st.sampled_from(["IL-0500", "IL-0501", "IL-12", "IL-١٢٣٤", "il-0500", "IL-0500 "])
LINKS = st.sampled_from(
    ["", "https://example.org/pm", "javascript:alert(1)", "ftp://x.example/", "https://a b/"]
)
KINDS = st.sampled_from(["", "postmortem", "Post-Mortem", "blog post", "x" * 60])
# One value per link input, as the form sends them (empty inputs included).
DOCS = st.lists(st.one_of(LINKS, st.sampled_from(["[", "javascript:1", "https://x"])), max_size=4)

FIELD_EDITS = st.one_of(
    st.tuples(st.sampled_from(["title_en", "title_ko", "summary_en", "summary_ko"]), TEXTS),
    st.tuples(st.sampled_from(["trigger_ko", "lessons_en", "impact_scope_en"]), TEXTS),
    st.tuples(st.just("written_by"), TEXTS),
    st.tuples(st.sampled_from(["detected_after", "resolved_after"]), DURATIONS),
    st.tuples(st.just("date"), DATES),
    st.tuples(st.just("public_id"), IDS),
    st.tuples(st.just("source_url"), LINKS),
    st.tuples(st.just("docs"), DOCS),
    st.tuples(st.just("severity"), st.sampled_from(["unknown", "high", "huge"])),
    st.tuples(st.just("recurrence_of"), st.sampled_from(["self", "other", ""])),
)
ROW_EDITS = st.one_of(
    st.tuples(st.just("add step"), st.sampled_from(["remediation", "action_item"]), TEXTS, TEXTS),
    st.tuples(st.just("add source"), LINKS, KINDS, LINKS),
    st.tuples(st.just("add relation"), st.sampled_from(["self", "other"])),
    st.tuples(st.just("add term"), st.sampled_from(["dns", "storage", "overload"])),
    st.tuples(st.just("delete first"), st.sampled_from(["steps", "sources", "case_terms"])),
)
NEW_IDS = (f"IL-{n}" for n in itertools.count(5000))
SAVES = st.lists(st.lists(st.one_of(FIELD_EDITS, ROW_EDITS), min_size=1, max_size=4), max_size=4)


@pytest.fixture
def desk():
    reviewer = UserFactory(username="rita", role="reviewer")
    terms = {
        slug: TermFactory(vocabulary=vocabulary, slug=slug)
        for slug, vocabulary in [
            ("dns", Vocabulary.COMPONENT),
            ("storage", Vocabulary.COMPONENT),
            ("overload", Vocabulary.ROOT_CAUSE),  # a cause: not a term of the list
        ]
    }
    other = CaseFactory(public_id="IL-0400")
    client = Client()
    client.force_login(reviewer)
    return {"client": client, "terms": terms, "other": other}


def apply(data, edit, case, desk):
    kind = edit[0]
    pk_of = {"self": case.pk, "other": desk["other"].pk, "": ""}
    if kind == "add step":
        add_inline_row(data, "steps", kind=edit[1], position=9, text_en=edit[2], text_ko=edit[3])
    elif kind == "add source":
        add_inline_row(data, "sources", position=9, url=edit[1], kind=edit[2], archived=edit[3])
    elif kind == "add relation":
        add_inline_row(data, "outgoing_relations", position=9, to_case=pk_of[edit[1]])
    elif kind == "add term":
        add_inline_row(data, "case_terms", position=9, term=desk["terms"][edit[1]].pk)
    elif kind == "delete first":
        if int(data.get(f"{edit[1]}-INITIAL_FORMS", 0)):
            data[f"{edit[1]}-0-DELETE"] = "on"
    elif kind == "recurrence_of":
        data["recurrence_of"] = str(pk_of[edit[1]])
    else:
        data[kind] = edit[1]


@settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(saves=SAVES)
def test_any_sequence_of_admin_saves_leaves_a_library_that_reimports(desk, tmp_path, saves):
    client = desk["client"]
    case = CaseFactory(status=Case.Status.DRAFT, published_at=None, public_id=next(NEW_IDS))
    SourceFactory(case=case)
    CaseStepFactory(case=case)
    url = reverse("admin:cases_case_change", args=[case.pk])
    for save in saves:
        data = change_form_data(client.get(url))
        for edit in save:
            apply(data, edit, case, desk)
        response = client.post(url, data)
        assert response.status_code in (200, 302), response.status_code
        assert "Dry run" in export_and_dry_run(tmp_path), save
