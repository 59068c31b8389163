"""The incident case: its own fields, terms, steps, sources and relations. What it is
described with (vocabularies, terms, organisations) is in taxonomy.py.

Translated fields (title, summary, labels, ...) are registered in translation.py;
django-modeltranslation adds an `_en` and a `_ko` column for each.
"""

import datetime

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from cases.addresses import address_key
from cases.rules import (
    CASE_ID_RE,
    CASE_ID_SQL_PATTERN,
    MAX_DURATION,
    MAX_LICENCE_LENGTH,
    MAX_SOURCE_KIND_LENGTH,
    MAX_URL_LENGTH,
    SLUG_RE,
    SLUG_SQL_PATTERN,
)
from cases.search.planner import IsTrue
from cases.validators import (
    CaseIdValidator,
    HttpUrlListValidator,
    HttpUrlValidator,
    LicenceValidator,
    SlugValidator,
)

from .taxonomy import Organisation, Term, Vocabulary, shown_terms

__all__ = ["CASE_ID_RE", "SLUG_RE"]  # the rules' patterns, as the models have always named them


class CaseQuerySet(models.QuerySet):
    @staticmethod
    def is_public(through=None):
        """The test of a case the public may see (a published one), on the case itself or
        on the case that the join `through` names, e.g. "to_case" for a CaseRelation."""
        return Q(**{f"{through}__status" if through else "status": Case.Status.PUBLISHED})

    def public(self):
        """The cases the public may see."""
        return self.filter(self.is_public())

    def public_for_search(self):
        """The public cases, for a search to narrow: asked for by a test that no index
        serves, `(status = 'published') IS TRUE`, so that PostgreSQL finds a search's cases
        by the search index. Once it has statistics of the vectors and knows that a search
        matches nearly every case, it would otherwise read every public case by the status
        index and test each one's vector, read back from TOAST: at 10,000 cases 44 ms
        against 12 for the search's query."""
        return self.filter(IsTrue(self.is_public()))

    def public_or_withdrawn(self):
        """The cases whose address answers: the public ones, and the withdrawn ones, whose
        page says so (410). Any other case is unknown to the public (404)."""
        return self.filter(self.is_public() | Q(status=Case.Status.WITHDRAWN))

    def locked(self, *, deleting=False):
        """The cases, locked until the transaction ends against any other change of them
        (FOR NO KEY UPDATE), not against work that only points at them: a foreign key's
        check takes a KEY SHARE lock on the case it names, and two approvals of linked
        cases, each holding its case FOR UPDATE, would wait for each other at commit.
        Cases about to be deleted are held against that too: nothing may come to name them."""
        return self.select_for_update(no_key=not deleting, of=("self",))

    def live(self):
        """Cases themselves, without the working copies of pending revisions."""
        return self.filter(draft_of__isnull=True)

    def for_exchange(self):
        """Everything the exchange format needs, fetched in a fixed number of queries."""
        # A recurrence is written by its id alone: its sixty other columns stay unread.
        unread = [
            f"recurrence_of__{field.attname}"
            for field in self.model._meta.concrete_fields
            if field.attname not in ("id", "public_id")
        ]
        return (
            self.select_related("org", "root_cause", "recurrence_of")
            .defer(*unread)
            .prefetch_related(
                models.Prefetch(
                    "case_terms",
                    queryset=CaseTerm.objects.select_related("term").order_by("position"),
                ),
                models.Prefetch("steps", queryset=CaseStep.objects.order_by("kind", "position")),
                models.Prefetch("sources", queryset=Source.objects.order_by("position")),
                # A related case is written by its id alone: its long texts stay unread.
                models.Prefetch(
                    "outgoing_relations",
                    queryset=CaseRelation.objects.select_related("to_case")
                    .only("from_case", "to_case__public_id", "position")
                    .order_by("position"),
                ),
            )
        )


def editor_field(verbose_name):
    """Who did something to a case; the case outlives the account."""
    return models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        editable=False,
        verbose_name=verbose_name,
    )


class CaseStatus(models.TextChoices):
    DRAFT = "draft", _("Draft")
    IN_REVIEW = "in_review", _("In review")
    CHANGES_REQUESTED = "changes_requested", _("Changes requested")
    PUBLISHED = "published", _("Published")
    WITHDRAWN = "withdrawn", _("Withdrawn")


class DateKind(models.TextChoices):
    OCCURRED = "occurred", _("Occurred")
    PUBLISHED = "published", _("Report published")


class Severity(models.TextChoices):
    UNKNOWN = "unknown", _("Unknown")
    LOW = "low", _("Low")
    MEDIUM = "medium", _("Medium")
    HIGH = "high", _("High")
    CRITICAL = "critical", _("Critical")


class StepKind(models.TextChoices):
    REMEDIATION = "remediation", _("Remediation")
    ACTION_ITEM = "action_item", _("Follow-up action")


class Case(models.Model):
    # Module-level, so that Meta's constraints can name their values too.
    Status = CaseStatus
    DateKind = DateKind
    Severity = Severity

    public_id = models.CharField(
        _("id"), max_length=20, help_text="IL-0000", validators=[CaseIdValidator()]
    )
    org = models.ForeignKey(
        Organisation, on_delete=models.PROTECT, related_name="cases", verbose_name=_("organisation")
    )
    date = models.DateField(_("date"))
    date_kind = models.CharField(
        _("date kind"), max_length=10, choices=DateKind.choices, default=DateKind.OCCURRED
    )
    title = models.CharField(_("title"), max_length=500, blank=True)
    summary = models.TextField(_("summary"), blank=True)
    trigger = models.TextField(_("trigger"), blank=True)
    detection = models.TextField(_("detection"), blank=True)
    lessons = models.TextField(_("lessons"), blank=True)
    symptoms_text = models.TextField(_("symptoms"), blank=True)
    impact_scope = models.TextField(_("impact: scope"), blank=True)
    impact_users = models.TextField(_("impact: users"), blank=True)
    impact_region = models.TextField(_("impact: region"), blank=True)
    severity = models.CharField(
        _("severity"), max_length=10, choices=Severity.choices, default=Severity.UNKNOWN
    )
    root_cause = models.ForeignKey(
        Term,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="caused_cases",
        limit_choices_to={"vocabulary": Vocabulary.ROOT_CAUSE},
        verbose_name=_("cause"),
    )
    terms = models.ManyToManyField(Term, through="CaseTerm", related_name="cases", blank=True)
    detected_after = models.DurationField(_("detected after"), null=True, blank=True)
    resolved_after = models.DurationField(_("resolved after"), null=True, blank=True)
    docs = models.JSONField(
        _("documentation links"), default=list, blank=True, validators=[HttpUrlListValidator()]
    )
    recurrence_of = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="recurrences",
        limit_choices_to={"draft_of__isnull": True},  # a case, not a pending revision's copy
        verbose_name=_("recurrence of"),
    )
    related = models.ManyToManyField(
        "self", through="CaseRelation", symmetrical=False, related_name="related_from", blank=True
    )
    written_by = models.CharField(_("written by"), max_length=200, blank=True)
    reviewed_by = models.CharField(_("reviewed by"), max_length=200, blank=True)
    reviewed_at = models.DateTimeField(_("reviewed at"), null=True, blank=True)
    source_url = models.CharField(
        _("canonical address"), max_length=1000, blank=True, validators=[HttpUrlValidator()]
    )
    # The licence of the case's text when it is reused from another catalogue (an SPDX id);
    # empty when the text is the library's own, under its content licence (CC BY 4.0).
    licence = models.CharField(
        _("licence of reused text"),
        max_length=MAX_LICENCE_LENGTH,
        blank=True,
        validators=[LicenceValidator()],
        help_text=_(
            "Only when the text is reused from another catalogue: its licence as an SPDX "
            "identifier, such as CC-BY-SA-4.0. Empty for the library's own text."
        ),
    )
    updated_at = models.DateTimeField(_("updated at"), null=True, blank=True)

    # No index of its own: every index of the public pages begins with it (Meta.indexes).
    status = models.CharField(
        _("status"), max_length=20, choices=Status.choices, default=Status.DRAFT
    )
    published_at = models.DateTimeField(_("published at"), null=True, blank=True)
    # A hash of the exchange form of the case as the last import left it. When
    # the case no longer hashes to it, an editor changed it since, and a plain
    # re-import must not overwrite that work.
    import_fingerprint = models.CharField(max_length=64, blank=True, editable=False)
    # Every searchable text of the case in both languages, casefolded, with the labels and
    # aliases of its terms (see cases/search.py). On PostgreSQL its words are also kept as a
    # tsvector with a full-text index (migration 0012).
    search_text = models.TextField(blank=True, editable=False)

    # Editorial state (see cases/workflow.py). A published case is never edited in place:
    # edits go to a working copy (`draft_of` points at the published case) that becomes
    # public only when a reviewer approves it.
    draft_of = models.OneToOneField(
        "self",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="working_copy",
        editable=False,
        verbose_name=_("pending revision of"),
    )
    created_by = editor_field(_("created by"))
    last_edited_by = editor_field(_("last edited by"))
    submitted_by = editor_field(_("submitted by"))
    # When it was last submitted for review: the review queue waits oldest first.
    submitted_at = models.DateTimeField(_("submitted at"), null=True, blank=True, editable=False)
    # Bumped by every editorial save: a form saved against an older number is refused.
    edit_version = models.PositiveIntegerField(default=0, editable=False)
    # For each translated field, a hash of the English text the Korean was written
    # against; a Korean text whose English has changed since is possibly stale.
    translation_basis = models.JSONField(default=dict, blank=True, editable=False)
    # Derived from the texts and the basis at every write, so that lists can filter on them.
    ko_missing = models.BooleanField(_("Korean missing"), default=False, editable=False)
    en_missing = models.BooleanField(_("English missing"), default=False, editable=False)
    ko_stale = models.BooleanField(_("Korean possibly stale"), default=False, editable=False)
    # Since when, while `ko_stale`; set and cleared with it (editorial.translation_state).
    ko_stale_since = models.DateTimeField(null=True, blank=True, editable=False)
    created = models.DateTimeField(_("created"), auto_now_add=True)
    modified = models.DateTimeField(_("modified"), auto_now=True)

    objects = CaseQuerySet.as_manager()

    class Meta:
        ordering = ["-date", "-public_id"]
        # Status first: the public list, its facet counts and its charts all filter on it.
        indexes = [
            models.Index(fields=["status", "-date"], name="case_status_date"),
            models.Index(fields=["status", "severity"], name="case_status_severity"),
            models.Index(fields=["status", "org"], name="case_status_org"),
            models.Index(fields=["status", "root_cause"], name="case_status_cause"),
        ]
        constraints = [
            # One case per id; a pending revision shares its case's id.
            models.UniqueConstraint(
                fields=["public_id"], condition=Q(draft_of__isnull=True), name="case_unique_id"
            ),
            models.CheckConstraint(
                condition=Q(public_id__regex=CASE_ID_SQL_PATTERN),
                name="case_id_pattern",
                violation_error_message=_("a case id is IL- and at least four digits (0-9)"),
            ),
            models.CheckConstraint(
                condition=~Q(status="published") | Q(published_at__isnull=False),
                name="case_published_has_date",
            ),
            *(
                models.CheckConstraint(
                    condition=Q(**{f"{field}__isnull": True})
                    | Q(**{f"{field}__range": (datetime.timedelta(0), MAX_DURATION)}),
                    name=f"case_{field}_in_range",
                    violation_error_message=_("a duration is not negative, nor over 20 years"),
                )
                for field in ("detected_after", "resolved_after")
            ),
            models.CheckConstraint(
                condition=~Q(recurrence_of=F("pk")),
                name="case_not_own_recurrence",
                violation_error_message=_("a case cannot be a recurrence of itself"),
            ),
            models.CheckConstraint(
                condition=Q(status__in=CaseStatus.values), name="case_status_choice"
            ),
            models.CheckConstraint(
                condition=Q(severity__in=Severity.values), name="case_severity_choice"
            ),
            models.CheckConstraint(
                condition=Q(date_kind__in=DateKind.values), name="case_date_kind_choice"
            ),
        ]
        verbose_name = _("case")
        verbose_name_plural = _("cases")
        permissions = [
            ("submit_case", _("Can submit a case for review")),
            ("review_case", _("Can approve and publish, request changes and withdraw cases")),
            ("merge_case", _("Can merge a duplicate case into another")),
        ]

    def __str__(self):
        return f"{self.public_id}: {self.title}"

    @property
    def root(self):
        """The case a pending revision belongs to, or the case itself."""
        return self.draft_of if self.draft_of_id else self

    def terms_of(self, vocabulary):
        """The case's terms of one vocabulary, in their order (uses the prefetch when present)."""
        return [ct.term for ct in self.case_terms.all() if ct.term.vocabulary == vocabulary]

    def steps_of(self, kind):
        return [step for step in self.steps.all() if step.kind == kind]

    # For templates, which cannot pass arguments: the terms a public page names.
    @property
    def cause_terms(self):
        return shown_terms([self.root_cause] if self.root_cause_id else [])

    @property
    def symptom_terms(self):
        return shown_terms(self.terms_of(Vocabulary.SYMPTOM))

    @property
    def component_terms(self):
        return shown_terms(self.terms_of(Vocabulary.COMPONENT))

    @property
    def contributing_terms(self):
        return shown_terms(self.terms_of(Vocabulary.CONTRIBUTING))

    @property
    def domain_terms(self):
        return shown_terms(self.terms_of(Vocabulary.DOMAIN))

    @property
    def remediation_steps(self):
        return self.steps_of(CaseStep.Kind.REMEDIATION)

    @property
    def action_item_steps(self):
        return self.steps_of(CaseStep.Kind.ACTION_ITEM)


class CaseTerm(models.Model):
    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="case_terms")
    # The cause is the case's own column (`root_cause`); the exchange format has no place
    # for a cause among the terms, so none may be chosen here.
    term = models.ForeignKey(
        Term,
        on_delete=models.PROTECT,
        related_name="case_terms",
        limit_choices_to=~Q(vocabulary=Vocabulary.ROOT_CAUSE),
        verbose_name=_("term"),
    )
    position = models.PositiveSmallIntegerField(_("position"), default=0)

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["case", "term"], name="caseterm_unique"),
        ]
        # A term's most recent cases, newest first, without visiting the others
        # (cases.public.views.similar_cases).
        indexes = [models.Index(fields=["term", "-case"], name="caseterm_term_case")]

    def __str__(self):
        return str(self.term)  # "Component: DNS", the label above its row in the admin


class CaseStep(models.Model):
    """One remediation step or follow-up action item, in order."""

    Kind = StepKind

    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="steps")
    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices)
    position = models.PositiveSmallIntegerField(_("position"), default=0)
    text = models.TextField(_("text"), blank=True)

    class Meta:
        ordering = ["kind", "position"]
        constraints = [
            models.CheckConstraint(
                condition=Q(text_en__isnull=False, text_en__gt="")
                | Q(text_ko__isnull=False, text_ko__gt=""),
                name="step_has_text",
                # The exchange validator's words, so that the admin says it once.
                violation_error_message=_("is empty in both languages"),
            ),
            models.CheckConstraint(condition=Q(kind__in=StepKind.values), name="step_kind_choice"),
        ]
        verbose_name = _("step")
        verbose_name_plural = _("steps")

    def __str__(self):
        return self.text[:80]


class Source(models.Model):
    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="sources")
    position = models.PositiveSmallIntegerField(_("position"), default=0)
    url = models.CharField(_("address"), max_length=1000, validators=[HttpUrlValidator()])
    kind = models.SlugField(
        _("kind"),
        max_length=MAX_SOURCE_KIND_LENGTH,
        blank=True,
        validators=[SlugValidator(MAX_SOURCE_KIND_LENGTH)],
    )
    archived = models.CharField(
        _("archived copy"), max_length=1000, blank=True, validators=[HttpUrlValidator()]
    )
    # Which page `url` names (cases.addresses.address_key): two cases citing one page, however
    # spelled, are found by this index (cases.editorial.duplicates). Set on every write.
    url_key = models.CharField(max_length=MAX_URL_LENGTH, blank=True, editable=False, db_index=True)

    class Meta:
        ordering = ["position"]
        constraints = [
            models.CheckConstraint(
                condition=Q(kind="") | Q(kind__regex=SLUG_SQL_PATTERN), name="source_kind_slug"
            ),
        ]
        verbose_name = _("source")
        verbose_name_plural = _("sources")

    def __str__(self):
        return self.url

    def save(self, *args, **kwargs):
        self.url_key = address_key(self.url)
        if kwargs.get("update_fields") is not None and "url" in kwargs["update_fields"]:
            kwargs["update_fields"] = {*kwargs["update_fields"], "url_key"}
        super().save(*args, **kwargs)


class CaseRelation(models.Model):
    """`from_case` lists `to_case` as related; the site shows the link from both sides."""

    from_case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="outgoing_relations")
    to_case = models.ForeignKey(
        Case,
        on_delete=models.CASCADE,
        related_name="incoming_relations",
        limit_choices_to={"draft_of__isnull": True},
        verbose_name=_("related case"),
    )
    position = models.PositiveSmallIntegerField(_("position"), default=0)

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["from_case", "to_case"], name="relation_unique"),
            models.CheckConstraint(
                condition=~Q(from_case=models.F("to_case")), name="relation_not_self"
            ),
        ]

    def __str__(self):
        return f"{self.from_case_id} → {self.to_case_id}"
