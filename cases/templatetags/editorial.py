from django import template

from cases.admin.filters import QUEUES, queue_query
from cases.models import Case

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
