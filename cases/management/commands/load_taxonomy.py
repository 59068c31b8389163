from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from cases.exchange.taxonomy import TaxonomyError, load_taxonomy, parse_taxonomy


class Command(BaseCommand):
    help = (
        "Load taxonomy labels, descriptions and aliases of terms, and names and aliases of "
        "organisations, from JSON files. Creates missing terms and organisations and fills in "
        "what is unset; --force also overwrites what editors have changed."
    )

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+", metavar="FILE")
        parser.add_argument("--force", action="store_true")

    def handle(self, *args, paths, force, **options):
        terms, organisations, problems = [], [], []
        term_redirects, organisation_redirects = [], []
        for name in paths:
            try:
                taxonomy = parse_taxonomy(Path(name).read_text(encoding="utf-8-sig"), label=name)
            except OSError as error:
                problems.append(f"{name}: {error.strerror}")
            except TaxonomyError as error:
                problems.extend(error.problems)
            else:
                terms += taxonomy.terms
                organisations += taxonomy.organisations
                term_redirects += taxonomy.term_redirects
                organisation_redirects += taxonomy.organisation_redirects
        if problems:
            for problem in problems:
                self.stderr.write(problem)
            raise CommandError("Nothing was loaded.")
        counts = load_taxonomy(
            terms,
            organisations=organisations,
            force=force,
            term_redirects=term_redirects,
            organisation_redirects=organisation_redirects,
        )
        self.stdout.write(
            "; ".join(
                f"{kind}: " + ", ".join(f"{what} {number}" for what, number in numbers.items())
                for kind, numbers in counts.items()
            )
        )
