"""The names a reader may use for one thing, in either language: an organisation's name and
its aliases (Facebook / Meta / 페이스북), a term's labels and aliases (Kubernetes /
쿠버네티스), and the common words of the glossary (장애 / outage).

A query that uses one of them finds what any of them finds, and a query that names an
organisation or a term ranks that organisation's or term's cases first. The book is read
once per version of the public content (it is kept with the facet index): organisations
the public may see, and those no case names yet (entries of the taxonomy file, which is
public); public terms; the glossary.
"""

from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import Exists, OuterRef, Q

from cases.rules import LANGUAGES

from .glossary import GLOSSARY
from .text import words_of

# A name of more words than this is no name a reader types.
MAX_NAME_WORDS = 6


@dataclass
class Group:
    """Names of one thing, each a tuple of words."""

    names: list = field(default_factory=list)
    organisations: set = field(default_factory=set)  # primary keys
    terms: set = field(default_factory=set)  # primary keys


@dataclass
class Named:
    """What some consecutive words of a query name: `length` words, the names that stand
    for them, and the organisations and terms they name."""

    length: int
    names: list
    organisations: set
    terms: set


class NameBook:
    def __init__(self):
        self._groups = []
        self._by_first_word = defaultdict(set)  # first word -> names (word tuples)
        self._groups_of = defaultdict(list)  # name -> groups

    def add(self, names, *, organisation=None, term=None):
        group = Group()
        for name in names:
            words = tuple(words_of(name or ""))
            if not words or len(words) > MAX_NAME_WORDS or words in group.names:
                continue
            group.names.append(words)
            self._by_first_word[words[0]].add(words)
            self._groups_of[words].append(group)
        if organisation is not None:
            group.organisations.add(organisation)
        if term is not None:
            group.terms.add(term)
        if group.names:
            self._groups.append(group)

    def named(self, words, start):
        """The longest name beginning at `words[start]`, as Named, or None. What shorter
        names there name too: "아마존 S3" is a product's name, and "아마존" names Amazon."""
        candidates = self._by_first_word.get(words[start], ())
        found = sorted(
            (name for name in candidates if tuple(words[start : start + len(name)]) == name),
            key=len,
            reverse=True,
        )
        if not found:
            return None
        longest = found[0]
        names = list(
            dict.fromkeys(name for group in self._groups_of[longest] for name in group.names)
        )
        organisations, terms = set(), set()
        # Every thing known by one of these names: "Facebook" may be an organisation of
        # its own beside Meta, whose alias it is.
        for name in names + found[1:]:
            for group in self._groups_of[name]:
                organisations |= group.organisations
                terms |= group.terms
        return Named(len(longest), names, organisations, terms)


def name_book(using, terms):
    """The book of the public content that `terms` (the public terms) belong to."""
    from cases.models import Case, Organisation

    book = NameBook()
    for entry in GLOSSARY:
        book.add(entry)
    for term in terms:
        names = [getattr(term, f"label_{language}") for language in LANGUAGES]
        for language in LANGUAGES:
            names += term.alias_list(language)
        book.add(names, term=term.pk)
    cases = Case.objects.using(using)
    named_by_public = Exists(cases.public().filter(org=OuterRef("pk")))
    named_by_none = ~Exists(cases.filter(org=OuterRef("pk")))
    organisations = Organisation.objects.using(using).filter(Q(named_by_public) | Q(named_by_none))
    for organisation in organisations.order_by("pk"):
        names = [organisation.name, organisation.name_ko, organisation.slug.replace("-", " ")]
        for language in LANGUAGES:
            names += organisation.alias_list(language)
        book.add(names, organisation=organisation.pk)
    return book
