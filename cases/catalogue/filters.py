"""The public list's filters: the query string is the whole state of the page.

Facets take slugs and may repeat: values of one facet are OR, facets are AND. A value
that is not a slug, or a date that is not a date, makes the form invalid; the list is then
empty and says why (cases.catalogue.query), never an error page.
"""

import django_filters
from django import forms
from django.core.exceptions import ValidationError
from django.db import router
from django.http import QueryDict
from django.utils.translation import gettext_lazy as _

from cases.catalogue.facet_index import current_facet_index
from cases.catalogue.vocabularies import VOCABULARIES
from cases.models import Case, CaseTerm, Term, Vocabulary
from cases.rules import is_slug
from cases.search.query import clean_query, search

MAX_VALUES = 20


def public_terms():
    """Every public term, as of the public content this request reads (kept with the facet
    index: shared by the requests of a process, so never to be changed)."""
    return current_facet_index(router.db_for_read(Term)).terms


class SlugListField(forms.Field):
    """Repeated query parameters (`?component=a&component=b`), each a slug."""

    widget = forms.MultipleHiddenInput

    def to_python(self, value):
        if not value:
            return []
        values = value if isinstance(value, list | tuple) else [value]
        cleaned = []
        for item in values:
            item = str(item).strip()
            if item and item not in cleaned:
                cleaned.append(item)
        return cleaned

    def validate(self, value):
        if len(value) > MAX_VALUES:
            raise ValidationError(
                _("Too many values: at most %(max)s."), params={"max": MAX_VALUES}
            )
        for item in value:
            if not is_slug(item):
                raise ValidationError(
                    _("“%(value)s” is not a valid value."), params={"value": item[:100]}
                )


class SlugListFilter(django_filters.Filter):
    field_class = SlugListField

    def __init__(self, *args, vocabulary=None, **kwargs):
        self.vocabulary = vocabulary
        super().__init__(*args, **kwargs)

    def term_ids(self, value):
        """The terms of this filter's vocabulary that `value` (slugs) names."""
        return [
            term.pk
            for term in self.parent.terms
            if term.vocabulary == self.vocabulary and term.slug in value
        ]

    def filter(self, qs, value):
        if not value:
            return qs
        if self.vocabulary:
            # By id, not by a join on the slug: PostgreSQL then knows from its statistics
            # how many cases a term has, and plans a common term differently from a rare one.
            ids = self.term_ids(value)
            if self.vocabulary == Vocabulary.ROOT_CAUSE:
                return qs.filter(root_cause_id__in=ids)
            return qs.filter(pk__in=CaseTerm.objects.filter(term_id__in=ids).values("case_id"))
        return qs.filter(**{f"{self.field_name}__in": value})


class StrictDateField(forms.DateField):
    input_formats = ["%Y-%m-%d"]
    default_error_messages = {
        "invalid": _("“%(value)s” is not a date in the form YYYY-MM-DD."),
    }

    def to_python(self, value):
        try:
            return super().to_python(value)
        except ValidationError as error:
            raise ValidationError(
                self.error_messages["invalid"], code="invalid", params={"value": str(value)[:40]}
            ) from error


class DateFilter(django_filters.DateFilter):
    field_class = StrictDateField


# The facets a reader filters on, in the order shown: query parameter -> vocabulary (None:
# a column of the case's own).
FACETS = {row.facet: row.value for row in VOCABULARIES} | {"org": None, "severity": None}
# What the database narrows the cases by, where the facet index cannot: the search and the
# dates.
DATES = ("from", "to")
NARROWING = ("q", *DATES)
SORTS = {"newest": ("-date", "-public_id"), "oldest": ("date", "public_id")}


class CaseFilter(django_filters.FilterSet):
    # One filter per vocabulary comes first, from their table (see get_filters).
    org = SlugListFilter(field_name="org__slug", label=_("Organisation"))
    severity = SlugListFilter(field_name="severity", label=_("Severity"))
    q = django_filters.CharFilter(method="filter_search", label=_("Search"))
    sort = django_filters.CharFilter(method="filter_nothing", label=_("Sort"))

    class Meta:
        model = Case
        fields = []

    @classmethod
    def get_filters(cls):
        """A filter for each vocabulary, in their table's order, then those declared above,
        then the dates (`from` is a Python keyword, so these two are added by name)."""
        vocabularies = {
            row.facet: SlugListFilter(vocabulary=row.value, label=row.label) for row in VOCABULARIES
        }
        dates = {
            "from": DateFilter(field_name="date", lookup_expr="gte", label=_("From")),
            "to": DateFilter(field_name="date", lookup_expr="lte", label=_("To")),
        }
        return {**vocabularies, **super().get_filters(), **dates}

    def __init__(self, data=None, *args, terms=public_terms, plan=None, **kwargs):
        super().__init__(data, *args, **kwargs)
        self._terms = terms
        # The search's plan (cases.search.parsing), or a function that makes it when the
        # search runs; None: the query's own words, without names or corrections.
        self._plan = plan

    @property
    def terms(self):
        """The public terms, which a facet's slugs name: `terms` as given, or, if that is a
        function, what it returns when first needed (a list without facets never asks)."""
        if callable(self._terms):
            self._terms = self._terms()
        return self._terms

    def filter_search(self, queryset, name, value):
        plan = self._plan() if callable(self._plan) else self._plan
        return search(queryset, clean_query(value), plan)

    def filter_nothing(self, queryset, name, value):
        return queryset

    @property
    def query(self):
        return clean_query(self.form.cleaned_data.get("q") if self.is_valid() else "")

    def selected(self, name):
        """The values of one filter as the reader gave them (valid or not)."""
        if name in FACETS:
            return self.form.fields[name].to_python(self.data.getlist(name))
        return self.data.get(name, "")

    def sort_order(self):
        sort = self.data.get("sort")
        if sort in SORTS:
            return sort
        return "relevance" if self.query else "newest"

    def without(self, name):
        """The same filters minus one facet: a facet's own counts ignore its selection."""
        data = self.data.copy()
        data.pop(name, None)
        return type(self)(data, queryset=self.queryset, terms=lambda: self.terms, plan=self._plan)

    def only(self, names):
        """The same filters, but only those named."""
        data = QueryDict(mutable=True)
        for name in names:
            if name in self.data:
                data.setlist(name, self.data.getlist(name))
        return type(self)(data, queryset=self.queryset, terms=lambda: self.terms, plan=self._plan)
