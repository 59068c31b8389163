"""Backing up the library to a directory, and restoring it: the same public site afterwards.

A backup is a directory of three files:

    cases.jsonl    every live case in the exchange format, as export_cases writes it
    taxonomy.json  every term's labels, descriptions and aliases, and every organisation's
                   name and aliases, as load_taxonomy reads them
    state.jsonl    what the public site reads of each case's editorial state, one line a case:
                   {"id": "IL-0001", "status": "published", "published_at": "2024-05-01T09:00:00Z"}
                   and, for a case merged into another as its duplicate, "merged_into": "IL-0002"

The status decides whether a case is listed, answers 404 (not yet published) or 410
(withdrawn), or 301 to the case it was merged into; `published_at` dates and orders the
Atom feed and the sitemap. The exchange format must not grow editorial fields, so they
travel beside it in state.jsonl.

Left out: pending revisions (working copies), version history, transitions, term redirects
and user accounts; a database dump keeps those.
"""

import itertools
import json
from contextlib import contextmanager
from pathlib import Path

from django.db import connection, transaction
from django.utils.dateparse import parse_datetime

from cases.caching import public_content_changed
from cases.editorial.transitions import record_restore
from cases.models import Case, CaseMerge
from cases.rules import is_case_id

from .exporting import CHUNK_SIZE, write_cases
from .importer import CaseImporter, mark_rows_visible
from .locking import exclusive_import
from .reading import Input
from .spelling import format_datetime
from .taxonomy import TaxonomyError, export_taxonomy, load_taxonomy, parse_taxonomy

CASES_FILE = "cases.jsonl"
TAXONOMY_FILE = "taxonomy.json"
STATE_FILE = "state.jsonl"
BACKUP_FILES = (CASES_FILE, TAXONOMY_FILE, STATE_FILE)
STATE_KEYS = {"id", "status", "published_at", "merged_into"}


class BackupError(Exception):
    """The backup cannot be restored; `problems` says every reason."""

    def __init__(self, problems):
        super().__init__("; ".join(problems))
        self.problems = problems


# --- backing up -----------------------------------------------------------------------


def write_backup(directory):
    """Write the three files into an existing directory; return how many cases it holds."""
    directory = Path(directory)
    live = Case.objects.live()
    with one_snapshot():
        with (directory / CASES_FILE).open("w", encoding="utf-8") as stream:
            count = write_cases(live, stream.write, json_lines=True)
        (directory / TAXONOMY_FILE).write_text(
            json.dumps(export_taxonomy(), ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
        )
        states = (
            live.order_by("public_id")
            .values_list("public_id", "status", "published_at", "merged_into__survivor__public_id")
            .iterator(chunk_size=CHUNK_SIZE)
        )
        with (directory / STATE_FILE).open("w", encoding="utf-8") as stream:
            for public_id, status, published_at, merged_into in states:
                line = {
                    "id": public_id,
                    "status": status,
                    "published_at": format_datetime(published_at),
                }
                if merged_into:
                    line["merged_into"] = merged_into
                stream.write(json.dumps(line) + "\n")
    return count


@contextmanager
def one_snapshot():
    """One transaction for every query of a backup, so that its three files agree even while
    editors work. PostgreSQL's default isolation gives each query a fresh snapshot; repeatable
    read keeps the first. (A SQLite transaction reads one snapshot already.)"""
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if outermost and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        yield


# --- restoring ------------------------------------------------------------------------


def restore_backup(directory, *, waiting=None):
    """Restore a backup in one transaction: all of it or, on any problem, nothing.

    Cases, terms and organisations in the backup replace those in the database; others are
    left alone.
    Every status it changes is recorded as a transition. Returns the importer's result.
    Raises BackupError or ImportFailed (bad cases). Waits for an import running meanwhile.
    """
    with exclusive_import(waiting=waiting):
        return restore(Path(directory))


def restore(directory):
    missing = [name for name in BACKUP_FILES if not (directory / name).is_file()]
    if missing:
        raise BackupError([f"{directory / name}: no such file" for name in missing])
    cases = Input(str(directory / CASES_FILE), directory / CASES_FILE, json_lines=True)
    state_path = directory / STATE_FILE
    problems, taxonomy = [], None
    try:
        taxonomy = read_taxonomy(directory / TAXONOMY_FILE)
    except (BackupError, TaxonomyError) as error:
        problems += error.problems
    try:
        check_states(state_path, case_ids(cases))
    except BackupError as error:
        problems += error.problems
    if problems:
        raise BackupError(problems)

    with transaction.atomic():
        # The backup is the truth: editors' labels and changes in this database give way.
        load_taxonomy(
            taxonomy.terms,
            organisations=taxonomy.organisations,
            force=True,
            term_redirects=taxonomy.term_redirects,
            organisation_redirects=taxonomy.organisation_redirects,
        )
        # Created as drafts so that no case is ever public "now"; the states follow.
        before = dict(Case.objects.live().values_list("public_id", "status"))
        importer = CaseImporter([cases], status=Case.Status.DRAFT, force=True, recorded=False)
        result = importer.run()
        changes = apply_states(state_path, before)
        record_restore(changes, note=f"restored from {directory}")
        public_content_changed()
    mark_rows_visible()
    return result


def read_taxonomy(path):
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as error:
        raise BackupError([f"{path}: not valid UTF-8 text ({error.reason})"]) from None
    return parse_taxonomy(text, label=str(path))


def case_ids(source):
    """The ids in cases.jsonl; the importer validates the cases themselves."""
    ids = set()
    for record in source.records():
        if isinstance(record.value, dict) and isinstance(record.value.get("id"), str):
            ids.add(record.value["id"])
    return ids


def parse_state(text):
    """(id, status, published_at, merged_into or None) from one line of state.jsonl, or raise
    ValueError."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"invalid JSON: {error.msg}") from None
    if not isinstance(value, dict):
        raise ValueError("must be an object with id, status and published_at")
    unknown = sorted(set(value) - STATE_KEYS)
    if unknown:
        raise ValueError(f"{unknown[0]}: unknown field")
    public_id, status, published = value.get("id"), value.get("status"), value.get("published_at")
    if not is_case_id(public_id):
        raise ValueError(f"id: {public_id!r} is not a case id")
    if status not in Case.Status.values:
        raise ValueError(f"status: {status!r} is not one of {', '.join(Case.Status.values)}")
    published_at = None
    if published is not None:
        try:
            published_at = parse_datetime(published) if isinstance(published, str) else None
        except ValueError:
            published_at = None
        if published_at is None or published_at.tzinfo is None:
            raise ValueError(
                f"published_at: {published!r} is not an ISO 8601 date and time with a time zone"
            )
    if status == Case.Status.PUBLISHED and published_at is None:
        raise ValueError("published_at: a published case needs its publication date")
    merged_into = value.get("merged_into")
    if merged_into is not None:
        if not is_case_id(merged_into) or merged_into == public_id:
            raise ValueError(f"merged_into: {merged_into!r} is not another case's id")
        if status != Case.Status.WITHDRAWN:
            raise ValueError("merged_into: only a withdrawn case was merged into another")
    return public_id, status, published_at, merged_into


def state_lines(path):
    """(line number, text) of each non-blank line, read a line at a time."""
    with path.open(encoding="utf-8-sig") as stream:
        for number, text in enumerate(stream, start=1):
            if text.strip():
                yield number, text


def id_of(text):
    """The id a line names, however wrong the rest of it is."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return value.get("id") if isinstance(value, dict) else None


def check_states(path, ids):
    """Raise BackupError naming every bad line, and every case without a state."""
    problems, seen = [], {}
    try:
        for number, text in state_lines(path):
            where = f"{path}: line {number}"
            try:
                public_id, _status, _published_at, merged_into = parse_state(text)
            except ValueError as error:
                problems.append(f"{where}: {error}")
                seen.setdefault(id_of(text), number)  # its case is not missing a line too
                continue
            if public_id not in ids:
                problems.append(f"{where}: {public_id} is not in {CASES_FILE}")
            elif merged_into is not None and merged_into not in ids:
                problems.append(f"{where}: merged_into: {merged_into} is not in {CASES_FILE}")
            elif public_id in seen:
                problems.append(
                    f"{where}: {public_id} appears twice (first on line {seen[public_id]})"
                )
            seen.setdefault(public_id, number)
    except UnicodeDecodeError as error:
        problems.append(f"{path}: not valid UTF-8 text ({error.reason})")
    problems += [f"{path}: {public_id} has no line" for public_id in sorted(ids - set(seen))]
    if problems:
        raise BackupError(problems)


def apply_states(path, before):
    """Set status and published_at of the restored cases, a batch of lines at a time; return
    (primary key, id, status before the restore or "", status now) of each it changed.
    `before`: the statuses of the cases that were in the database, by id."""
    changes = []
    states = (parse_state(text) for _number, text in state_lines(path))
    for batch in itertools.batched(states, CHUNK_SIZE):
        by_id = {public_id: (status, published_at) for public_id, status, published_at, _ in batch}
        cases = list(
            Case.objects.live()
            .filter(public_id__in=by_id)
            .only("public_id", "status", "published_at")
        )
        for case in cases:
            case.status, case.published_at = by_id[case.public_id]
            if before.get(case.public_id, "") != case.status:
                changes.append(
                    (case.pk, case.public_id, before.get(case.public_id, ""), case.status)
                )
        Case.objects.bulk_update(cases, ["status", "published_at"])
        restore_merges(cases, {public_id: merged for public_id, *_, merged in batch})
    return changes


def restore_merges(cases, merged_into):
    """The backup's word on which of these restored cases were merged into which: their
    merge records replaced by its."""
    CaseMerge.objects.filter(absorbed__in=cases).delete()
    survivors = dict(
        Case.objects.live()
        .filter(public_id__in={target for target in merged_into.values() if target})
        .values_list("public_id", "pk")
    )
    CaseMerge.objects.bulk_create(
        CaseMerge(
            absorbed=case,
            absorbed_public_id=case.public_id,
            survivor_id=survivors[merged_into[case.public_id]],
            note="restored from a backup",
        )
        for case in cases
        if merged_into.get(case.public_id)
    )
