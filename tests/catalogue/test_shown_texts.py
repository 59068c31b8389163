"""What a case shows on other pages, by language (cases.catalogue.shown_texts): a language
counts as touched by a change exactly when a page in it shows another text, as pages
resolve texts (translated_text), or another value of a column the same in every
language."""

from types import SimpleNamespace

from django.utils import translation
from hypothesis import given
from hypothesis import strategies as st

from cases.catalogue.shown_texts import (
    COLUMNS,
    LANGUAGE_CODES,
    TRANSLATED,
    fallback_order,
    languages_touched,
    shown_by_language,
)
from cases.templatetags.library import translated_text

# A text as editors leave it: missing, or one of a few (so that before and after often agree).
texts = st.sampled_from(["", "", "Disk full", "디스크 가득", "Disk full"])
cases = st.fixed_dictionaries(
    {
        **{f"{field}_{code}": texts for field in TRANSLATED[:3] for code in LANGUAGE_CODES},
        "date_kind": st.sampled_from(["occurred", "published"]),
        "steps": st.lists(
            st.fixed_dictionaries({code: texts for code in LANGUAGE_CODES}), max_size=2
        ),
    }
)


def row_of(case):
    values = {column: "" for column in COLUMNS}
    values.update({k: v for k, v in case.items() if k != "steps"})
    return tuple(values[column] for column in COLUMNS)


def steps_of(case):
    return [("action_item", position, texts) for position, texts in enumerate(case["steps"])]


def as_pages_show(case, language):
    """What a page in `language` shows of the case, through the pages' own rule."""
    with translation.override(language):
        model = SimpleNamespace(**{k: v for k, v in case.items() if k != "steps"})
        shown = [translated_text(model, field) for field in TRANSLATED[:3]]
        shown = [(text.text, text.language, text.fallback) for text in shown]
        for step in case["steps"]:
            text = translated_text(
                SimpleNamespace(**{f"text_{c}": t for c, t in step.items()}), "text"
            )
            shown.append((text.text, text.language, text.fallback))
        return shown, case["date_kind"]


@given(cases, cases)
def test_a_language_is_touched_exactly_when_its_pages_show_something_else(before, after):
    touched = languages_touched(
        shown_by_language(row_of(before), steps_of(before)),
        shown_by_language(row_of(after), steps_of(after)),
    ).split()
    for language in LANGUAGE_CODES:
        differs = as_pages_show(before, language) != as_pages_show(after, language)
        assert (language in touched) == differs, language


def test_the_fallback_order_is_the_page_s_language_then_the_default_then_the_others():
    assert fallback_order("ko") == ("ko", "en")
    assert fallback_order("en") == ("en", "ko")
