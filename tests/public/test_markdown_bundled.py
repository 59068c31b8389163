"""The bundled cases were written before their texts were Markdown: each text, rendered,
must still say every word it says in the file, in both languages, so that nothing the
Markdown reads as syntax (a `1990.` opening a numbered list, `__init__` as strong emphasis,
a backslash) changes what a reader sees. Future data is held to the same rule."""

import json
import re
from collections import Counter
from html.parser import HTMLParser
from urllib.parse import unquote

import pytest

from cases.markdown import plain, render
from cases.rules import LANGUAGES
from tests.conftest import REPO

MARKDOWN_FIELDS = ("summary", "symptoms_text", "trigger", "detection", "lessons")
STEP_FIELDS = ("remediation", "action_items")
# A backslash before ASCII punctuation is Markdown's escape: the reader sees the punctuation.
ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
WORD = re.compile(r"\w+")


def bundled_texts():
    for path in sorted((REPO / "data" / "cases").glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for case in data if isinstance(data, list) else [data]:
            for field in MARKDOWN_FIELDS:
                for language in LANGUAGES:
                    if text := (case.get(field) or {}).get(language):
                        yield f"{case['id']} {field}.{language}", text
            for field in STEP_FIELDS:
                for index, step in enumerate(case.get(field) or []):
                    step = {"en": step} if isinstance(step, str) else step
                    for language in LANGUAGES:
                        if text := step.get(language):
                            yield f"{case['id']} {field}[{index}].{language}", text


BUNDLED = dict(bundled_texts())


class Addresses(HTMLParser):
    def __init__(self, html):
        super().__init__()
        self.hrefs = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.hrefs += [unquote(value) for name, value in attrs if name == "href"]


def words_a_reader_sees(text):
    """The words of the text as shown (numbered items with their numbers), and of its links'
    addresses."""
    shown = plain(text) + " " + " ".join(Addresses(str(render(text))).hrefs)
    return Counter(WORD.findall(shown))


def test_the_bundled_cases_have_texts_in_both_languages():
    assert len(BUNDLED) > 200
    assert {where.split(".")[-1] for where in BUNDLED} == set(LANGUAGES)


def test_every_bundled_text_keeps_every_word():
    problems = []
    for where, text in BUNDLED.items():
        written = Counter(WORD.findall(ESCAPE.sub(r"\1", text)))
        if missing := written - words_a_reader_sees(text):
            problems.append(f"{where}: rendered without {sorted(missing)}")
    assert problems == []


@pytest.mark.parametrize(
    ("text", "lost"),
    [
        ("Founded in 1977.\n\n1990. The year it failed.\n\n1995. The year it recovered.", "1995"),
        ("Call __init__ twice", "__init__"),
        ("[the report](https://example.org/r)", None),
        ("1. first\n2. second", None),
    ],
)
def test_the_check_finds_a_lost_word(text, lost):
    missing = Counter(WORD.findall(text)) - words_a_reader_sees(text)
    assert (sorted(missing) or [None])[0] == lost
