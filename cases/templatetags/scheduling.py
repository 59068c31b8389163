from django import template
from django.utils import timezone

from cases.editorial.scheduling import recently_failed, upcoming

register = template.Library()

# The dashboard shows the next steps and the latest failures; the case list has the rest.
SHOWN = 20


@register.simple_tag
def scheduled_steps(user):
    """{upcoming, failed, now} for the admin index: two queries, whatever the number."""
    if not user.has_perm("cases.view_case"):
        return None
    return {
        "upcoming": list(upcoming()[:SHOWN]),
        "failed": list(recently_failed()[:SHOWN]),
        "now": timezone.now(),
    }
