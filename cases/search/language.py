"""English word forms and common words, the same on the text's side and the query's.

A case's search text holds, beside each English word, its Snowball English stem marked
with STEM_MARK ("_delet" for "deleted", "deletion", "deletes"), so that a query word finds
the other forms of it by its own stem. The mark keeps stems apart from words: a query word
matches words by their beginnings, and "delet" should not become a word that "del" finds.
Korean has no stems here: a Korean query word matches word beginnings, which is what its
particles need.
"""

from functools import lru_cache

import snowballstemmer

STEM_MARK = "_"
# Words so common that they decide nothing; a query made only of them keeps them. (The
# Snowball English stop list, less the words an incident can turn on: "not", "off",
# "down", "over", "out", "up".)
STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "now",
        "of",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
    ]
)
_STEMMER = snowballstemmer.stemmer("english")


def is_english(word):
    """A word the English stemmer applies to: Latin letters only (no digits: "s3" and
    "h100" are names, not words with forms)."""
    return word.isascii() and word.isalpha()


@lru_cache(maxsize=1 << 16)
def stem(word):
    """The Snowball English stem of a casefolded word, or None for a word that has no
    other forms to find (not English, or too short to have any)."""
    if len(word) < 3 or not is_english(word):
        return None
    return _STEMMER.stemWord(word)


def stem_tokens(words):
    """The marked stems of `words` that differ from the words themselves, each once: what
    a search text adds so that other forms of its words find it."""
    tokens = {}
    for word in words:
        root = stem(word)
        if root and root != word:
            tokens[STEM_MARK + root] = None
    return list(tokens)


def meaningful(words):
    """The words without common ones, unless that leaves none."""
    kept = [word for word in words if word not in STOPWORDS]
    return kept or list(words)
