"""Search snippets: what a result shows of where the query's words occur, marked."""

import html
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from cases.search.snippets import (
    Highlighter,
    highlighter_for,
    plain_text,
    snippet,
    stem,
    stem_kept,
)

MARK = re.compile(r"</?mark>")


def marked(html_text):
    """The marked stretches of a snippet, as text."""
    return [html.unescape(part) for part in re.findall(r"<mark>(.*?)</mark>", html_text)]


def shown(html_text):
    """A snippet as the reader reads it: no tags, no entities."""
    return html.unescape(MARK.sub("", html_text))


# --- which words are marked ---------------------------------------------------------


def test_a_query_word_marks_the_english_words_it_begins_whole():
    result = highlighter_for("check").mark("Checkpoints and check-ins, not rechecks")
    assert marked(result) == ["Checkpoints", "check"]


def test_a_korean_word_marks_the_noun_and_leaves_its_particle():
    result = highlighter_for("체크포인트").mark("모델 체크포인트를 만들지 못했다")
    assert str(result) == "모델 <mark>체크포인트</mark>를 만들지 못했다"


def test_an_english_word_with_a_korean_particle_marks_the_word_alone():
    result = highlighter_for("hdfs").mark("HDFS에서 쓰기가 실패했다")
    assert str(result) == "<mark>HDFS</mark>에서 쓰기가 실패했다"


def test_a_word_is_not_found_inside_another():
    result = highlighter_for("site").mark("The website went down; the site came back")
    assert marked(result) == ["site"]


def test_underscores_separate_words():
    result = highlighter_for("timeout").mark("read_timeout exceeded")
    assert str(result) == "read_<mark>timeout</mark> exceeded"


def test_english_words_are_also_found_by_their_stem():
    assert marked(highlighter_for("deleted").mark("After the deletion, nothing")) == ["deletion"]
    assert marked(highlighter_for("sites").mark("One site, two sites")) == ["site", "sites"]
    assert marked(highlighter_for("sites").mark("The situation")) == []


def test_a_stem_finds_words_that_change_more_than_their_ending():
    assert marked(highlighter_for("dies").mark("A dying disk")) == ["dying"]
    assert marked(highlighter_for("happiness").mark("Happy users")) == ["Happy"]


SUFFIXES = ["", "s", "es", "ies", "ied", "ed", "eed", "ing", "ingly", "edly", "y", "ly", "li"]
SUFFIXES += ["ational", "tional", "ization", "ation", "ator", "alism", "aliti", "alli", "ousli"]
SUFFIXES += ["fulness", "iveness", "iviti", "biliti", "ability", "ibility", "bli", "ogi", "enci"]
SUFFIXES += ["anci", "abli", "entli", "icate", "iciti", "ical", "ative", "alize", "ement", "ness"]


@settings(max_examples=2000, deadline=None)
@given(
    st.text("abdegilnorstuy", max_size=5),
    st.sampled_from(SUFFIXES),
    st.sampled_from(["", "s", "ly", "ed", "ing", "ness", "es"]),
)
def test_every_word_begins_with_what_its_stem_keeps(start, suffix, ending):
    """Which words are stemmed at all rests on this (Highlighter.stem_candidates)."""
    word = start + suffix + ending
    assert word.startswith(stem_kept(stem(word)))


def test_text_is_casefolded_as_the_search_does():
    result = highlighter_for("strasse").mark("Die Straße, die STRASSE")
    assert marked(result) == ["Straße", "STRASSE"]


def test_a_phrase_is_marked_only_where_its_words_are_in_a_row():
    result = highlighter_for('"disk full"').mark("Disk full; disk-Full; the disk was full")
    assert marked(result) == ["Disk full", "disk-Full"]


def test_a_phrase_and_a_word_inside_it_are_one_mark():
    result = highlighter_for('full "disk full"').mark("disk full, then full again")
    assert marked(result) == ["disk full", "full"]


def test_the_highlighter_of_a_query_has_its_words_stems_and_phrases():
    highlighter = highlighter_for('Deleted 체크포인트를 "disk  full" "sites')
    # The Korean word's noun, without its particle, is searched (and marked) too.
    assert highlighter.words == ("deleted", "체크포인트를", "체크포인트", "sites")
    assert highlighter.stems == {"delet", "site"}
    assert highlighter.phrases == [["disk", "full"]]


def test_a_query_of_punctuation_alone_marks_nothing():
    highlighter = highlighter_for('"" ?!')
    assert not highlighter
    assert str(highlighter.mark("a text")) == "a text"


# --- escaping -------------------------------------------------------------------------


def test_hostile_text_is_escaped_and_its_marks_stay_marks():
    text = """<script>alert("x")</script> & 'mark' </mark><mark>"""
    result = str(highlighter_for("script mark").mark(text))
    assert result == (
        "&lt;<mark>script</mark>&gt;alert(&quot;x&quot;)&lt;/<mark>script</mark>&gt; &amp; "
        "&#x27;<mark>mark</mark>&#x27; &lt;/<mark>mark</mark>&gt;&lt;<mark>mark</mark>&gt;"
    )


def test_a_hostile_snippet_is_escaped():
    result = str(snippet(["a <img src=x onerror=alert(1)> disk & more"], highlighter_for("disk")))
    assert result == "a &lt;img src=x onerror=alert(1)&gt; <mark>disk</mark> &amp; more"


# --- the snippet ----------------------------------------------------------------------

FILLER = "Nothing of note happened in this sentence at all. "


def test_a_short_text_is_shown_whole_without_ellipses():
    result = snippet(["The checkpoint was lost."], highlighter_for("checkpoint"))
    assert str(result) == "The <mark>checkpoint</mark> was lost."


def test_the_window_is_where_most_distinct_words_are_together():
    text = "The disk filled. " + FILLER * 6 + "Then the disk was full and writes failed. "
    text += FILLER * 6
    result = str(snippet([text], highlighter_for("disk writes"), length=120))
    assert marked(result) == ["disk", "writes"]
    assert result.startswith("…Then the <mark>disk</mark>")  # from the sentence's start
    assert result.endswith("…")


def test_the_text_with_the_most_distinct_words_is_chosen_the_first_of_equals():
    texts = ["", "Only the disk.", "The disk and the writes.", "The writes and the disk."]
    result = snippet(texts, highlighter_for("disk writes"))
    assert shown(result) == "The disk and the writes."


def test_a_cut_window_has_ellipses_and_whole_words():
    text = FILLER * 5 + "Writes to the checkpoint directory failed" + " and more words" * 30
    result = str(snippet([text], highlighter_for("checkpoint"), length=100))
    assert result.startswith("…") and result.endswith("…")
    inner = shown(result)[1:-1]
    position = plain_text(text).index(inner)
    assert position > 0 and plain_text(text)[position - 1] == " "
    assert plain_text(text)[position + len(inner)] == " "
    assert len(inner) <= 100
    assert "<mark>checkpoint</mark>" in result


def test_a_match_near_the_start_shows_the_start():
    text = "Checkpoint writes failed. " + FILLER * 10
    result = str(snippet([text], highlighter_for("writes"), length=100))
    assert result.startswith("Checkpoint <mark>writes</mark> failed.")
    assert result.endswith("…")


def test_without_a_match_the_start_of_the_first_text_is_shown():
    texts = ["", "  ", FILLER * 10, "A disk."]
    result = str(snippet(texts, highlighter_for("quorum"), length=80))
    assert "<mark>" not in result
    assert (
        result == "Nothing of note happened in this sentence at all. Nothing of note happened in…"
    )


def test_a_text_of_one_word_repeated_is_marked_where_shown():
    result = str(snippet(["disk " * 20_000], highlighter_for("disk"), length=50))
    assert result == "<mark>disk</mark> " * 9 + "<mark>disk</mark>…"


def test_no_text_no_snippet():
    assert snippet(["", None], highlighter_for("disk")) == ""


def test_markdown_is_shown_as_its_text():
    texts = [
        "The **disk** filled: see [the report](https://example.com/full-disk).\n\n- `df` said 100%"
    ]
    result = str(snippet(texts, highlighter_for("disk report")))
    assert result == ("The <mark>disk</mark> filled: see the <mark>report</mark>. • df said 100%")


def test_a_word_only_in_a_link_address_does_not_choose_the_text():
    texts = ["[The postmortem](https://example.com/disk)", "The disk filled."]
    assert str(snippet(texts, highlighter_for("disk"))) == "The <mark>disk</mark> filled."


# --- any text, any query --------------------------------------------------------------

ALPHABET = st.sampled_from(list("abcdeDISKß_ 체크포인트를에서.,-*[]()<>&\"'`#\n!/:"))
TEXT = st.text(ALPHABET, max_size=300)
QUERY_WORD = st.text(st.sampled_from(list("abcdeDISKß체크포인트")), min_size=1, max_size=4)
ENTITY_OR_TEXT = re.compile(r"&(?:amp|lt|gt|quot|#x27);|[^&<>\"']")


def assert_safe(result):
    tags = re.findall(r"<[^>]*>", str(result))
    assert tags == ["<mark>", "</mark>"] * (len(tags) // 2)  # balanced, never nested
    assert "<mark></mark>" not in str(result)
    assert ENTITY_OR_TEXT.sub("", MARK.sub("", str(result))) == ""  # nothing unescaped


@settings(max_examples=300, deadline=None)
@given(st.lists(TEXT, max_size=3), st.lists(QUERY_WORD, max_size=3), st.booleans())
def test_any_snippet_is_escaped_marked_text_of_one_of_the_texts(texts, words, quoted):
    query = " ".join(words)
    highlighter = highlighter_for(f'"{query}" x' if quoted else query)
    result = snippet(texts, highlighter, length=60)
    assert_safe(result)
    text = shown(result)
    if not text:
        assert all(not plain_text(t) for t in texts)
        return
    starts_cut, ends_cut = text.startswith("…"), text.endswith("…")
    inner = text[starts_cut : len(text) - ends_cut]
    plains = [plain_text(t) for t in texts]
    assert any(
        inner in p and (starts_cut or p.startswith(inner)) and (ends_cut or p.endswith(inner))
        for p in plains
    )


@settings(max_examples=300, deadline=None)
@given(TEXT, st.lists(QUERY_WORD, max_size=3))
def test_any_title_is_escaped_and_marked_whole(text, words):
    result = Highlighter(words=[w.casefold() for w in words], stems=[], phrases=[]).mark(text)
    assert_safe(result)
    assert shown(result) == text
