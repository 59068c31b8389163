"""A change of a case in one language leaves the other language's pages that show it
elsewhere as they were (cases.catalogue.shown_texts): a correction of the English keeps
the Korean lists and the Korean pages that link the case, and the other way round. A
text missing in a language shows the other language's, so its change is a change of
both. Whatever the cache answers, kept, mended or rendered, is what a fresh render
makes."""

import datetime
import random
import re

import pytest
from django.contrib.auth.models import User

from cases.catalogue.shown_texts import NOT_SHOWN_ELSEWHERE
from cases.editorial import transitions as workflow
from cases.models import Case, CaseRelation, CaseStep, PublicChange, Term, Vocabulary
from tests.factories import CaseFactory, CaseStepFactory, OrganisationFactory, TermFactory
from tests.page_cache import fresh, walk_through_changes
from tests.workflow import approve_edit

pytestmark = pytest.mark.django_db

LISTS = {"en": "/en/cases/", "ko": "/ko/cases/"}
# IL-0801's page links IL-0802 (similar); IL-0802's links IL-0803 (related).
LINKING = {"en": "/en/cases/IL-0801/", "ko": "/ko/cases/IL-0801/"}


@pytest.fixture
def library():
    """IL-0801 and IL-0802 share a component (each is the other's similar case), as do
    IL-0803 and IL-0804; IL-0802 relates IL-0803. IL-0802 has a contributing factor that
    asks a question (the lists' "Check your own system"); each has a follow-up step."""
    disk = TermFactory(vocabulary="component", slug="disk", label_en="Disk", label_ko="디스크")
    dns = TermFactory(vocabulary="component", slug="dns", label_en="DNS", label_ko="DNS")
    timeouts = TermFactory(
        vocabulary=Vocabulary.CONTRIBUTING,
        slug="missing-timeouts",
        label_en="Missing timeouts",
        label_ko="타임아웃 부재",
        question_en="Does every request have a timeout?",
        question_ko="모든 요청에 타임아웃이 있습니까?",
    )
    acme = OrganisationFactory(slug="acme", name="Acme")
    made = {}
    for n, (name, term) in enumerate(
        [("alpha", disk), ("bravo", disk), ("charlie", dns), ("delta", dns)], start=1
    ):
        made[name] = CaseFactory(
            public_id=f"IL-080{n}",
            org=acme,
            date=datetime.date(2021, 1, n),
            title_en=f"{name.title()} went down",
            title_ko=f"{name} 장애",
            with_terms=[term, timeouts] if name == "bravo" else [term],
        )
        CaseStepFactory(
            case=made[name],
            kind=CaseStep.Kind.ACTION_ITEM,
            text_en=f"Set timeouts in {name}.",
            text_ko=f"{name}에 타임아웃을 둔다.",
        )
    CaseRelation.objects.create(from_case=made["bravo"], to_case=made["charlie"], position=0)
    return made


def ask(client, pages):
    return {page: client.get(page) for page in pages}


def assert_fresh(client, answers):
    for page, response in answers.items():
        assert response.content == fresh(client, page), page


def test_a_correction_of_the_english_keeps_the_korean_lists_and_links(client, library, people):
    pages = [*LISTS.values(), *LINKING.values()]
    ask(client, pages)
    approve_edit(
        library["bravo"],
        *people,
        confirm_stale_korean=True,
        title_en="Bravo went down, corrected",
        summary_en="Corrected.",
    )
    answers = ask(client, pages)
    # The finding (make load, broad mix): after a correction of its English alone, every
    # page that lists or links the case was mended in both languages, the Korean ones for
    # nothing: half of all the mends a correction caused.
    assert answers[LISTS["ko"]]["X-Cache"] == "hit"
    assert answers[LINKING["ko"]]["X-Cache"] == "hit"
    assert answers[LISTS["en"]]["X-Cache"] == "mended"
    assert answers[LINKING["en"]]["X-Cache"] == "mended"
    for language in ("en", "ko"):
        shown = "Bravo went down, corrected" in answers[LISTS[language]].content.decode()
        assert shown == (language == "en")
    assert_fresh(client, answers)


def test_a_correction_of_the_korean_keeps_the_english_lists_and_links(client, library, people):
    pages = [*LISTS.values(), *LINKING.values()]
    ask(client, pages)
    approve_edit(library["bravo"], *people, title_ko="브라보 장애 (정정)")
    answers = ask(client, pages)
    assert answers[LISTS["en"]]["X-Cache"] == "hit"
    assert answers[LINKING["en"]]["X-Cache"] == "hit"
    assert answers[LISTS["ko"]]["X-Cache"] == "mended"
    assert answers[LINKING["ko"]]["X-Cache"] == "mended"
    assert "브라보 장애 (정정)" in answers[LINKING["ko"]].content.decode()
    assert_fresh(client, answers)


def test_an_english_text_shown_where_the_korean_is_missing_changes_the_korean_pages(
    client, library, people
):
    Case.objects.filter(pk=library["bravo"].pk).update(title_ko="")
    pages = [*LISTS.values(), *LINKING.values()]
    ask(client, pages)
    approve_edit(library["bravo"], *people, confirm_stale_korean=True, title_en="Bravo, corrected")
    answers = ask(client, pages)
    assert {answers[page]["X-Cache"] for page in pages} == {"mended"}
    assert '<span lang="en">Bravo, corrected</span>' in answers[LINKING["ko"]].content.decode()
    assert_fresh(client, answers)


def test_a_correction_of_a_step_in_one_language_changes_that_language_s_lists(
    client, library, people
):
    editor, reviewer = people
    ask(client, LISTS.values())
    copy = workflow.case_start_revision(case=library["bravo"], user=editor)
    CaseStep.objects.filter(case=copy).update(text_ko="타임아웃을 모두 둔다.")
    Case.objects.filter(pk=copy.pk).update(last_edited_by=editor)
    workflow.case_submit(case=copy, user=editor)
    workflow.case_approve(case=copy, user=reviewer)
    answers = ask(client, LISTS.values())
    assert answers[LISTS["en"]]["X-Cache"] == "hit"
    assert answers[LISTS["ko"]]["X-Cache"] == "mended"
    assert "타임아웃을 모두 둔다." in answers[LISTS["ko"]].content.decode()
    assert_fresh(client, answers)


def test_a_change_of_terms_which_cards_show_in_every_language_changes_every_list(
    client, library, people
):
    """Terms are no text of the case: a change of them weighs as a change of every
    language, and no list keeps a card (in the card cache) with the old ones."""
    ask(client, LISTS.values())
    dns = library["charlie"].terms.get(vocabulary="component")
    approve_edit(library["alpha"], *people, terms=[dns])
    answers = ask(client, LISTS.values())
    assert "hit" not in {response["X-Cache"] for response in answers.values()}
    assert_fresh(client, answers)


def test_a_page_that_links_only_a_neighbour_of_the_corrected_case_is_kept(client, library, people):
    """IL-0801's page links IL-0802, which relates IL-0803: a correction of IL-0803 is a
    change of IL-0802 as its neighbour (its page links IL-0803), not of what IL-0801's
    page shows of IL-0802."""
    ask(client, LINKING.values())
    approve_edit(
        library["charlie"], *people, confirm_stale_korean=True, title_en="Charlie, corrected"
    )
    answers = ask(client, LINKING.values())
    assert {response["X-Cache"] for response in answers.values()} == {"hit"}
    assert_fresh(client, answers)


def test_each_change_says_the_languages_it_touched(library, people):
    def languages_of(case):
        return PublicChange.objects.filter(case_id=case.pk).latest("version").languages

    approve_edit(library["alpha"], *people, confirm_stale_korean=True, title_en="A")
    assert languages_of(library["alpha"]) == "en"
    approve_edit(library["alpha"], *people, confirm_stale_korean=True, title_ko="알파 장애 (정정)")
    assert languages_of(library["alpha"]) == "ko"
    approve_edit(library["alpha"], *people, confirm_stale_korean=True, detection_en="Alerts.")
    assert languages_of(library["alpha"]) == "en ko"  # (no Korean: the English shows)
    approve_edit(library["alpha"], *people, confirm_stale_korean=True, severity="high")
    assert languages_of(library["alpha"]) == "en ko"
    editor, reviewer = people
    workflow.case_withdraw(case=library["alpha"], user=reviewer, note="Retracted.")
    assert languages_of(library["alpha"]) is None  # (gone: a change of every language)


def piece(html, pattern):
    found = re.findall(pattern, html, re.S)
    assert found, pattern
    return found


def shown_elsewhere(client, public_id):
    """What the pages other than a case's own show of it, in both languages: its cards,
    the lines of "Check your own system" that name it, and its links."""
    shown = []
    for language in ("en", "ko"):
        listed = fresh(client, LISTS[language]).decode()
        shown += piece(
            listed,
            rf'<li class="case-card" id="{public_id}">.*?</li>\s*(?=<li class="case-card"|</ol>)',
        )
        shown += piece(listed, rf'<li><a class="check-case" href="[^"]*/{public_id}/">.*?</li>')
        shown += piece(listed, rf'<li><span[^>]*>[^<]*</span> <a href="[^"]*/{public_id}/" class')
        linking = fresh(client, LINKING[language]).decode()
        shown += piece(linking, rf'<a href="[^"]*/{public_id}/">.*?</a>')
    return shown


NEW_VALUES = {
    "BooleanField": lambda value: not value,
    "CharField": lambda value: f"{value} (changed)",
    "TextField": lambda value: f"{value} changed",
    "DateTimeField": lambda value: datetime.datetime(2011, 3, 11, tzinfo=datetime.UTC),
    "JSONField": lambda value: {"changed": [1, 2]},
    "PositiveIntegerField": lambda value: (value or 0) + 7,
}


def test_no_page_but_its_own_shows_what_a_change_weighs_as_shown_nowhere_else(client, library):
    """The columns a change weighs as shown on no other page (shown_texts.
    NOT_SHOWN_ELSEWHERE) leave every card, check line and link of the case as they were:
    a page showing one of them, kept after a change of it, would be stale."""
    someone = User.objects.create(username="someone-else")
    bravo = library["bravo"]
    before = shown_elsewhere(client, bravo.public_id)
    assert len(before) >= 6
    weighed = sorted(NOT_SHOWN_ELSEWHERE - {"id", "status", "draft_of_id"})
    for column in weighed:
        field = next(f for f in Case._meta.concrete_fields if f.attname == column)
        if field.is_relation:
            value = someone.pk
        else:
            value = NEW_VALUES[field.get_internal_type()](getattr(bravo, column))
        Case.objects.filter(pk=bravo.pk).update(**{column: value})
        assert shown_elsewhere(client, bravo.public_id) == before, column


def test_every_page_kept_mended_or_rendered_through_changes_in_either_language_is_fresh(
    client, library, people
):
    """Random corrections in English, in Korean, in both, of a text missing in one
    language, of a step, and withdrawals; after each pair every list and case page, in
    both languages, is what a fresh render makes."""
    editor, reviewer = people
    rng = random.Random(8)
    cases = list(library.values())
    pages = [
        *LISTS.values(),
        *(f"/{lang}/cases/{case.public_id}/" for case in cases for lang in ("en", "ko")),
        "/en/cases/?q=timeouts",
        "/ko/cases/?q=타임아웃",
    ]

    def change(step):
        case = Case.objects.get(pk=rng.choice(cases).pk)
        if case.status != Case.Status.PUBLISHED:
            return
        kind = rng.choice(["en", "ko", "both", "ko-missing", "step", "terms", "withdraw"])
        fields = {
            "en": {"title_en": f"{case.title_en} +{step}"},
            "ko": {"title_ko": f"{case.title_ko} +{step}"},
            "both": {"summary_en": f"Summary {step}.", "summary_ko": f"요약 {step}."},
            "ko-missing": {"title_ko": "", "title_en": f"{case.title_en} +{step}"},
        }.get(kind)
        if fields is not None:
            approve_edit(case, editor, reviewer, confirm_stale_korean=True, **fields)
        elif kind == "terms":
            terms = rng.sample(list(Term.objects.filter(vocabulary="component")), 1)
            approve_edit(case, editor, reviewer, confirm_stale_korean=True, terms=terms)
        elif kind == "step":
            copy = workflow.case_start_revision(case=case, user=editor)
            CaseStep.objects.filter(case=copy).update(
                **{f"text_{rng.choice(['en', 'ko'])}": f"Step {step}."}
            )
            Case.objects.filter(pk=copy.pk).update(last_edited_by=editor)
            workflow.case_submit(case=copy, user=editor)
            workflow.case_approve(case=copy, user=reviewer, confirm_stale_korean=True)
        else:
            workflow.case_withdraw(case=case, user=reviewer, note="Retracted.")

    answers = walk_through_changes(client, pages, change, steps=10)
    assert {"hit", "mended"} <= answers
