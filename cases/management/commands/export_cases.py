from pathlib import Path

from django.core.management.base import BaseCommand

from cases.exchange.exporting import write_cases
from cases.models import Case


class Command(BaseCommand):
    help = (
        "Export cases in the exchange format: a JSON array, or JSON Lines when the output "
        "file ends in .jsonl. Writes to standard output without --output."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--output", "-o", metavar="FILE", help="file to write (default: stdout)"
        )
        parser.add_argument(
            "--status", choices=Case.Status.values, help="only cases in this status (default: all)"
        )
        parser.add_argument(
            "--jsonl", action="store_true", help="write JSON Lines (the default for a .jsonl file)"
        )

    def handle(self, *args, output, status, jsonl, **options):
        cases = Case.objects.live()
        if status:
            cases = cases.filter(status=status)
        json_lines = jsonl or (output is not None and output.endswith(".jsonl"))
        if output:
            with Path(output).open("w", encoding="utf-8") as stream:
                count = write_cases(cases, stream.write, json_lines=json_lines)
            self.stderr.write(f"Exported {count} case(s) to {output}")
        else:
            write_cases(
                cases, lambda text: self.stdout.write(text, ending=""), json_lines=json_lines
            )
