import sys

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from cases.editorial.audit import who_runs_this
from cases.exchange.importer import CaseImporter, ImportFailed
from cases.exchange.priority import session_below_readers
from cases.exchange.reading import open_inputs
from cases.models import Case

NAMED_FILES = 3  # a transition's note names this many of the files, then counts the rest


class Command(BaseCommand):
    help = (
        "Import cases in the exchange format from files, folders (every *.json and *.jsonl "
        "below them) or - for standard input. Validates everything before writing anything."
    )

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+", metavar="PATH")
        parser.add_argument(
            "--status",
            choices=Case.Status.values,
            default=Case.Status.PUBLISHED,
            help="status of newly created cases (default: published)",
        )
        parser.add_argument(
            "--force",
            action="store_true",
            help="overwrite cases that an editor changed since their last import",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="validate and report, write nothing"
        )
        parser.add_argument(
            "--user",
            metavar="USERNAME",
            help="the account the import is recorded for (default: this shell's login name)",
        )

    def handle(self, *args, paths, status, force, dry_run, user, **options):
        account = self.account(user)
        inputs, problems = open_inputs(paths)
        try:
            if problems:
                raise ImportFailed(problems)
            importer = CaseImporter(
                inputs,
                status=status,
                force=force,
                progress=self.progress(),
                user=account,
                note=self.note(account, paths),
                waiting=lambda: self.stderr.write(
                    "Another import or restore is running on this database; "
                    "waiting for it to finish..."
                ),
            )
            with session_below_readers():
                result = importer.run(dry_run=dry_run)
        except ImportFailed as failure:
            for problem in failure.problems:
                self.stderr.write(problem)
            count = getattr(failure, "count", len(failure.problems))
            raise CommandError(f"Nothing was imported: {count} problem(s) found.") from None
        finally:
            for source in inputs:
                if source.temporary:
                    source.path.unlink(missing_ok=True)

        # Terms, organisations and duplicates first: the last line says what the run did
        # (scripts read it).
        self.report_terms(result, dry_run)
        for matched in result.matched_organisations:
            self.stdout.write(f"Organisation matched: {matched}")
        if result.duplicates:
            self.stdout.write(
                "Possible duplicates (imported all the same; merge them in the admin):"
            )
            for resemblance in result.duplicates:
                self.stdout.write(f"  {resemblance}")
        ahead = result.rendered_ahead
        if ahead is not None and (ahead.rendered or ahead.kept or ahead.failed):
            self.stdout.write(
                f"Most-read pages rendered before the commit: {ahead.rendered} "
                f"({ahead.kept} still good, {ahead.failed} failed) in {ahead.seconds:.1f} s"
                + (", not kept: another change came first" if ahead.discarded else "")
                + (
                    f", shared {ahead.in_place_after:.3f} s after the commit"
                    if ahead.in_place_after is not None
                    else ""
                )
            )
        counts = result.counts()
        prefix = "Dry run, nothing written: would have " if dry_run else ""
        self.stdout.write(prefix + ", ".join(f"{what} {number}" for what, number in counts.items()))
        if result.skipped:
            self.stdout.write(
                "Skipped because an editor changed them since their last import "
                "(--force overwrites): " + ", ".join(result.skipped)
            )

    def report_terms(self, result, dry_run):
        """Every slug no term had as its own: which term it went to, or that it is new."""
        if result.mapped_terms:
            self.stdout.write(
                "Slugs that name a term by its label, an alias or a former slug"
                + (" (would be" if dry_run else " (")
                + " imported as that term):"
            )
            for choice in result.mapped_terms:
                self.stdout.write(f"  {choice}")
        if result.new_terms:
            self.stdout.write(
                ("New terms that would be held" if dry_run else "New terms, held")
                + " for review: not public until an editor accepts them or merges them "
                "into a term (admin: Terms, Reviewed: No):"
            )
            for choice in result.new_terms:
                self.stdout.write(f"  {choice}")

    @staticmethod
    def account(username):
        if username is None:
            return None
        found = get_user_model().objects.filter(username=username).first()
        if found is None:
            raise CommandError(f"No account is called {username!r}: nothing was imported.")
        return found

    @staticmethod
    def note(account, paths):
        names = ", ".join(paths[:NAMED_FILES])
        if len(paths) > NAMED_FILES:
            names += f" and {len(paths) - NAMED_FILES} more"
        who = account.get_username() if account else who_runs_this()
        return f"imported by {who} from {names}"

    def progress(self):
        if not sys.stderr.isatty():
            return None

        def show(done, total):
            width = 30
            filled = width * done // max(total, 1)
            sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} cases")
            if done >= total:
                sys.stderr.write("\n")
            sys.stderr.flush()

        return show
