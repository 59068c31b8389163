from django.core.management.base import BaseCommand

from cases.models import Case
from cases.search.text import refresh_search_text


class Command(BaseCommand):
    help = "Recompute the search text of every case (after changing how search text is built)."

    def handle(self, *args, **options):
        changed = refresh_search_text(Case.objects.all())
        self.stdout.write(f"Search text recomputed; {changed} case(s) changed.")
