"""A term's question ("Check your own system"): in the taxonomy file, loaded, exported and
refused when bad; and every bundled contributing factor asks one in both languages."""

import json

import pytest

from cases.exchange.taxonomy import TaxonomyError, export_taxonomy, load_taxonomy, parse_taxonomy
from cases.models import Term, Vocabulary
from cases.rules import MAX_QUESTION_LENGTH
from tests.conftest import REPO
from tests.factories import TermFactory

pytestmark = pytest.mark.django_db

TIMEOUTS = {
    "slug": "missing-timeouts",
    "label": {"en": "Missing timeouts", "ko": "타임아웃 부재"},
    "question": {
        "en": "Does every request have a timeout?",
        "ko": "모든 요청에 타임아웃이 있습니까?",
    },
}


def parsed(*terms):
    return parse_taxonomy(json.dumps({"contributing": list(terms)}))


def test_questions_load_in_both_languages_and_export_as_they_were_read():
    load_taxonomy(parsed(TIMEOUTS).terms)
    term = Term.objects.get(slug="missing-timeouts")
    assert (term.question_en, term.question_ko) == (
        "Does every request have a timeout?",
        "모든 요청에 타임아웃이 있습니까?",
    )
    (exported,) = export_taxonomy()["contributing"]
    assert exported["question"] == TIMEOUTS["question"]
    assert parsed(exported).terms == parsed(TIMEOUTS).terms


def test_a_file_without_questions_leaves_the_terms_questions_as_they_are():
    TermFactory(vocabulary=Vocabulary.CONTRIBUTING, slug="missing-timeouts", question_en="Written?")
    without = {key: value for key, value in TIMEOUTS.items() if key != "question"}
    load_taxonomy(parsed(without).terms, force=True)
    assert Term.objects.get(slug="missing-timeouts").question_en == "Written?"


def test_an_editors_question_stays_unless_forced():
    TermFactory(vocabulary=Vocabulary.CONTRIBUTING, slug="missing-timeouts", question_en="Written?")
    load_taxonomy(parsed(TIMEOUTS).terms)
    assert Term.objects.get(slug="missing-timeouts").question_en == "Written?"
    load_taxonomy(parsed(TIMEOUTS).terms, force=True)
    assert Term.objects.get(slug="missing-timeouts").question_en == TIMEOUTS["question"]["en"]


@pytest.mark.parametrize(
    ("question", "problem"),
    [
        ({"en": 3}, "contributing[0].question.en: must be a string"),
        ({"fr": "?"}, "contributing[0].question: must be an object with en and ko"),
        ("?", "contributing[0].question: must be an object with en and ko"),
        (
            {"ko": "가" * (MAX_QUESTION_LENGTH + 1)},
            f"contributing[0].question.ko: at most {MAX_QUESTION_LENGTH} characters",
        ),
    ],
)
def test_a_bad_question_is_named_and_nothing_loads(question, problem):
    with pytest.raises(TaxonomyError) as refused:
        parsed(TIMEOUTS | {"question": question})
    assert f"taxonomy: {problem}" in refused.value.problems


def test_every_bundled_contributing_factor_asks_a_question_in_both_languages():
    document = json.loads((REPO / "data" / "taxonomy.json").read_text(encoding="utf-8"))
    factors = document["contributing"]
    assert factors
    for term in factors:
        question = term.get("question", {})
        assert question.get("en", "").endswith("?"), term["slug"]
        assert question.get("ko", "").endswith("?"), term["slug"]
        assert len(question["en"]) <= MAX_QUESTION_LENGTH
        assert len(question["ko"]) <= MAX_QUESTION_LENGTH
    parse_taxonomy(json.dumps(document))  # and the file still reads
