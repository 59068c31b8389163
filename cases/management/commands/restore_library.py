from django.core.management.base import BaseCommand, CommandError

from cases.exchange.backup import BackupError, restore_backup
from cases.exchange.importer import ImportFailed


class Command(BaseCommand):
    help = (
        "Restore a backup_library directory in one transaction: terms, cases, and each case's "
        "status and publication date. Checks everything first; on any problem writes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("directory", metavar="DIR")

    def handle(self, *args, directory, **options):
        try:
            result = restore_backup(
                directory,
                waiting=lambda: self.stderr.write(
                    "Another import or restore is running on this database; "
                    "waiting for it to finish..."
                ),
            )
        except (BackupError, ImportFailed) as failure:
            for problem in failure.problems:
                self.stderr.write(problem)
            count = getattr(failure, "count", len(failure.problems))
            raise CommandError(f"Nothing was restored: {count} problem(s) found.") from None
        counts = result.counts()
        self.stdout.write(
            f"Restored {sum(counts.values())} case(s) from {directory}: "
            + ", ".join(f"{what} {number}" for what, number in counts.items())
        )
