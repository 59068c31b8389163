"""Whether a suggested address is already in the library: the cases and suggestions that
cite the same page, or one very like it, for the triager to see.

Two addresses are compared by their key (cases.addresses.address_key).

- An exact match has the same key.
- A near match has the same host and either the same path but for letter case and the
  query (`/Blog/Outage?page=2` and `/blog/outage`), or the same last path segment, of at
  least NEAR_SEGMENT_LENGTH characters and without an `.html`-like ending
  (`/2024/05/big-outage` and `/engineering/big-outage.html`): the same page moved.
"""

from dataclasses import dataclass

from django.utils.translation import gettext_lazy as _

from cases.addresses import address_key, parse_address
from cases.models import Case, Source, Suggestion

__all__ = ["EXACT", "NEAR", "address_key", "find_matches", "likeness"]

# A shorter last segment ("2024", "index", "p1") says too little to call two pages alike.
NEAR_SEGMENT_LENGTH = 6

EXACT, NEAR = "exact", "near"
KIND_LABELS = {EXACT: _("same address"), NEAR: _("similar address")}


def likeness(suggested, other):
    """EXACT, NEAR or None: how the address `other` compares with the parsed `suggested`."""
    address = parse_address(other)
    if address is None or address.host != suggested.host:
        return None
    if address.key == suggested.key:
        return EXACT
    if address.path.lower() == suggested.path.lower():
        return NEAR
    segment = suggested.last_segment
    if len(segment) >= NEAR_SEGMENT_LENGTH and address.last_segment == segment:
        return NEAR
    return None


@dataclass
class Match:
    kind: str  # EXACT or NEAR
    url: str  # the address that matched
    case: Case | None = None
    suggestion: Suggestion | None = None

    @property
    def kind_label(self):
        return KIND_LABELS[self.kind]


def with_host(queryset, field, address):
    """The rows whose address names the host: a narrow scan that every match passes
    (a host, lowercase, is in any spelling of its addresses, but for letter case)."""
    host = address.host.split(":", 1)[0]
    return queryset.filter(**{f"{field}__icontains": host})


def find_matches(url, *, exclude_suggestion=None):
    """The cases and earlier suggestions whose address is the suggested one's or like it:
    exact matches first, each case and suggestion once, at its best match. Three queries.

    A case counts by its canonical address and each of its sources; a pending revision's
    copy counts as its case.
    """
    suggested = parse_address(url)
    if suggested is None:
        return []
    found = {}

    def consider(key, match):
        if match.kind and (key not in found or (found[key].kind, match.kind) == (NEAR, EXACT)):
            found[key] = match

    cases = with_host(Case.objects.live(), "source_url", suggested).only(
        "public_id", "title_en", "title_ko", "status", "source_url"
    )
    for case in cases:
        consider(
            ("case", case.pk), Match(likeness(suggested, case.source_url), case.source_url, case)
        )
    sources = with_host(Source.objects.filter(case__draft_of__isnull=True), "url", suggested)
    for source in sources.select_related("case").only(
        "url", "case__public_id", "case__title_en", "case__title_ko", "case__status"
    ):
        consider(
            ("case", source.case_id),
            Match(likeness(suggested, source.url), source.url, source.case),
        )
    suggestions = with_host(Suggestion.objects.all(), "source_url", suggested)
    if exclude_suggestion is not None:
        suggestions = suggestions.exclude(pk=exclude_suggestion.pk)
    for earlier in suggestions.only("source_url", "status", "sent_at"):
        consider(
            ("suggestion", earlier.pk),
            Match(likeness(suggested, earlier.source_url), earlier.source_url, suggestion=earlier),
        )
    order = {EXACT: 0, NEAR: 1}
    return sorted(
        found.values(),
        key=lambda m: (
            order[m.kind],
            m.case is None,
            m.case.public_id if m.case else m.suggestion.pk,
        ),
    )
