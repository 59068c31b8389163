from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from cases.exchange.taxonomy import TaxonomyError, load_taxonomy, parse_taxonomy


class Command(BaseCommand):
    help = (
        "Load taxonomy labels, descriptions and aliases from JSON files. Creates missing terms "
        "and fills in unset labels; --force also overwrites labels editors have changed."
    )

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+", metavar="FILE")
        parser.add_argument("--force", action="store_true")

    def handle(self, *args, paths, force, **options):
        terms, problems = [], []
        for name in paths:
            try:
                terms.extend(parse_taxonomy(Path(name).read_text(encoding="utf-8-sig"), label=name))
            except OSError as error:
                problems.append(f"{name}: {error.strerror}")
            except TaxonomyError as error:
                problems.extend(error.problems)
        if problems:
            for problem in problems:
                self.stderr.write(problem)
            raise CommandError("Nothing was loaded.")
        counts = load_taxonomy(terms, force=force)
        self.stdout.write(", ".join(f"{what} {number}" for what, number in counts.items()))
