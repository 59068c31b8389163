from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from cases.exchange.backup import write_backup


class Command(BaseCommand):
    help = (
        "Back up the library into a directory: cases.jsonl (every case in the exchange format), "
        "taxonomy.json (every term and organisation) and state.jsonl (each case's status and "
        "publication date). restore_library reads it back."
    )

    def add_arguments(self, parser):
        parser.add_argument("directory", metavar="DIR")
        parser.add_argument(
            "--force", action="store_true", help="write into a directory that is not empty"
        )

    def handle(self, *args, directory, force, **options):
        path = Path(directory)
        if path.exists() and not path.is_dir():
            raise CommandError(f"{directory}: not a directory")
        if path.is_dir() and any(path.iterdir()) and not force:
            raise CommandError(f"{directory}: not empty; --force writes into it anyway")
        path.mkdir(parents=True, exist_ok=True)
        count = write_backup(path)
        self.stdout.write(f"Backed up {count} case(s) to {directory}")
