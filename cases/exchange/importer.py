"""Importing exchange files: validate everything, then upsert in one transaction.

Pass one reads every input and validates every case, keeping only ids and a
few names, so a library of any size fits in memory. Only when nothing is wrong
does pass two read the inputs again and write them in batches, inside one
transaction: a run writes all of its cases or none.
"""

import dataclasses
from collections import defaultdict

from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime, parse_duration

from cases.models import (
    LIST_VOCABULARIES,
    Case,
    CaseRelation,
    CaseStep,
    CaseTerm,
    Organisation,
    Source,
    Term,
    Vocabulary,
)
from cases.search import search_text_for

from .serialize import case_to_exchange, fingerprint
from .validation import IMPACT_FIELDS, LANGUAGES, TRANSLATED_FIELDS, validate_case

BATCH_SIZE = 500
QUERY_CHUNK = 900  # stays under SQLite's limit on query parameters

# Case columns an import writes; everything else (status, history) is the CMS's own.
CONTENT_FIELDS = (
    [
        "search_text",
        "org",
        "date",
        "date_kind",
        "severity",
        "root_cause",
        "detected_after",
        "resolved_after",
    ]
    + ["docs", "written_by", "reviewed_by", "reviewed_at", "source_url", "updated_at"]
    + ["import_fingerprint"]
    + [f"{f}_{lang}" for f in TRANSLATED_FIELDS for lang in LANGUAGES]
    + [f"impact_{f}_{lang}" for f in IMPACT_FIELDS for lang in LANGUAGES]
)


class ImportFailed(Exception):
    """The input is invalid; `problems` says every way it is."""

    def __init__(self, problems):
        super().__init__(f"{len(problems)} problem(s)")
        self.problems = problems


class _DryRunRollback(Exception):
    pass


@dataclasses.dataclass
class ImportResult:
    created: list[str] = dataclasses.field(default_factory=list)
    updated: list[str] = dataclasses.field(default_factory=list)
    unchanged: list[str] = dataclasses.field(default_factory=list)
    # Changed by an editor since their last import, so left as they are.
    skipped: list[str] = dataclasses.field(default_factory=list)

    def counts(self):
        return {
            "created": len(self.created),
            "updated": len(self.updated),
            "unchanged": len(self.unchanged),
            "skipped": len(self.skipped),
        }


def chunked(items, size=QUERY_CHUNK):
    items = list(items)
    for start in range(0, len(items), size):
        yield items[start : start + size]


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
    def __init__(self, inputs, *, status=Case.Status.PUBLISHED, force=False, progress=None):
        self.inputs = inputs
        self.status = status
        self.force = force
        self.progress = progress or (lambda done, total: None)

    # --- pass one: validate everything ---------------------------------------

    def validate(self):
        """Return the number of cases, or raise ImportFailed listing every problem."""
        problems = []
        first_seen = {}  # case id -> where it was first seen
        org_names = {}  # org slug -> (name, where)
        references = {}  # referenced case id -> where it was first referenced
        for source in self.inputs:
            for record in source.records():
                case, case_problems = validate_case(record.value)
                case_id = record.value.get("id") if isinstance(record.value, dict) else None
                case_id = case_id if isinstance(case_id, str) and case_id else None
                where = location(record, case_id)
                problems.extend(f"{where}: {problem}" for problem in case_problems)
                if case is None:
                    continue
                if case["id"] in first_seen:
                    problems.append(
                        f"{where}: id: {case['id']} appears twice in this run "
                        f"(first in {first_seen[case['id']]})"
                    )
                    continue
                first_seen[case["id"]] = record.label + (f" {record.where}" if record.where else "")
                name, name_where = org_names.setdefault(case["org_slug"], (case["org"], where))
                if name != case["org"]:
                    problems.append(
                        f"{where}: org: {case['org']!r} has the slug {case['org_slug']!r}, which "
                        f"{name_where} gives to {name!r}"
                    )
                for path, ref in self.references_of(case):
                    references.setdefault(ref, f"{where}: {path}")
            problems.extend(source.problems)
        missing = set(references) - set(first_seen)
        for chunk in chunked(missing):
            missing -= set(
                Case.objects.filter(public_id__in=chunk).values_list("public_id", flat=True)
            )
        for ref in sorted(missing):
            problems.append(
                f"{references[ref]}: {ref} is neither in the database nor in this import"
            )
        if problems:
            raise ImportFailed(problems)
        return len(first_seen)

    @staticmethod
    def references_of(case):
        for index, ref in enumerate(case["related"]):
            yield f"related[{index}]", ref
        if case["recurrence_of"]:
            yield "recurrence_of", case["recurrence_of"]

    # --- pass two: write ----------------------------------------------------

    def run(self, *, dry_run=False):
        total = self.validate()
        result = ImportResult()
        try:
            with transaction.atomic():
                self.links = []  # (case id, related ids, recurrence_of) of written cases
                batch = []
                done = 0
                for case in self.normal_cases():
                    batch.append(case)
                    if len(batch) == BATCH_SIZE:
                        self.write_batch(batch, result)
                        done += len(batch)
                        self.progress(done, total)
                        batch = []
                if batch:
                    self.write_batch(batch, result)
                    self.progress(total, total)
                self.write_links()
                if dry_run:
                    raise _DryRunRollback
        except _DryRunRollback:
            pass
        return result

    def normal_cases(self):
        for source in self.inputs:
            for record in source.records():
                case, _problems = validate_case(record.value)
                if case is None:  # the files changed between the passes
                    raise ImportFailed([f"{location(record)}: changed while being imported"])
                yield case

    def write_batch(self, batch, result):
        existing = {
            case.public_id: case
            for case in Case.objects.for_exchange().filter(public_id__in=[c["id"] for c in batch])
        }
        orgs = self.organisations(batch)
        terms = self.terms(batch)
        to_create, to_update = [], []
        for data in batch:
            incoming = fingerprint(data)
            case = existing.get(data["id"])
            if case is None:
                case = Case(public_id=data["id"], status=self.status)
                if self.status == Case.Status.PUBLISHED:
                    case.published_at = timezone.now()
                to_create.append((case, data))
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
                to_update.append((case, data))
                result.updated.append(data["id"])

        for case, data in to_create + to_update:
            self.fill(case, data, orgs, terms)
        Case.objects.bulk_create([case for case, _ in to_create])
        if to_update:
            Case.objects.bulk_update([case for case, _ in to_update], CONTENT_FIELDS)
            updated_pks = [case.pk for case, _ in to_update]
            CaseTerm.objects.filter(case__in=updated_pks).delete()
            CaseStep.objects.filter(case__in=updated_pks).delete()
            Source.objects.filter(case__in=updated_pks).delete()
            CaseRelation.objects.filter(from_case__in=updated_pks).delete()
        self.write_children(to_create + to_update, terms)
        self.links.extend(
            (data["id"], data["related"], data["recurrence_of"])
            for _, data in to_create + to_update
        )

    @staticmethod
    def fill(case, data, orgs, terms):
        case.org = orgs[data["org_slug"]]
        case.date = parse_date(data["date"])
        case.date_kind = data["date_kind"]
        case.severity = data["severity"]
        case.root_cause = (
            terms[(Vocabulary.ROOT_CAUSE, data["root_cause"])] if data["root_cause"] else None
        )
        for field in TRANSLATED_FIELDS:
            for language in LANGUAGES:
                setattr(case, f"{field}_{language}", data[field][language])
        for field in IMPACT_FIELDS:
            for language in LANGUAGES:
                setattr(case, f"impact_{field}_{language}", data["impact"][field][language])
        for field in ("detected_after", "resolved_after"):
            value = data["timeline"][field]
            setattr(case, field, parse_duration(value) if value else None)
        case.docs = data["docs"]
        case.written_by = data["review"]["written_by"] or ""
        case.reviewed_by = data["review"]["reviewed_by"] or ""
        reviewed_at = data["review"]["reviewed_at"]
        case.reviewed_at = parse_datetime(reviewed_at) if reviewed_at else None
        case.updated_at = parse_datetime(data["updated_at"]) if data["updated_at"] else None
        case.source_url = data["url"] or ""
        case.import_fingerprint = fingerprint(data)
        case.search_text = search_text_for(data, terms)

    @staticmethod
    def write_children(pairs, terms):
        case_terms, steps, sources = [], [], []
        for case, data in pairs:
            position = 0
            for list_field, vocabulary in LIST_VOCABULARIES.items():
                for slug in data[list_field]:
                    case_terms.append(
                        CaseTerm(case=case, term=terms[(vocabulary, slug)], position=position)
                    )
                    position += 1
            for kind, list_field in (
                (CaseStep.Kind.REMEDIATION, "remediation"),
                (CaseStep.Kind.ACTION_ITEM, "action_items"),
            ):
                for position, text in enumerate(data[list_field]):
                    steps.append(
                        CaseStep(
                            case=case,
                            kind=kind,
                            position=position,
                            text_en=text["en"],
                            text_ko=text["ko"],
                        )
                    )
            for position, item in enumerate(data["sources"]):
                sources.append(
                    Source(
                        case=case,
                        position=position,
                        url=item["url"],
                        kind=item["kind"] or "",
                        archived=item["archived"] or "",
                    )
                )
        CaseTerm.objects.bulk_create(case_terms)
        CaseStep.objects.bulk_create(steps)
        Source.objects.bulk_create(sources)

    def write_links(self):
        """Related cases and recurrences, once every case of the run exists."""
        ids = {case_id for case_id, _, _ in self.links}
        ids |= {ref for _, related, _ in self.links for ref in related}
        ids |= {recurrence for _, _, recurrence in self.links if recurrence}
        pks = {}
        for chunk in chunked(ids):
            pks.update(Case.objects.filter(public_id__in=chunk).values_list("public_id", "pk"))
        relations = [
            CaseRelation(from_case_id=pks[case_id], to_case_id=pks[ref], position=position)
            for case_id, related, _ in self.links
            for position, ref in enumerate(related)
        ]
        CaseRelation.objects.bulk_create(relations)
        by_target = defaultdict(list)
        for case_id, _, recurrence in self.links:
            by_target[pks.get(recurrence)].append(pks[case_id])
        for target, case_pks in by_target.items():
            for chunk in chunked(case_pks):
                Case.objects.filter(pk__in=chunk).update(recurrence_of_id=target)

    # --- lookups created on demand -------------------------------------------

    @staticmethod
    def organisations(batch):
        wanted = {data["org_slug"]: data["org"] for data in batch}
        found = {org.slug: org for org in Organisation.objects.filter(slug__in=wanted)}
        missing = [
            Organisation(slug=slug, name=name) for slug, name in wanted.items() if slug not in found
        ]
        Organisation.objects.bulk_create(missing)
        found.update({org.slug: org for org in missing})
        return found

    @staticmethod
    def terms(batch):
        wanted = set()
        for data in batch:
            for list_field, vocabulary in LIST_VOCABULARIES.items():
                wanted.update((vocabulary, slug) for slug in data[list_field])
            if data["root_cause"]:
                wanted.add((Vocabulary.ROOT_CAUSE, data["root_cause"]))
        found = {}
        for chunk in chunked({slug for _, slug in wanted}):
            for term in Term.objects.filter(slug__in=chunk):
                found[(term.vocabulary, term.slug)] = term
        missing = [
            Term(vocabulary=vocabulary, slug=slug, label_en=Term.label_from_slug(slug))
            for vocabulary, slug in sorted(wanted - set(found))
        ]
        Term.objects.bulk_create(missing)
        found.update({(term.vocabulary, term.slug): term for term in missing})
        return found
