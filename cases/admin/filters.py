"""Filters that find an editor's work in the case list."""

from django.contrib import admin
from django.db.models import Exists, Max, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.utils.translation import gettext_lazy as _

from cases.editorial.comments import mine
from cases.editorial.duplicates import shares_a_source
from cases.models import Case, CaseComment, CaseVersion

Status = Case.Status


def written_since_approval(user):
    """Whether `user` wrote a version of the case (of its case, for a pending revision) since
    its last approval: the rule of editorial.history.authors_since_approval, in SQL."""
    root = Coalesce(OuterRef("draft_of"), OuterRef("pk"))
    approved = (  # of the version's case, which is the root
        CaseVersion.objects.filter(case=OuterRef("case"), event=CaseVersion.Event.APPROVED)
        .order_by()
        .values("case")
        .annotate(last=Max("number"))
        .values("last")
    )
    return Exists(
        CaseVersion.objects.filter(case=root, saved_by=user)
        .filter(Q(event__in=CaseVersion.AUTHORING) | Q(event=""))
        .filter(number__gt=Coalesce(Subquery(approved), 0))
    )


def queue_query(name, user):
    """The cases in one of a user's queues; shared with the dashboard's counts."""
    if name == "review":
        # What the user may approve: not what they submitted or wrote since its approval.
        return (
            Q(status=Status.IN_REVIEW)
            & ~Q(last_edited_by=user)
            & ~Q(submitted_by=user)
            & ~Q(written_since_approval(user))
        )
    if name == "drafts":
        return Q(status=Status.DRAFT) & (Q(created_by=user) | Q(last_edited_by=user))
    if name == "changes":
        return Q(status=Status.CHANGES_REQUESTED) & (
            Q(created_by=user) | Q(last_edited_by=user) | Q(submitted_by=user)
        )
    if name == "pending":
        return Q(draft_of__isnull=False)
    raise ValueError(name)


QUEUES = [
    ("review", _("Waiting for my review")),
    ("drafts", _("My drafts")),
    ("changes", _("Changes requested on my cases")),
    ("pending", _("Pending revisions of published cases")),
]


class QueueFilter(admin.SimpleListFilter):
    title = _("queue")
    parameter_name = "queue"

    def lookups(self, request, model_admin):
        if request.user.has_perm("cases.review_case"):
            return QUEUES
        return [queue for queue in QUEUES if queue[0] != "review"]

    def queryset(self, request, queryset):
        if self.value() in dict(QUEUES):
            return queryset.filter(queue_query(self.value(), request.user))
        return queryset


class TranslationFilter(admin.SimpleListFilter):
    title = _("translation")
    parameter_name = "translation"

    def lookups(self, request, model_admin):
        return [
            ("ko_missing", _("Korean missing")),
            ("en_missing", _("English missing")),
            ("ko_stale", _("Korean possibly stale")),
            ("complete", _("Both complete and current")),
        ]

    def queryset(self, request, queryset):
        value = self.value()
        if value in ("ko_missing", "en_missing", "ko_stale"):
            return queryset.filter(**{value: True})
        if value == "complete":
            return queryset.filter(ko_missing=False, en_missing=False, ko_stale=False)
        return queryset


class OpenCommentsFilter(admin.SimpleListFilter):
    """Cases with review comments still open (on their case, for a working copy)."""

    title = _("review comments")
    parameter_name = "comments"

    def lookups(self, request, model_admin):
        choices = [("open", _("Has open comments")), ("mine", _("Open comments on my cases"))]
        if request.user.has_perm("cases.review_case"):
            choices.append(("by_me", _("My comments still open")))
        return choices

    def queryset(self, request, queryset):
        comments = CaseComment.objects.open().filter(
            case=Coalesce(OuterRef("draft_of"), OuterRef("pk"))
        )
        value = self.value()
        if value == "open":
            return queryset.filter(Exists(comments))
        if value == "mine":
            return queryset.filter(Exists(comments) & mine(request.user))
        if value == "by_me":
            return queryset.filter(Exists(comments.filter(author=request.user)))
        return queryset


class DuplicatesFilter(admin.SimpleListFilter):
    """Cases citing a page another case cites (cases.editorial.duplicates): one index probe
    a source. Near titles of one organisation are the change page's notice, not a filter."""

    title = _("duplicates")
    parameter_name = "duplicates"

    def lookups(self, request, model_admin):
        return [("source", _("Possible duplicates: same source"))]

    def queryset(self, request, queryset):
        if self.value() == "source":
            return queryset.filter(shares_a_source())
        return queryset
