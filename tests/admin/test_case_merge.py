"""Two editors save the same case: the second sees theirs and mine, part by part, and merges."""

import json

import pytest
from django.urls import reverse

from cases.editorial import drafts
from cases.exchange.serialize import case_to_exchange
from cases.models import Case, CaseStep, CaseVersion
from tests.admin_forms import add_inline_row, change_form_data, form_errors
from tests.factories import CaseFactory, CaseStepFactory, SourceFactory, UserFactory

pytestmark = pytest.mark.django_db
Status = Case.Status


@pytest.fixture
def case(editor):
    case = CaseFactory(
        status=Status.DRAFT,
        published_at=None,
        created_by=editor,
        trigger_en="A deploy.",
        trigger_ko="배포.",
    )
    CaseStepFactory(case=case, position=0, text_en="Rolled back.", text_ko="되돌렸다.")
    SourceFactory(case=case, url="https://example.org/one", kind="postmortem")
    return case


def change_url(case):
    return reverse("admin:cases_case_change", args=[case.pk])


def merge_url(case):
    return reverse("admin:cases_case_merge", args=[case.pk])


def stored(case):
    return case_to_exchange(Case.objects.for_exchange().get(pk=case.pk))


def open_form(client, user, case):
    client.force_login(user)
    return client.get(change_url(case))


def merge_form(response, **choices):
    """The merge page's POST data: its hidden fields, its proposals, `choices` over them."""
    context = response.context
    data = {
        "mine": context["mine_json"],
        "theirs_version": str(context["theirs_version"]),
        "base": context["base_token"],
    }
    for difference in context["differences"]:
        if difference.chosen:
            data[difference.key] = difference.chosen
    data.update(choices)
    return data


@pytest.fixture
def two_saves(client, django_user_model, editor, reviewer, case):
    """Eddie and Rita open the case at once; Rita saves first. Returns Eddie's form data and
    his client, ready for him to change and save."""
    from django.test import Client

    eddie, rita = Client(), Client()
    eddie_data = change_form_data(open_form(eddie, editor, case))
    rita_data = change_form_data(open_form(rita, reviewer, case))
    rita_data["title_en"] = "Rita's better title"
    add_inline_row(rita_data, "sources", url="https://example.org/two", kind="blog", position=1)
    response = rita.post(change_url(case), rita_data)
    assert response.status_code == 302, form_errors(response)
    return eddie, eddie_data


def test_the_second_of_two_saves_sees_theirs_and_mine_part_by_part(two_saves, case):
    """Found: the second save was refused with "copy what you need, open the case again and
    re-apply it" across some 40 fields and 4 inline tables."""
    eddie, data = two_saves
    data["summary_ko"] = "에디의 새 요약."
    data["trigger_en"] = "A deploy of a bad configuration."
    data["steps-0-text_ko"] = "설정을 되돌렸다."
    response = eddie.post(change_url(case), data)

    assert response.status_code == 200
    assert [t.name for t in response.templates][0] == "admin/cases/case/merge.html"
    proposed = {d.key: d.proposed for d in response.context["differences"]}
    assert proposed == {
        "title.en": "theirs",
        "summary.ko": "mine",
        "trigger.en": "mine",
        "remediation": "mine",
        "sources": "theirs",
    }
    page = response.content.decode()
    assert "Rita&#x27;s better title" in page and "에디의 새 요약." in page
    assert "copy what you" not in page
    # Nothing is written until the editor chooses.
    assert stored(case)["summary"]["ko"] == "무언가 실패했다."

    response = eddie.post(merge_url(case), merge_form(response))
    assert response.status_code == 302
    merged = stored(case)
    assert merged["title"]["en"] == "Rita's better title"
    assert merged["summary"]["ko"] == "에디의 새 요약."
    assert merged["trigger"]["en"] == "A deploy of a bad configuration."
    assert merged["remediation"] == [{"en": "Rolled back.", "ko": "설정을 되돌렸다."}]
    assert [s["url"] for s in merged["sources"]] == [
        "https://example.org/one",
        "https://example.org/two",
    ]
    version = CaseVersion.objects.filter(public_id=case.public_id).latest("number")
    assert version.saved_by.username == "eddie" and "merged" in version.reason


def test_a_part_both_changed_is_not_proposed_and_must_be_chosen(two_saves, case):
    eddie, data = two_saves
    data["title_en"] = "Eddie's own title"
    response = eddie.post(change_url(case), data)
    both = [d for d in response.context["differences"] if d.key == "title.en"]
    assert both and both[0].proposed is None and both[0].changed_by_both

    refused = eddie.post(merge_url(case), merge_form(response))
    assert refused.status_code == 200
    assert "Choose theirs or yours for: Title, English" in refused.content.decode()
    assert stored(case)["title"]["en"] == "Rita's better title"

    done = eddie.post(merge_url(case), merge_form(response, **{"title.en": "mine"}))
    assert done.status_code == 302
    merged = stored(case)
    assert merged["title"]["en"] == "Eddie's own title"
    assert len(merged["sources"]) == 2  # theirs, proposed, kept


def test_keep_all_of_mine_and_keep_all_of_theirs(two_saves, case):
    eddie, data = two_saves
    data["title_en"] = "Eddie's own title"
    data["summary_ko"] = "에디의 새 요약."
    response = eddie.post(change_url(case), data)

    eddie.post(merge_url(case), merge_form(response, take_all="mine"))
    merged = stored(case)
    assert merged["title"]["en"] == "Eddie's own title"
    assert merged["summary"]["ko"] == "에디의 새 요약."
    assert [s["url"] for s in merged["sources"]] == ["https://example.org/one"]


def test_a_third_save_during_the_merge_shows_the_newest_version(two_saves, case, reviewer):
    eddie, data = two_saves
    data["summary_ko"] = "에디의 새 요약."
    response = eddie.post(change_url(case), data)
    # Rita saves once more while Eddie is choosing.
    current = Case.objects.get(pk=case.pk)
    rita_again = stored(case)
    rita_again["lessons"] = {"en": "Check configurations.", "ko": ""}
    drafts.case_save(
        case=current, data=rita_again, user=reviewer, seen_version=current.edit_version
    )

    again = eddie.post(merge_url(case), merge_form(response))
    assert again.status_code == 200
    assert "saved again while you merged" in again.content.decode()
    keys = {d.key for d in again.context["differences"]}
    assert "lessons.en" in keys and "summary.ko" in keys
    assert stored(case)["summary"]["ko"] == "무언가 실패했다."

    done = eddie.post(merge_url(case), merge_form(again))
    assert done.status_code == 302
    merged = stored(case)
    assert merged["lessons"]["en"] == "Check configurations."
    assert merged["summary"]["ko"] == "에디의 새 요약."


def test_with_other_problems_the_form_comes_first(two_saves, case):
    """A conflicting save that also breaks a rule shows the form with the problem: the merge
    comes on the next save, once the editor's own case is whole."""
    eddie, data = two_saves
    data["summary_ko"] = "에디의 새 요약."
    data["sources-0-url"] = "javascript:alert(1)"
    response = eddie.post(change_url(case), data)
    assert [t.name for t in response.templates][0] == "admin/cases/case/change_form.html"
    errors = form_errors(response)
    assert any("merge" in message for message in errors["__all__"])
    assert "sources-0-url" in errors

    data["sources-0-url"] = "https://example.org/one"
    response = eddie.post(change_url(case), data)
    assert [t.name for t in response.templates][0] == "admin/cases/case/merge.html"


def test_the_same_change_on_both_sides_needs_no_merge(client, editor, reviewer, case):
    from django.test import Client

    eddie, rita = Client(), Client()
    eddie_data = change_form_data(open_form(eddie, editor, case))
    rita_data = change_form_data(open_form(rita, reviewer, case))
    for data in (rita_data, eddie_data):
        data["lessons_en"] = "Same lesson."
    assert rita.post(change_url(case), rita_data).status_code == 302
    response = eddie.post(change_url(case), eddie_data)
    assert response.status_code == 302
    assert stored(case)["lessons"]["en"] == "Same lesson."


def test_a_damaged_merge_form_loses_nothing_stored(two_saves, case):
    eddie, data = two_saves
    data["summary_ko"] = "에디의 새 요약."
    response = eddie.post(change_url(case), data)
    before = stored(case)
    for damage in ("not json", json.dumps({"id": "nope"}), "[" * 100_000):
        answer = eddie.post(merge_url(case), merge_form(response, mine=damage))
        assert answer.status_code == 302
    answer = eddie.post(merge_url(case), merge_form(response, theirs_version="x"))
    assert answer.status_code == 302
    assert stored(case) == before
    assert eddie.get(merge_url(case)).status_code == 405


def test_someone_without_the_right_cannot_merge(two_saves, case):
    eddie, data = two_saves
    data["summary_ko"] = "에디의 새 요약."
    response = eddie.post(change_url(case), data)
    other = UserFactory(username="erin", role="editor")  # not the case's author
    eddie.force_login(other)
    assert eddie.post(merge_url(case), merge_form(response)).status_code == 403


def test_merging_steps_and_sources_keeps_every_row(two_saves, case):
    """All four inline tables come across whole, whichever side is taken."""
    eddie, data = two_saves
    index = add_inline_row(
        data,
        "steps",
        kind=CaseStep.Kind.ACTION_ITEM,
        position=0,
        text_en="Add a check.",
        text_ko="검사를 넣는다.",
    )
    assert index == 1
    response = eddie.post(change_url(case), data)
    proposed = {d.key: d.proposed for d in response.context["differences"]}
    assert proposed["action_items"] == "mine"
    eddie.post(merge_url(case), merge_form(response))
    merged = stored(case)
    assert merged["action_items"] == [{"en": "Add a check.", "ko": "검사를 넣는다."}]
    assert merged["remediation"] == [{"en": "Rolled back.", "ko": "되돌렸다."}]
    assert len(merged["sources"]) == 2


def test_line_breaks_a_browser_sends_are_stored_as_typed(client, editor, case):
    """Browsers send a textarea's line breaks as CRLF: stored as such, every save of a
    multi-paragraph text by a browser would change all its lines."""
    data = change_form_data(open_form(client, editor, case))
    data["summary_en"] = "One.\r\n\r\n- a\r\n- b"
    data["steps-0-text_ko"] = "첫째.\r\n둘째."
    assert client.post(change_url(case), data).status_code == 302
    saved = stored(case)
    assert saved["summary"]["en"] == "One.\n\n- a\n- b"
    assert saved["remediation"][0]["ko"] == "첫째.\n둘째."
