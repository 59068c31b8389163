"""What a search result shows of where its words occur: a short snippet of a case's text
and its title, the matched words marked (`<mark>`), everything else escaped.

The words are found as the search finds them (cases.search.text): in casefolded text,
a word is a run of letters and digits (underscores separate), and a query word matches
a text word that begins with it, or, for English, whose Snowball stem is its stem
("deleted" finds "deletion"). A phrase is its words in a row, with only spaces or
punctuation between them.

What is marked: a whole word when the rest of it after the query word is ASCII (an
English ending or compound: "check" marks all of "checkpoints"), and only the query word
when the rest is not ("체크포인트" marks 체크포인트 in 체크포인트를, leaving the particle, as
in "HDFS에서"), so that a Korean reader sees the noun they asked for; a phrase as one mark.

Speed: a card's texts are compared by quick substring bounds and their Markdown sources'
matches, and only the one chosen is made plain text (markdown-it, the slow part; kept in
an LRU as `markdown.render` keeps HTML). Words are found by regular expressions over the
whole text, so Python sees only the matches and, for stems, the ASCII words that begin as
a stem does (their stems cached). The library's own cases (4,000 characters in 13 texts
a card, English and Korean) cost 0.04-0.12 ms a card, the title included, once their
plain texts are kept, 0.13-0.26 ms when not (two cores, busy with other work). A text of
50,000 characters costs what markdown-it takes to read it, and MAX_HITS bounds the rest.
"""

import functools
import re
from collections import Counter
from dataclasses import dataclass

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from cases.markdown import CACHE_SIZE, CACHED_TEXT_LENGTH, plain

from .language import stem as english_stem
from .parsing import parse
from .text import MAX_WORD_LENGTH

ELLIPSIS = "…"
NOT_WORD_BEFORE = r"(?<![^\W_])"  # at the start of a word: no letter or digit before
WORD_REST = re.compile(r"[^\W_]*")
SPACE = re.compile(r"\s")
# Plenty for a snippet of a few hundred characters; 25,000 in a text of a word repeated
# (case texts reach 50,000 characters) would take a quarter of a second.
MAX_HITS = 500


def stem(word):
    """The Snowball English stem of a casefolded ASCII word (the word itself where the
    search gives it none: too short, or with digits)."""
    return english_stem(word) or word


@dataclass
class Hit:
    """Where the text has query words: [start, end) to mark, and which query words
    (their keys) it satisfies."""

    start: int
    end: int
    keys: set


class Highlighter:
    """Finds a query's words in a text: `words` casefolded prefixes, `stems` Snowball stems
    of its English words, `phrases` lists of casefolded words to find in a row."""

    def __init__(self, words, stems, phrases):
        self.words = tuple(dict.fromkeys(word for word in words if word))
        self.stems = frozenset(s for s in stems if s)
        self.phrases = [list(phrase) for phrase in phrases if phrase]
        # One key per query word, so that "deleted", found as a prefix and by its stem,
        # counts once when snippets compare how many of the words a passage has.
        self.key_of = {
            word: stem(word) if word.isascii() and stem(word) in self.stems else word
            for word in self.words
        }
        self.prefix_pattern = alternatives(self.words)
        # Only words beginning as a stem does can have it (see `stem_kept`).
        self.stem_candidates = alternatives({stem_kept(s) for s in self.stems if s.isascii()})
        # Phrases are rare and span words: each checks for a word's start as it goes.
        self.phrase_patterns = [
            re.compile(
                NOT_WORD_BEFORE
                + r"[^\W_]*[\W_]+".join(re.escape(word) for word in phrase[:-1])
                + (r"[^\W_]*[\W_]+" if len(phrase) > 1 else "")
                + f"({re.escape(phrase[-1])})"
            )
            for phrase in self.phrases
        ]
        # What a text must contain (anywhere) for each query word to be in it.
        self.needles = [([word], self.key_of[word]) for word in self.words]
        self.needles += [([stem_kept(s)], s) for s in self.stems]
        self.needles += [(phrase, ("phrase", i)) for i, phrase in enumerate(self.phrases)]

    def __bool__(self):
        return bool(self.words or self.stems or self.phrases)

    def at_most(self, text):
        """At least as many distinct query words as `text` has (substring tests: a
        hundred times as fast as finding them)."""
        folded = text.casefold()
        return len({key for needles, key in self.needles if all(n in folded for n in needles)})

    def hits(self, text):
        """The non-overlapping stretches of `text` to mark, in order: all of them, or in
        a text with more than MAX_HITS, those before the first one past MAX_HITS."""
        folded = text.casefold()
        limit = len(folded)
        tokens = {}  # start of a matched word -> the word (casefolded)
        if self.prefix_pattern:
            for start, word in words_found(self.prefix_pattern, folded):
                if len(tokens) == MAX_HITS:
                    limit = start
                    break
                tokens[start] = word
        if self.stem_candidates:
            stemmed = 0
            for start, word in words_found(self.stem_candidates, folded):
                if start >= limit or stemmed == MAX_HITS:
                    limit = min(limit, start)
                    break
                if start not in tokens and self.stem_of(word):
                    tokens[start] = word
                    stemmed += 1
        found = [self.word_hit(start, word) for start, word in tokens.items() if start < limit]
        for index, pattern in enumerate(self.phrase_patterns):
            for number, match in enumerate(pattern.finditer(folded, 0, limit)):
                if number == MAX_HITS:
                    break
                last = folded[match.start(1) : WORD_REST.match(folded, match.end(1)).end()]
                end = match.start(1) + marked_length(last, len(match.group(1)))
                found.append(Hit(match.start(), end, {("phrase", index)}))
        merged = merge(found)
        if len(folded) != len(text):  # casefolding lengthened a character (ß, ﬁ, İ)
            merged = to_original(text, merged)
        return merged

    def word_hit(self, start, token):
        matched = [word for word in self.words if token.startswith(word)]
        keys = {self.key_of[word] for word in matched}
        if token_stem := self.stem_of(token):
            keys.add(token_stem)
            return Hit(start, start + len(token), keys)
        return Hit(start, start + marked_length(token, max(map(len, matched))), keys)

    def stem_of(self, word):
        """The word's stem if it is one of the query's. (The search has no word as long
        as MAX_WORD_LENGTH, and stemming 50,000 letters would take 40 ms.)"""
        if self.stems and word.isascii() and len(word) <= MAX_WORD_LENGTH:
            word_stem = stem(word)
            return word_stem if word_stem in self.stems else None
        return None

    def mark(self, text) -> SafeString:
        """The whole of a short text (a title), escaped, its matches marked."""
        text = str(text or "")
        return mark_safe(marked_html(text, self.hits(text), 0, len(text)))


def words_found(pattern, folded):
    """(start, word) of each word of `folded` that begins with a match of `pattern`.

    The pattern matches anywhere and a match inside a word is passed over, with the rest
    of its word: a look-behind for a word's start would make it three times as slow."""
    position = 0
    while match := pattern.search(folded, position):
        start = match.start()
        position = WORD_REST.match(folded, match.end()).end()
        if not start or not folded[start - 1].isalnum():
            yield start, folded[start:position]
        position = max(position, start + 1)


def stem_kept(word_stem):
    """What every word with this stem begins with: all of it but the last two letters
    (Snowball's English changes endings only: y to i, an e added, -ying to -ie, -ational
    to -ate...; tests/search/test_snippets.py checks it), and at least the first."""
    return word_stem[: max(1, len(word_stem) - 2)]


def alternatives(words):
    """A pattern finding any of the words (the longest first, where one begins another)."""
    if not words:
        return None
    longest_first = sorted(words, key=lambda word: (-len(word), word))
    return re.compile("|".join(map(re.escape, longest_first)))


def marked_length(token, prefix_length):
    """How much of a matched word to mark: all of it when the rest is an English ending
    or compound, the query word alone when the rest is, say, a Korean particle."""
    return len(token) if token[prefix_length:].isascii() else prefix_length


def merge(hits):
    """Overlapping hits (a phrase and its words) as one, with all their keys."""
    merged = []
    for hit in sorted(hits, key=lambda hit: (hit.start, -hit.end)):
        if merged and hit.start < merged[-1].end:
            merged[-1].end = max(merged[-1].end, hit.end)
            merged[-1].keys |= hit.keys
        else:
            merged.append(Hit(hit.start, hit.end, set(hit.keys)))
    return merged


def to_original(text, hits):
    """Hits in the casefolded text, moved to the text's own positions."""
    original = []  # position in the casefolded text -> the character it came from
    for position, character in enumerate(text):
        original.extend([position] * len(character.casefold()))
    return [Hit(original[hit.start], original[hit.end - 1] + 1, hit.keys) for hit in hits]


def marked_html(text, hits, start, end):
    """text[start:end], escaped, with the hits within it marked."""
    parts = []
    position = start
    for hit in hits:
        hit_start, hit_end = max(hit.start, start), min(hit.end, end)
        if hit_start >= hit_end:
            continue
        parts += [escape(text[position:hit_start]), "<mark>", escape(text[hit_start:hit_end])]
        parts.append("</mark>")
        position = hit_end
    parts.append(escape(text[position:end]))
    return "".join(parts)


def distinct(hits):
    return len(set().union(*(hit.keys for hit in hits)))


def plain_text(text):
    """A case text as one line of plain text: what a snippet is cut from. (Kept as
    `markdown.render` keeps its HTML: a text is searched again by the next query.)"""
    if len(text) > CACHED_TEXT_LENGTH:
        return one_line(text)
    return cached_one_line(text)


def one_line(text):
    return " ".join(plain(text).split())


cached_one_line = functools.lru_cache(maxsize=CACHE_SIZE)(one_line)


def snippet(texts, matcher, *, length=200) -> SafeString:
    """About `length` characters of the first of `texts` (Markdown) that has the most of
    the query's words, around where most of them are together, escaped and marked;
    the start of the first text when none has any."""
    return find_snippet(texts, matcher, length=length)[0]


def find_snippet(texts, matcher, *, length=200):
    """(the snippet, the index in `texts` of the text it comes from, or None)."""
    # Only the text chosen is made plain (the slow part): the texts are compared by their
    # Markdown sources, each searched only if a quick bound says it could do better. (A
    # word written with emphasis inside, `**dis**k`, counts only in the plain text.)
    candidates = [(index, text) for index, text in enumerate(texts) if text and text.strip()]
    bounds = {index: matcher.at_most(text) for index, text in candidates}
    best = None  # (distinct words, index, plain text, hits)
    for index, text in sorted(candidates, key=lambda item: -bounds[item[0]]):
        if not bounds[index] or (best and best[0] >= bounds[index]):
            break
        if best and best[0] >= distinct(matcher.hits(text)):
            continue
        shown = plain_text(text)
        hits = matcher.hits(shown)
        if best is None or distinct(hits) > best[0]:
            best = (distinct(hits), index, shown, hits)
    if best is None or not best[0]:
        best = next(
            ((0, index, shown, []) for index, text in candidates if (shown := plain_text(text))),
            None,
        )
    if best is None:
        return mark_safe(""), None
    _count, index, shown, hits = best
    start, end = window(shown, hits, length)
    html = marked_html(shown, hits, start, end)
    before = ELLIPSIS if start > 0 else ""
    after = ELLIPSIS if end < len(shown) else ""
    return mark_safe(f"{before}{html}{after}"), index


def densest(hits, length):
    """The run of hits spanning at most `length` characters with the most distinct query
    words (the first such run): (first, past the last)."""
    best = (0, 0, 0)  # (distinct keys, first, past the last)
    keys = Counter()
    last = 0
    for first, hit in enumerate(hits):
        while last < len(hits) and (last == first or hits[last].end - hit.start <= length):
            keys.update(hits[last].keys)
            last += 1
        if len(keys) > best[0]:
            best = (len(keys), first, last)
        keys.subtract(hit.keys)
        keys += Counter()  # drop the zeros, so that len() counts the keys present
    return best[1], best[2]


def window(text, hits, length):
    """[start, end) of the text to show: the densest hits, with some of what comes before
    them (from a sentence's start if one is near), cut between words."""
    if len(text) <= length:
        return 0, len(text)
    if not hits:
        return 0, cut_end(text, length, 0)
    first, last = densest(hits, length)
    span_start, span_end = hits[first].start, min(hits[last - 1].end, hits[first].start + length)
    room = length - (span_end - span_start)
    if span_start <= room // 2:
        start = 0
    else:
        sentence = text.rfind(". ", span_start - room // 2, span_start)
        if sentence >= 0:
            start = sentence + 2
        else:
            start = cut_start(text, span_start - room // 3, span_start)
    return start, cut_end(text, start + length, span_end)


def cut_start(text, position, limit):
    """The start of the first word at or after `position` (not past `limit`)."""
    if position == 0 or text[position - 1].isspace():
        return position
    space = SPACE.search(text, position, limit)
    return space.end() if space else limit


def cut_end(text, position, limit):
    """The end of the last word before `position` (not before `limit`), without the
    space and the comma before it."""
    if position >= len(text):
        return len(text)
    if not text[position].isspace():
        space = text.rfind(" ", limit, position)
        position = space if space >= 0 else max(position, limit)
    while position > limit and text[position - 1] in " ,;:":
        position -= 1
    return position


def highlighter_for(query):
    """A Highlighter for a search: a plan's (cases.search.parsing) words, with the other
    names of what they name and their corrections, their English stems and its phrases;
    or, given a query's text, its own words."""
    plan = parse(query) if isinstance(query, str) else query
    return Highlighter(*plan.highlights())
