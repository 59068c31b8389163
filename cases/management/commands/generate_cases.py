import json
import sys
import tempfile
import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from bench.synthetic import CaseGenerator
from cases.exchange.importer import CaseImporter, ImportFailed
from cases.exchange.reading import Input
from cases.exchange.taxonomy import load_taxonomy


class Command(BaseCommand):
    help = (
        "Fill the database with N synthetic published cases that look like real ones "
        "(deterministic for a seed), or write them to a JSON Lines file with --output."
    )

    def add_arguments(self, parser):
        parser.add_argument("--count", type=int, required=True)
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument(
            "--first-id", type=int, default=100_000, help="number of the first id (IL-100000)"
        )
        parser.add_argument("--output", help="write JSON Lines here instead of the database")

    def handle(self, *args, count, seed, first_id, output, **options):
        if count < 1:
            raise CommandError("--count must be at least 1")
        generator = CaseGenerator(seed=seed, first_id=first_id)
        started = time.monotonic()
        if output:
            self.write(generator, count, Path(output))
            self.stdout.write(f"Wrote {count} cases to {output}")
            return
        load_taxonomy(generator.taxonomy())
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "cases.jsonl"
            self.write(generator, count, path)
            progress = None
            if sys.stderr.isatty():

                def progress(done, total):
                    sys.stderr.write(f"\r{done}/{total} cases")
                    sys.stderr.flush()

            try:
                result = CaseImporter(
                    [Input(str(path), path, json_lines=True)],
                    progress=progress,
                    note=f"generated (seed {seed})",
                ).run()
            except ImportFailed as failure:
                raise CommandError("\n".join(failure.problems[:20])) from None
        elapsed = time.monotonic() - started
        self.stdout.write(
            f"Generated {len(result.created)} cases ({len(result.unchanged)} already there) "
            f"in {elapsed:.1f} s"
        )

    @staticmethod
    def write(generator, count, path):
        with path.open("w", encoding="utf-8") as stream:
            for case in generator.cases(count):
                stream.write(json.dumps(case, ensure_ascii=False) + "\n")
