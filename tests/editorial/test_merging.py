"""Merging two saves: each part comes whole from the side chosen, to the last character."""

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cases.editorial import drafts, merging
from cases.editorial.rights import WorkflowError
from cases.exchange.serialize import case_to_exchange
from cases.exchange.validation import validate_case
from cases.models import Case
from tests.factories import CaseFactory, CaseStepFactory, SourceFactory, UserFactory

Status = Case.Status

# Text as editors type it: letters of both languages, punctuation, spaces and line breaks
# anywhere (leading and trailing ones included), Markdown's characters.
TEXT = st.text(
    alphabet=st.sampled_from(list("abcXYZ 한국어요약\n\t.,*_-#[]()`'\"<>&")),
    min_size=1,
    max_size=60,
)
STEP = st.fixed_dictionaries({"en": TEXT, "ko": TEXT})
SOURCE = st.builds(
    lambda n, kind: {"url": f"https://example.org/{n}", "kind": kind, "archived": None},
    st.integers(0, 50),
    st.sampled_from([None, "blog", "postmortem"]),
)
TEXT_PARTS = [part for part in merging.PARTS if part.kind == "text"]
EDITS = st.one_of(
    st.tuples(st.sampled_from([p.key for p in TEXT_PARTS]), TEXT),
    st.tuples(st.just("remediation"), st.lists(STEP, max_size=3)),
    st.tuples(st.just("action_items"), st.lists(STEP, max_size=3)),
    st.tuples(st.just("sources"), st.lists(SOURCE, max_size=3, unique_by=lambda s: s["url"])),
    st.tuples(st.just("severity"), st.sampled_from(["unknown", "low", "critical"])),
    st.tuples(st.just("timeline.detected_after"), st.sampled_from([None, "PT5M", "P2DT3H"])),
)
SIDES = st.sampled_from([merging.THEIRS, merging.MINE])


def edited(normal, edits):
    changed = merging._copy(normal)
    for key, value in edits:
        source = {}
        path = merging.PARTS_BY_KEY[key].paths[0]
        into = source
        for step in path[:-1]:
            into = into.setdefault(step, {})
        into[path[-1]] = value
        merging.PARTS_BY_KEY[key].take(changed, source)
    return changed


@pytest.fixture
def base_case():
    return validate_case(
        {
            "id": "IL-0001",
            "org": "Example",
            "date": "2024-01-02",
            "title": {"en": "A title", "ko": "제목"},
            "summary": {"en": "Base.", "ko": "기본."},
            "remediation": [{"en": "Step.", "ko": "단계."}],
        }
    )[0]


@given(
    theirs_edits=st.lists(EDITS, max_size=4), my_edits=st.lists(EDITS, max_size=4), data=st.data()
)
@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_each_part_comes_from_the_side_chosen(base_case, theirs_edits, my_edits, data):
    theirs, mine = edited(base_case, theirs_edits), edited(base_case, my_edits)
    differences = merging.differences(theirs, mine, base_case)
    differing = {d.key for d in differences}
    assert differing == {p.key for p in merging.PARTS if p.get(theirs) != p.get(mine)}
    for difference in differences:
        mine_changed = difference.part.get(base_case) != difference.mine
        theirs_changed = difference.part.get(base_case) != difference.theirs
        expected = (
            None if mine_changed and theirs_changed else ("mine" if mine_changed else "theirs")
        )
        assert difference.proposed == expected

    choices = {key: data.draw(SIDES, label=key) for key in sorted(differing)}
    merged = merging.compose(theirs, mine, choices)
    for part in merging.PARTS:
        side = mine if choices.get(part.key) == merging.MINE else theirs
        assert part.get(merged) == part.get(side)
    assert merged["review"] == theirs["review"]


COUNTER = itertools.count(1)


@pytest.mark.django_db
@given(
    theirs_edits=st.lists(EDITS, max_size=3),
    my_edits=st.lists(EDITS, min_size=1, max_size=3),
    data=st.data(),
)
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_a_saved_merge_loses_no_character_of_either_side(theirs_edits, my_edits, data):
    """Through the database: what is stored after the merge is, part by part, exactly the
    side chosen, texts to the last space and line break."""
    editor = UserFactory(username="eddie", role="editor")
    reviewer = UserFactory(username="rita", role="reviewer")
    case = CaseFactory(
        public_id=f"IL-{next(COUNTER) + 100:04d}", status=Status.DRAFT, created_by=editor
    )
    CaseStepFactory(case=case, position=0)
    SourceFactory(case=case, url="https://example.org/first")
    opened = case.edit_version
    base = merging.normal_mine(stored(case))

    theirs_wanted = edited(base, theirs_edits)
    drafts.case_save(case=case, data=theirs_wanted, user=reviewer, seen_version=opened)
    theirs = merging.normal_mine(stored(case))
    mine = merging.normal_mine(edited(base, my_edits))

    _theirs, version, differences = merging.merge_state(case, mine, base)
    choices = {d.key: data.draw(SIDES, label=d.key) for d in differences}
    if not differences:
        return
    merging.case_save_merged(
        case=case, mine=mine, choices=choices, theirs_version=version, user=editor
    )
    after = merging.normal_mine(stored(case))
    for part in merging.PARTS:
        side = mine if choices.get(part.key) == merging.MINE else theirs
        assert part.get(after) == part.get(side), part.key


def stored(case):
    return case_to_exchange(Case.objects.for_exchange().get(pk=case.pk))


@pytest.mark.django_db
def test_the_merge_goes_through_the_editorial_rights():
    author = UserFactory(username="eddie", role="editor")
    stranger = UserFactory(username="erin", role="editor")
    case = CaseFactory(status=Status.DRAFT, created_by=author)
    mine = merging.normal_mine(stored(case))
    mine["title"]["en"] = "Another title"
    with pytest.raises(WorkflowError):
        merging.case_save_merged(
            case=case,
            mine=mine,
            choices={"title.en": "mine"},
            theirs_version=case.edit_version,
            user=stranger,
        )
    assert stored(case)["title"]["en"] != "Another title"


def test_a_forged_or_damaged_base_is_ignored(base_case):
    token = merging.sign_base(base_case)
    assert merging.unsign_base(token) == base_case
    assert merging.unsign_base(token[:-2] + "xx") is None
    assert merging.unsign_base("") is None
    assert merging.unsign_base("garbage") is None


def test_parts_are_labelled_in_the_readers_language():
    from django.utils import translation

    part = merging.PARTS_BY_KEY["trigger.ko"]
    assert part.label == "Trigger, Korean"
    with translation.override("ko"):
        assert part.label != "Trigger, Korean"
