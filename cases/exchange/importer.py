"""Importing exchange files: validate everything, then upsert in one transaction.

Pass one reads every input and validates every case, keeping only ids and a
few names in memory, so a library of any size fits; the normal forms go to a
temporary file. Only when nothing is wrong does pass two read them back and write
them in batches, inside one transaction: a run writes all of its cases or none. Meanwhile
a second process finds the words the cases are searched by (see exchange.words).
"""

import dataclasses
import pickle
import tempfile

from django.conf import settings
from django.db import connection, transaction

from cases.caching import public_content_changed
from cases.catalogue.changes import MOST_CASES, states_before
from cases.catalogue.facet_index import build as build_index
from cases.catalogue.sharing import share_when_committed
from cases.editorial.duplicates import resemblances
from cases.editorial.transitions import imported_state, record_import
from cases.exchange.priority import below_readers
from cases.models import Case
from cases.rendering_ahead import changed_with_pages_ahead
from cases.search.text import case_words, remember_words

from .locking import exclusive_import
from .organisations import OrganisationMatcher
from .reading import ProblemList, Record
from .serialize import case_to_exchange, fingerprint
from .term_matching import TermMatcher
from .validation import validate_case
from .words import spooled_words
from .writing import (
    CONTENT_FIELDS,
    case_columns,
    chunked,
    create_cases,
    create_terms,
    ensure_organisations,
    fill_case,
    known_terms,
    link_of,
    replace_children,
    slugs_named,
    write_links,
)

BATCH_SIZE = 500
# After this many written cases the planner's row estimates are stale enough to matter.
ANALYZE_AFTER = 1000
# The columns the public pages filter, join and sort on. Statistics of the long texts
# would cost seconds to gather (every sampled text is read back from TOAST) and plan nothing.
ANALYZED_COLUMNS = {
    "cases_case": [
        "id",
        "public_id",
        "status",
        "date",
        "org_id",
        "severity",
        "root_cause_id",
        "draft_of_id",
        "recurrence_of_id",
    ],
    "cases_caseterm": ["case_id", "term_id"],
    "cases_casestep": ["case_id"],
    "cases_source": ["case_id"],
    "cases_caserelation": ["from_case_id", "to_case_id"],
    "cases_term": [],
    "cases_organisation": [],
}


def limit_import_statements():
    """An import's statements have a limit of their own (settings.IMPORT_STATEMENT_TIMEOUT_MS,
    PostgreSQL), for its transaction only: an admin upload runs under the admin's."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT set_config('statement_timeout', %s, true)",
                [str(settings.IMPORT_STATEMENT_TIMEOUT_MS)],
            )


def refresh_planner_statistics():
    """PostgreSQL plans from table statistics; after a bulk load, refresh them at once rather
    than wait for autovacuum, or the first queries plan for empty tables (seen: 50x slower)."""
    if connection.vendor == "postgresql":
        tables = [
            f"{table} ({', '.join(columns)})" if columns else table
            for table, columns in ANALYZED_COLUMNS.items()
        ]
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE " + ", ".join(tables))


def mark_rows_visible():
    """VACUUM the tables an import wrote, once it has committed. Until a table's new pages
    are marked all-visible, every index-only scan of them reads the rows as well: after
    10,000 cases went into 120,000, the unfiltered list took 360 ms instead of 158 and a
    search matching every case 2.0 s instead of 0.46, for a VACUUM of 0.2 s. Autovacuum
    would wait until a fifth of the table is new. Inside a larger transaction (a restore)
    a VACUUM cannot run; the caller does it after."""
    if connection.vendor == "postgresql" and not connection.in_atomic_block:
        with connection.cursor() as cursor:
            cursor.execute("VACUUM " + ", ".join(ANALYZED_COLUMNS))


class ImportFailed(Exception):
    """The input is invalid; `problems` says every way it is (the first thousand of them,
    and how many more there are); `count` is how many there are."""

    def __init__(self, problems):
        said = problems.said() if isinstance(problems, ProblemList) else list(problems)
        self.count = problems.count if isinstance(problems, ProblemList) else len(problems)
        super().__init__(f"{self.count} problem(s)")
        self.problems = said


class _DryRunRollback(Exception):
    pass


@dataclasses.dataclass
class ImportResult:
    created: list[str] = dataclasses.field(default_factory=list)
    updated: list[str] = dataclasses.field(default_factory=list)
    unchanged: list[str] = dataclasses.field(default_factory=list)
    # Changed by an editor since their last import, so left as they are.
    skipped: list[str] = dataclasses.field(default_factory=list)
    # What became of each slug no term had as its own (exchange.term_matching.TermChoice):
    # mapped to a term by its name, or a new term held for review.
    terms: list = dataclasses.field(default_factory=list)

    @property
    def written(self):
        """How many cases the import wrote (created or updated)."""
        return len(self.created) + len(self.updated)

    @property
    def mapped_terms(self):
        return [choice for choice in self.terms if not choice.is_new]

    @property
    def new_terms(self):
        return [choice for choice in self.terms if choice.is_new]

    # Organisations the cases spelled otherwise than the one they were matched to:
    # "Gitlab → GitLab (gitlab)" (exchange.organisations).
    matched_organisations: list[str] = dataclasses.field(default_factory=list)
    # Written cases that look like another (cases.editorial.duplicates): warnings, for an
    # editor to merge or leave.
    duplicates: list = dataclasses.field(default_factory=list)
    # The most-read pages rendered before the commit, after a change of everything
    # (cases.rendering_ahead.RenderedAhead).
    rendered_ahead: object = None

    def counts(self):
        return {
            "created": len(self.created),
            "updated": len(self.updated),
            "unchanged": len(self.unchanged),
            "skipped": len(self.skipped),
        }


def shown_id(value):
    """The id a record gives itself, fit to name it by in a message (a valid one or not)."""
    value = value.get("id") if isinstance(value, dict) else None
    return value if isinstance(value, str) and value.isprintable() and len(value) <= 40 else None


class LocatedProblem(str):
    """A problem of one case, as the command line says it (the string), that also keeps its
    parts, so that the admin's report can show each in a column of its own: the record's
    place in its file ("line 3"), the case's id, the field's path, the message."""

    def __new__(cls, record, case_id, path, message):
        where = location(record, case_id)
        problem = super().__new__(
            cls, f"{where}: {path}: {message}" if path else f"{where}: {message}"
        )
        problem.where = record.where
        problem.case_id = case_id or ""
        problem.path = path
        problem.message = message
        return problem


def location(record, case_id=None):
    parts = [record.label]
    if record.where and not case_id:
        parts.append(record.where)
    if case_id:
        parts.append(case_id)
    return ": ".join(parts)


def current_fingerprint(case):
    normal, _problems = validate_case(case_to_exchange(case))
    return fingerprint(normal) if normal else ""


class CaseImporter:
    """`user`: the account the import runs for, if any; `note`: what its transition records
    say of it (who ran it, from which files); `recorded`: whether it records its creations
    and updates as transitions at all (a restore records its own)."""

    def __init__(
        self,
        inputs,
        *,
        status=Case.Status.PUBLISHED,
        force=False,
        progress=None,
        user=None,
        note="",
        recorded=True,
        waiting=None,
    ):
        self.inputs = inputs
        self.status = status
        self.force = force
        self.progress = progress or (lambda done, total: None)
        self.user = user
        self.note = note
        self.recorded = recorded
        self.waiting = waiting

    # --- pass one: validate everything ---------------------------------------

    def validate(self):
        """Return the number of cases, or raise ImportFailed listing every problem.

        The normal form of every valid case is kept in `self.spool` for pass two: reading
        it back costs a tenth of validating again.
        """
        # Named, so that the process finding words reads it too (closing it removes it).
        self.spool = tempfile.NamedTemporaryFile(prefix="import-")  # noqa: SIM115 (closed after pass two, or on failure)
        problems = ProblemList()
        first_seen = {}  # case id -> where it was first seen
        # Each case is stored as the organisation it names, known or new, however spelled.
        self.organisations = OrganisationMatcher()
        references = {}  # referenced case id -> where it was first referenced
        for source in self.inputs:
            for record in source.records():
                case, case_problems = validate_case(record.value)
                case_id = shown_id(record.value)
                problems.extend(
                    LocatedProblem(record, case_id, problem.path, problem.message)
                    for problem in case_problems
                )
                if case is None:
                    continue
                if case["id"] in first_seen:
                    problems.append(
                        LocatedProblem(
                            record,
                            case_id,
                            "id",
                            f"{case['id']} appears twice in this run "
                            f"(first in {first_seen[case['id']]})",
                        )
                    )
                    continue
                first_seen[case["id"]] = record.label + (f" {record.where}" if record.where else "")
                case["org"], case["org_slug"] = self.organisations.resolve(
                    case["org"], case["org_slug"]
                )
                pickle.dump(case, self.spool, protocol=pickle.HIGHEST_PROTOCOL)
                place = Record(record.label, record.where, None)  # not the whole case
                for path, ref in self.references_of(case):
                    references.setdefault(ref, (place, case_id, path))
            problems.extend(source.problems)
        missing = set(references) - set(first_seen)
        for chunk in chunked(missing):
            missing -= set(
                Case.objects.filter(public_id__in=chunk).values_list("public_id", flat=True)
            )
        for ref in sorted(missing):
            problems.append(
                LocatedProblem(
                    *references[ref], f"{ref} is neither in the database nor in this import"
                )
            )
        if problems:
            self.spool.close()
            raise ImportFailed(problems)
        self.seen_ids = list(first_seen)
        return len(first_seen)

    @staticmethod
    def references_of(case):
        for index, ref in enumerate(case["related"]):
            yield f"related[{index}]", ref
        if case["recurrence_of"]:
            yield "recurrence_of", case["recurrence_of"]

    # --- pass two: write ----------------------------------------------------

    def run(self, *, dry_run=False):
        with exclusive_import(waiting=self.waiting):
            with below_readers():
                result = self.validate_and_write(dry_run)
            # At the readers' priority: until it ends, their index-only scans of the new rows
            # read the rows too, and at the import's, with readers keeping every core busy,
            # it may take seconds (a backend below_readers could not raise back is closed).
            if not dry_run and result.written >= ANALYZE_AFTER:
                mark_rows_visible()
            return result

    def validate_and_write(self, dry_run):
        total = self.validate()
        result = ImportResult(matched_organisations=self.organisations.said())
        self.term_matcher = TermMatcher()
        try:
            with transaction.atomic():
                limit_import_statements()
                # A small import is a change of its cases only (cases.catalogue.changes).
                before = self.states_before(total)
                # (pk, related ids, recurrence) of written cases, linked at the end: only the
                # links are kept, not the cases, so memory stays flat however many there are.
                self.links = []
                # (pk, id) of created cases, (pk, id, status) of updated ones, for the record.
                self.created, self.updated = [], []
                self.write_all(total, result)
                write_links(self.links)
                result.terms = self.term_matcher.report()
                result.duplicates = resemblances(
                    [pk for pk, _id in self.created] + [pk for pk, _id, _status in self.updated]
                )
                if before is not None:
                    before["pks"].update(pk for pk, _id in self.created)
                if self.recorded:
                    record_import(
                        created=self.created,
                        updated=self.updated,
                        status=self.status,
                        user=self.user,
                        note=self.note,
                    )
                if dry_run:
                    raise _DryRunRollback
                written = result.written
                if written >= ANALYZE_AFTER:
                    refresh_planner_statistics()
                if written and before is None:
                    # Every process needs a new index (built here, once) and every page anew
                    # (the most read rendered here).
                    _version, result.rendered_ahead = changed_with_pages_ahead(
                        connection.alias,
                        prepare=lambda version: share_when_committed(
                            connection.alias, version, build_index
                        ),
                        change=lambda: public_content_changed(None),
                    )
                elif written:
                    public_content_changed(before)
        except _DryRunRollback:
            pass
        return result

    def states_before(self, total):
        if total > MOST_CASES:
            return None
        ids = list(self.seen_ids)
        return states_before(Case.objects.filter(public_id__in=ids).values_list("pk", flat=True))

    def write_all(self, total, result):
        self.spool.flush()
        batch = []
        done = 0
        with self.spool, spooled_words(self.spooled_cases, total, BATCH_SIZE) as words:
            for case in self.spooled_cases():
                batch.append((case, next(words) if words else None))
                if len(batch) == BATCH_SIZE:
                    self.write_batch(batch, result)
                    done += len(batch)
                    self.progress(done, total)
                    batch = []
            if batch:
                self.write_batch(batch, result)
                self.progress(total, total)

    def spooled_cases(self):
        """The cases pass one validated, in their order, read by the spool's name: the
        process finding words reads them too, at its own pace. (Our own file: safe to
        unpickle.)"""
        with open(self.spool.name, "rb") as spool:
            while True:
                try:
                    yield pickle.load(spool)
                except EOFError:
                    return

    def write_batch(self, batch, result):
        """Write one batch of (normal form, its words or None) pairs."""
        words = {data["id"]: found.split() if found else None for data, found in batch}
        cases = [data for data, _ in batch]
        existing = {
            case.public_id: case
            for case in Case.objects.live()
            .for_exchange()
            .filter(public_id__in=[c["id"] for c in cases])
        }
        orgs = ensure_organisations(cases)
        # Before the fingerprints: a case's slugs may be rewritten to the terms they map to.
        terms, new_terms = known_terms(cases, self.term_matcher)
        to_create, to_update = [], []
        for data in cases:
            incoming = fingerprint(data)
            case = existing.get(data["id"])
            if case is None:
                to_create.append((data, incoming))
                result.created.append(data["id"])
                continue
            current = current_fingerprint(case)
            if current == incoming:
                if case.import_fingerprint != incoming:
                    Case.objects.filter(pk=case.pk).update(import_fingerprint=incoming)
                result.unchanged.append(data["id"])
            elif case.import_fingerprint != current and not self.force:
                result.skipped.append(data["id"])
            else:
                case.import_fingerprint = incoming
                to_update.append((case, data))
                result.updated.append(data["id"])

        # New terms for the cases written only: a skipped case makes none.
        written_data = [data for data, _ in to_create] + [data for _, data in to_update]
        terms |= create_terms(new_terms & slugs_named(written_data), self.term_matcher)

        def new_case(item):
            columns = case_columns(item[0], orgs, terms, words[item[0]["id"]])
            editorial = imported_state(self.status, columns["reviewed_at"], columns["updated_at"])
            return columns | editorial | {"import_fingerprint": item[1]}

        created_pks = create_cases(to_create, new_case)
        for case, data in to_update:
            fill_case(case, data, orgs, terms, words[data["id"]])
        remember_words(
            word for data in written_data for word in (words[data["id"]] or case_words(data))
        )
        if to_update:
            Case.objects.bulk_update([case for case, _ in to_update], CONTENT_FIELDS)
        written = list(zip(created_pks, (data for data, _ in to_create), strict=True))
        written += [(case.pk, data) for case, data in to_update]
        self.created += [(pk, data["id"]) for pk, data in written[: len(created_pks)]]
        self.updated += [(case.pk, case.public_id, case.status) for case, _ in to_update]
        replace_children(written, terms, new=set(created_pks))
        self.links.extend(link_of(pk, data) for pk, data in written)
