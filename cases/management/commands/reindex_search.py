from django.core.management.base import BaseCommand
from django.db import transaction

from cases.caching import public_content_changed
from cases.models import Case
from cases.search.text import refresh_search_text
from cases.search.typos import rebuild_words


class Command(BaseCommand):
    help = (
        "Recompute the search text of every case (after changing how search text is built), "
        "and the library's words that misspelled search words are corrected to (dropping "
        "words no case has any more)."
    )

    def handle(self, *args, **options):
        with transaction.atomic():
            changed = refresh_search_text(Case.objects.all())
            rebuild_words()
            # What every search finds, and which words it corrects, may have changed.
            public_content_changed()
        self.stdout.write(f"Search text recomputed; {changed} case(s) changed. Words rebuilt.")
