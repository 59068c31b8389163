from django import template

from cases.admin.filters import QUEUES, queue_query
from cases.editorial import comments
from cases.models import Case, ReviewClaim, Suggestion, Term

register = template.Library()


@register.simple_tag
def editorial_queues(user):
    """[(queue, label, count)] for the admin index: one count query per queue."""
    if not user.has_perm("cases.view_case"):
        return []
    queues = [q for q in QUEUES if q[0] != "review" or user.has_perm("cases.review_case")]
    return [
        (name, label, Case.objects.filter(queue_query(name, user)).count())
        for name, label in queues
    ]


@register.simple_tag
def suggestions_waiting(user):
    """How many suggested cases wait for triage, for one who may triage them; else None."""
    if not user.has_perm("cases.change_suggestion"):
        return None
    return Suggestion.objects.filter(status=Suggestion.Status.NEW).count()


@register.simple_tag
def terms_waiting(user):
    """How many terms an import holds for review, for one who may see terms; else None."""
    if not user.has_perm("cases.view_term"):
        return None
    return Term.objects.unreviewed().count()


@register.simple_tag
def review_desk_counts(user):
    """The dashboard's review desk: open comments on the user's cases and, for a reviewer,
    their own comments still open and the reviews they claimed. One count query each."""
    if not user.has_perm("cases.view_case"):
        return None
    counts = {"on_my_cases": comments.open_comments_on_cases_of(user)}
    if user.has_perm("cases.review_case"):
        counts["by_me"] = comments.open_comments_by(user)
        counts["claimed"] = ReviewClaim.objects.filter(
            reviewer=user, ended_at__isnull=True, case__status=Case.Status.IN_REVIEW
        ).count()
    return counts
