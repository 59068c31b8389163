"""Corrections of misspelled words: the trigram measure (the same as pg_trgm's on either
database), the library's words as cases are written, and the words a correction may use."""

import pytest
from django.db import connection
from hypothesis import given, settings
from hypothesis import strategies as st

from cases.models import Case, SearchWord
from cases.search.typos import corrections, rebuild_words, similarity
from tests.factories import CaseFactory

pytestmark = pytest.mark.django_db

WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789가나다라마", min_size=1, max_size=12)


def test_similarity_counts_shared_trigrams_of_padded_words():
    assert similarity("kubernetes", "kubernetes") == 1.0
    assert similarity("kubernets", "kubernetes") == pytest.approx(8 / 13)
    assert similarity("cloudfare", "cloudflare") == pytest.approx(8 / 13)
    assert similarity("abc", "xyz") == 0.0


@pytest.mark.skipif(connection.vendor != "postgresql", reason="pg_trgm is PostgreSQL's")
@settings(max_examples=200, deadline=None)
@given(left=WORDS, right=WORDS)
def test_similarity_is_pg_trgms_own(left, right):
    with connection.cursor() as cursor:
        cursor.execute("SELECT similarity(%s, %s)", [left, right])
        (expected,) = cursor.fetchone()
    assert similarity(left, right) == pytest.approx(expected, abs=1e-6)


def test_words_of_written_cases_are_remembered_and_rebuilt(django_assert_max_num_queries):
    from cases.search.text import refresh_search_text

    case = CaseFactory(title_en="Quokka stampede", summary_en="Wombats too.")
    refresh_search_text(Case.objects.filter(pk=case.pk))
    assert {"quokka", "stampede", "wombats"} <= set(
        SearchWord.objects.values_list("word", flat=True)
    )
    # Stems and short words are no words to offer.
    assert not SearchWord.objects.filter(word__startswith="_").exists()
    case.delete()
    rebuild_words()
    assert not SearchWord.objects.filter(word="quokka").exists()


def test_a_word_that_begins_a_library_word_is_not_misspelled():
    from cases.search.text import refresh_search_text

    CaseFactory(title_en="Kubernetes networking")
    refresh_search_text(Case.objects.all())
    assert corrections(["kube", "kubernets", "networkin"], "default") == {"kubernets": "kubernetes"}


def test_reindex_search_rebuilds_the_words_of_the_library():
    from io import StringIO

    from django.core.management import call_command

    CaseFactory(title_en="Platypus migration")
    SearchWord.objects.create(word="leftoverword")  # of a case long gone
    call_command("reindex_search", stdout=StringIO())
    words = set(SearchWord.objects.values_list("word", flat=True))
    assert "platypus" in words and "leftoverword" not in words


LETTERS = "abcdefghijklmnopqrstuvwxyz가나다라"


@settings(max_examples=40, deadline=None)
@given(
    unknown=st.text(alphabet=LETTERS, min_size=4, max_size=9),
    edit=st.lists(st.sampled_from(["keep", "swap", "drop", "add"]), min_size=1, max_size=3),
    extra=st.text(alphabet=LETTERS, min_size=0, max_size=3),
)
def test_a_correction_a_change_brings_is_among_the_changed_cases_words(unknown, edit, extra):
    """Whatever word a change writes into a case, if it corrects a word the library lacked
    (or is that word), alike_in finds it among the changed case's words alone: a cached
    search with that word is renewed (cases.catalogue.changes.ShownSearch)."""
    from hypothesis import assume

    from cases.search.text import refresh_search_text
    from cases.search.typos import alike_in
    from cases.search.typos import unknown as unknown_of

    case = Case.objects.first() or CaseFactory(title_en="Plain", summary_en="Nothing.")
    assume(unknown_of([unknown], "default") and not corrections([unknown], "default"))
    word = list(unknown)
    for step in edit:  # a word near the unknown one, or not
        if step == "swap" and len(word) > 1:
            word[0], word[-1] = word[-1], word[0]
        elif step == "drop" and len(word) > 1:
            word.pop(len(word) // 2)
        elif step == "add":
            word.insert(1, "x")
    written = "".join(word) + extra
    Case.objects.filter(pk=case.pk).update(summary_en=f"Something {written} happened.")
    refresh_search_text(Case.objects.filter(pk=case.pk))
    brought = corrections([unknown], "default") or not unknown_of([unknown], "default")
    if brought:
        assert alike_in([unknown], [case.pk], "default")
