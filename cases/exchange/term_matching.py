"""What an import does with a slug that no term has as its own.

Catalogues name their categories freely: `config-change` where the taxonomy says
configuration-error (alias "config change"), `outage` for service-unavailable. Such a slug
goes to the term of its vocabulary whose slug, label or alias in either language has the
same name key (case, spaces and punctuation aside), or whose former slug it is (a merge's
TermRedirect). Only a name that one term has maps: where two share it ("reverse proxy", a
load balancer's and a CDN edge's alias), guessing would put cases under the wrong term.

A slug that maps nowhere becomes a new term, unreviewed (Term.reviewed): the public does not
see it until a reviewer accepts it or merges it into a term it does see.
"""

from collections import defaultdict
from dataclasses import dataclass, field

from cases.models import Term, TermRedirect, Vocabulary
from cases.rules import LANGUAGES, name_key


def names_of(term):
    """Every name a term answers to: its slug, labels and aliases in both languages."""
    names = [term.slug]
    for language in LANGUAGES:
        names.append(getattr(term, f"label_{language}") or "")
        names += term.alias_list(language)
    return names


@dataclass(frozen=True)
class TermChoice:
    """What an import did with one slug no term has: `term` is the term it maps to, or
    None for a new, unreviewed term; `candidates`, the slugs of the terms whose shared
    name it matched when there were several."""

    vocabulary: str
    slug: str
    term: Term | None = None
    candidates: tuple = field(default=())

    @property
    def is_new(self):
        return self.term is None

    @property
    def vocabulary_label(self):
        return Vocabulary(self.vocabulary).label

    def __str__(self):
        if self.term is not None:
            return f"{self.vocabulary}: {self.slug} → {self.term.label_en} ({self.term.slug})"
        if self.candidates:
            return (
                f"{self.vocabulary}: {self.slug} (new; its name matches "
                f"{', '.join(self.candidates)})"
            )
        return f"{self.vocabulary}: {self.slug} (new)"


class TermMatcher:
    """The terms by name, read at the first slug it is asked about (an import whose slugs
    are all known reads nothing more), and kept for the run: the terms one batch creates
    are found by the next. `choices` keeps what became of every slug it was asked about."""

    def __init__(self):
        self.choices = {}  # (vocabulary, slug) -> TermChoice
        self.created = set()  # (vocabulary, slug) of the new terms made
        self._by_name = None  # (vocabulary, name key) -> {term pk: term}
        self._redirects = None  # (vocabulary, old slug) -> term

    def _load(self):
        self._by_name = defaultdict(dict)
        for term in Term.objects.all():
            self.add(term)
        self._redirects = {
            (redirect.vocabulary, redirect.old_slug): redirect.term
            for redirect in TermRedirect.objects.select_related("term")
        }

    def add(self, term, *, created=False):
        """Know a term created since the names were read (`created`: by this run)."""
        if created:
            self.created.add((term.vocabulary, term.slug))
        if self._by_name is None:
            return  # read with the others when first needed
        for name in names_of(term):
            if key := name_key(name):
                self._by_name[(term.vocabulary, key)][term.pk] = term

    def choose(self, vocabulary, slug):
        """The TermChoice for a slug that no term of `vocabulary` has as its own."""
        known = self.choices.get((vocabulary, slug))
        if known is not None:
            return known
        if self._by_name is None:
            self._load()
        choice = TermChoice(vocabulary, slug)
        if (vocabulary, slug) in self._redirects:
            choice = TermChoice(vocabulary, slug, self._redirects[(vocabulary, slug)])
        elif matches := list(self._by_name.get((vocabulary, name_key(slug)), {}).values()):
            # A reviewed term's name outranks one an earlier import only held for review.
            matches = [term for term in matches if term.reviewed] or matches
            if len(matches) == 1:
                choice = TermChoice(vocabulary, slug, matches[0])
            else:
                choice = TermChoice(
                    vocabulary, slug, candidates=tuple(sorted(term.slug for term in matches))
                )
        self.choices[(vocabulary, slug)] = choice
        return choice

    def report(self):
        """The choices made, mapped ones first, each group by vocabulary and slug; of the
        new terms, those made (a skipped case's are not)."""
        made = [
            choice
            for key, choice in self.choices.items()
            if not choice.is_new or key in self.created
        ]
        return sorted(made, key=lambda c: (c.is_new, c.vocabulary, c.slug))
