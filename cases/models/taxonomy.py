"""The taxonomy a case is described with: its vocabularies, their terms, and organisations.

Translated fields (labels, descriptions, aliases, questions, ...) are registered in
translation.py; django-modeltranslation adds an `_en` and a `_ko` column for each.
"""

from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from cases.catalogue import vocabularies
from cases.rules import MAX_QUESTION_LENGTH, SLUG_SQL_PATTERN
from cases.validators import HttpUrlListValidator, SlugValidator

# The taxonomy's vocabularies (ROOT_CAUSE = "root_cause", "Cause"; ...), from their table.
Vocabulary = models.TextChoices(
    "Vocabulary",
    [(row.value.upper(), (row.value, row.label)) for row in vocabularies.VOCABULARIES],
    module=__name__,
)

# The exchange format's list fields, in the order it writes them, and the
# vocabulary each one draws from.
LIST_VOCABULARIES = {field: Vocabulary(value) for field, value in vocabularies.LIST_FIELDS.items()}


# What the public may see is one family of methods (CaseQuerySet below, and these two),
# which every public page, feed, sitemap and the facet index ask through.


class TermQuerySet(models.QuerySet):
    def public(self):
        """The reviewed terms that some public case has, among its terms or as its cause.
        A term that only drafts (or cases in review, or withdrawn ones) have is unknown to
        the public: its label as much as its cases. So is a term an import made of a slug
        nobody has reviewed yet (Term.reviewed), even on a published case."""
        from .catalogue import Case  # the case refers to terms: imported when asked

        cases = Case.objects.public()
        return self.filter(
            Q(reviewed=True),
            models.Exists(cases.filter(case_terms__term=models.OuterRef("pk")))
            | models.Exists(cases.filter(root_cause=models.OuterRef("pk"))),
        )

    def unreviewed(self):
        """The terms that wait for an editor to label, merge or accept them."""
        return self.filter(reviewed=False)


def shown_terms(terms):
    """Those of a case's terms (instances at hand) that its public page may name: the
    instance-side test of TermQuerySet.public, whose other half (a public case) the page's
    own case already passes."""
    return [term for term in terms if term.reviewed]


class OrganisationQuerySet(models.QuerySet):
    def public(self):
        """The organisations that some public case is of: one that only drafts name is
        unknown to the public."""
        from .catalogue import Case  # the case refers to terms: imported when asked

        cases = Case.objects.public()
        return self.filter(models.Exists(cases.filter(org=models.OuterRef("pk"))))


class HasAliases:
    """Other names for a thing, one a line in each language (`aliases_en`, `aliases_ko`):
    search matches them as it matches the thing's own name."""

    def alias_list(self, language):
        text = getattr(self, f"aliases_{language}") or ""
        return [line.strip() for line in text.splitlines() if line.strip()]


class Organisation(HasAliases, models.Model):
    # The exchange format's `org`: one name in every language's exports, so that an import
    # matches it whatever language it was exported in. Its Korean form is `name_ko`.
    name = models.CharField(_("name"), max_length=200)
    name_ko = models.CharField(_("name in Korean"), max_length=200, blank=True)
    slug = models.SlugField(_("slug"), max_length=200, unique=True, validators=[SlugValidator()])
    # Former and short names and other scripts' spellings: Facebook, 페이스북 for Meta.
    aliases = models.TextField(_("aliases"), blank=True, help_text=_("One alias a line."))
    links = models.JSONField(
        _("links"),
        default=list,
        blank=True,
        validators=[HttpUrlListValidator()],
        help_text=_("Its website, Wikipedia article or status page: http(s) addresses."),
    )

    objects = OrganisationQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(slug__regex=SLUG_SQL_PATTERN),
                name="organisation_slug_pattern",
                violation_error_message=_("a slug is lowercase letters a-z, digits and hyphens"),
            ),
        ]
        verbose_name = _("organisation")
        verbose_name_plural = _("organisations")
        permissions = [("merge_organisation", _("Can merge two organisations"))]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("cases:organisation", args=[self.slug])

    @property
    def name_en(self):
        """The name in English, for the `tr` template filter (the name is English)."""
        return self.name


class Term(HasAliases, models.Model):
    """One value of one taxonomy vocabulary, e.g. the component `shared-filesystem`."""

    vocabulary = models.CharField(_("vocabulary"), max_length=20, choices=Vocabulary.choices)
    slug = models.SlugField(_("slug"), max_length=100, validators=[SlugValidator()])
    label = models.CharField(_("label"), max_length=200)
    description = models.TextField(_("description"), blank=True)
    # One alias a line; search matches them as it matches the label.
    aliases = models.TextField(_("aliases"), blank=True, help_text=_("One alias a line."))
    # An import names terms by slug; one no term answers to is held here, unreviewed and
    # unknown to the public, until an editor labels it and a reviewer accepts or merges it.
    # The taxonomy file's terms and those editors add are reviewed.
    reviewed = models.BooleanField(
        _("reviewed"),
        default=True,
        db_default=True,
        help_text=_(
            "Shown on the public pages. A term an import made from an unknown slug is not, "
            "until a reviewer accepts it."
        ),
    )
    # What the list's "Check your own system" asks of a reader's system where its cases
    # have this contributing factor.
    question = models.CharField(
        _("question"),
        max_length=MAX_QUESTION_LENGTH,
        blank=True,
        help_text=_(
            "For a contributing factor: the question its cases raise about a reader's own "
            "system, shown under “Check your own system”."
        ),
    )

    objects = TermQuerySet.as_manager()

    class Meta:
        ordering = ["vocabulary", "slug"]
        constraints = [
            models.UniqueConstraint(fields=["vocabulary", "slug"], name="term_unique_slug"),
            models.CheckConstraint(
                condition=Q(slug__regex=SLUG_SQL_PATTERN),
                name="term_slug_pattern",
                violation_error_message=_("a slug is lowercase letters a-z, digits and hyphens"),
            ),
            models.CheckConstraint(
                condition=Q(vocabulary__in=Vocabulary.values), name="term_vocabulary_choice"
            ),
        ]
        verbose_name = _("term")
        verbose_name_plural = _("terms")
        permissions = [("merge_term", _("Can merge two terms"))]

    def __str__(self):
        return f"{self.get_vocabulary_display()}: {self.label}"

    @staticmethod
    def label_from_slug(slug):
        """The English label a term gets when an import names it before anyone labels it."""
        return slug.replace("-", " ").capitalize()
