"""What the review queue and its report read: each case's open comments and claim, the
cases waiting longest for review, and those whose Korean has been stale longest."""

from django.db.models import Count, F, IntegerField, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce, Concat, NullIf, Trim

from cases.models import Case, CaseComment, ReviewClaim

Status = Case.Status
LIMIT = 50  # rows of each of the report's lists
# What a row of the report shows: its long texts stay unread.
REPORT_FIELDS = [
    "public_id",
    "title_en",
    "title_ko",
    "status",
    "draft_of",
    "submitted_at",
    "ko_stale_since",
    "modified",
]


def with_review_state(queryset):
    """Each case with the number of its open comments (its case's, for a working copy),
    and who claimed its review since when: three subqueries of the list's one query, read
    only for the rows of the page."""
    root = Coalesce(OuterRef("draft_of"), OuterRef("pk"))
    open_comments = Subquery(
        CaseComment.objects.open()
        .filter(case=root)
        .order_by()
        .values("case")
        .annotate(n=Count("pk"))
        .values("n"),
        output_field=IntegerField(),
    )
    claim = ReviewClaim.objects.filter(case=root, ended_at__isnull=True)
    full_name = Trim(Concat("reviewer__first_name", Value(" "), "reviewer__last_name"))
    reviewer = Coalesce(NullIf(full_name, Value("")), "reviewer__username")
    return queryset.annotate(
        open_comment_count=Coalesce(open_comments, 0),
        claimed_at=Subquery(claim.values("claimed_at")[:1]),
        claimed_by=Subquery(claim.values(name=reviewer)[:1]),
    )


def waiting_longest(limit=LIMIT):
    """The cases in review, the longest waiting first (a case whose submission was never
    recorded counts as the longest): one query."""
    cases = Case.objects.filter(status=Status.IN_REVIEW).only(*REPORT_FIELDS)
    return list(
        with_review_state(cases).order_by(F("submitted_at").asc(nulls_first=True), "pk")[:limit]
    )


def korean_stale_longest(limit=LIMIT):
    """The cases whose Korean may lag their English, the longest first: one query."""
    cases = Case.objects.filter(ko_stale=True).only(*REPORT_FIELDS)
    return list(cases.order_by(F("ko_stale_since").asc(nulls_first=True), "pk")[:limit])


def waiting_count():
    return Case.objects.filter(status=Status.IN_REVIEW).count()


def stale_count():
    return Case.objects.filter(ko_stale=True).count()
