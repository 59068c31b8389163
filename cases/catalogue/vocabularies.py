"""The taxonomy's vocabularies, once: everything the code says about each of them.

A row names a vocabulary as the database stores it (`Term.vocabulary`, the choices of
`cases.models.Vocabulary`), as the list's query string filters on it, as the exchange
format lists it, how readers see it called, whether the graph has a tab of it, and the
colour its terms are drawn in. Everything else (the list's facets, the exchange's list
fields, the graph's tabs and legend) is read from this table.

Imports no models, so that the models can build their choices from it.
"""

from typing import NamedTuple

from django.utils.translation import gettext_lazy as _


class VocabularyRow(NamedTuple):
    value: str  # Term.vocabulary
    facet: str  # the list's query parameter, and the graph's tab
    label: str  # lazy: translated when shown
    list_field: str | None  # the exchange format's list of slugs (root_cause: one slug)
    graph_tab: bool  # the graph draws its terms and has a tab of them
    colour: str  # of its terms' nodes in the graph and their swatch in the legend


# In the order of the list's facets and of the choices (the migrations hold that order).
VOCABULARIES = (
    VocabularyRow("root_cause", "cause", _("Cause"), None, True, "#b42318"),
    VocabularyRow("component", "component", _("Component"), "components", True, "#0b5cad"),
    VocabularyRow("symptom", "symptom", _("Symptom"), "symptoms", True, "#7a4cc2"),
    VocabularyRow(
        "contributing", "contributing", _("Contributing factor"), "contributing", True, "#b45309"
    ),
    VocabularyRow("domain", "domain", _("Domain"), "domain", False, "#4b5563"),
)
BY_VALUE = {row.value: row for row in VOCABULARIES}
BY_FACET = {row.facet: row for row in VOCABULARIES}

# The exchange format's list fields in the order it writes them (docs/case-format.md),
# which is not the facets' order.
LIST_FIELDS_IN_ORDER = ("domain", "symptoms", "components", "contributing")
LIST_FIELDS = {
    field: next(row.value for row in VOCABULARIES if row.list_field == field)
    for field in LIST_FIELDS_IN_ORDER
}
assert set(LIST_FIELDS) == {row.list_field for row in VOCABULARIES if row.list_field}

# The graph's last tab draws cases, not terms.
CASE_TAB = "case"
CASE_LABEL = _("Cases")
CASE_COLOUR = "#166534"


def facet_of(vocabulary):
    """The query parameter that filters on a vocabulary's terms."""
    return BY_VALUE[vocabulary].facet
