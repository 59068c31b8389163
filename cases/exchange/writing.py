"""Writing cases from their normal exchange form (see validation.validate_case).

The importer writes many cases at a time with these; the workflow writes one (approving
a pending revision, restoring a version) with `write_case`. Either way a case's content
goes into the database through the same code.
"""

from collections import defaultdict

from django.db import connections, router
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
from cases.translation_state import update_translation_state

from .validation import IMPACT_FIELDS, LANGUAGES, TRANSLATED_FIELDS

QUERY_CHUNK = 900  # stays under SQLite's limit on query parameters

# The columns that hold a case's content; status and editorial state are the CMS's own.
CONTENT_FIELDS = (
    ["search_text", "org", "date", "date_kind", "severity", "root_cause"]
    + ["detected_after", "resolved_after", "docs", "written_by", "reviewed_by", "reviewed_at"]
    + ["source_url", "updated_at", "import_fingerprint"]
    + ["translation_basis", "ko_missing", "en_missing", "ko_stale"]
    + [f"{f}_{lang}" for f in TRANSLATED_FIELDS for lang in LANGUAGES]
    + [f"impact_{f}_{lang}" for f in IMPACT_FIELDS for lang in LANGUAGES]
)


def chunked(items, size=QUERY_CHUNK):
    items = list(items)
    for start in range(0, len(items), size):
        yield items[start : start + size]


def insert_rows(model, columns, rows):
    """New rows of a plain table: COPY on PostgreSQL, executemany elsewhere.

    The importer writes about a dozen terms, steps and sources a case; making a model
    instance of each for bulk_create cost more than all the rest of writing them.
    """
    rows = list(rows)
    if not rows:
        return
    table = model._meta.db_table
    connection = connections[router.db_for_write(model)]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with cursor.cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
        else:
            placeholders = ", ".join(["%s"] * len(columns))
            cursor.executemany(
                f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({placeholders})", rows
            )


def ensure_organisations(cases):
    """Organisations by slug for these cases, creating the missing ones."""
    wanted = {data["org_slug"]: data["org"] for data in cases}
    found = {org.slug: org for org in Organisation.objects.filter(slug__in=wanted)}
    missing = [
        Organisation(slug=slug, name=name) for slug, name in wanted.items() if slug not in found
    ]
    Organisation.objects.bulk_create(missing)
    found.update({org.slug: org for org in missing})
    return found


def ensure_terms(cases):
    """Terms by (vocabulary, slug) for these cases; unknown slugs get a label from the slug."""
    wanted = set()
    for data in cases:
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


def fill_case(case, data, orgs, terms):
    """Set a case's own columns from its normal form (not saved)."""
    case.public_id = data["id"]
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
    case.search_text = search_text_for(data, terms)
    update_translation_state(case)


def replace_children(pairs, terms):
    """Terms, steps and sources of saved cases, replacing whatever they had."""
    pks = [case.pk for case, _ in pairs]
    for chunk in chunked(pks):
        CaseTerm.objects.filter(case__in=chunk).delete()
        CaseStep.objects.filter(case__in=chunk).delete()
        Source.objects.filter(case__in=chunk).delete()
    case_terms, steps, sources = [], [], []
    for case, data in pairs:
        position = 0
        for list_field, vocabulary in LIST_VOCABULARIES.items():
            for slug in data[list_field]:
                case_terms.append((case.pk, terms[(vocabulary, slug)].pk, position))
                position += 1
        for kind, list_field in (
            (CaseStep.Kind.REMEDIATION, "remediation"),
            (CaseStep.Kind.ACTION_ITEM, "action_items"),
        ):
            # `text` is modeltranslation's copy of the default language, English.
            steps += [
                (case.pk, kind.value, position, t["en"], t["en"], t["ko"])
                for position, t in enumerate(data[list_field])
            ]
        sources += [
            (case.pk, position, item["url"], item["kind"] or "", item["archived"] or "")
            for position, item in enumerate(data["sources"])
        ]
    insert_rows(CaseTerm, ["case_id", "term_id", "position"], case_terms)
    insert_rows(CaseStep, ["case_id", "kind", "position", "text", "text_en", "text_ko"], steps)
    insert_rows(Source, ["case_id", "position", "url", "kind", "archived"], sources)


def link_of(pk, data):
    """What write_links needs of a written case."""
    return pk, tuple(data["related"]), data["recurrence_of"]


def write_links(links):
    """Related cases and recurrences of written cases: `links` holds `link_of` tuples.

    Written once every case of a run exists, since cases may name each other.
    """
    ids = set()
    for _pk, related, recurrence in links:
        ids.update(related)
        if recurrence:
            ids.add(recurrence)
    pks = {}
    for chunk in chunked(ids):
        pks.update(Case.objects.live().filter(public_id__in=chunk).values_list("public_id", "pk"))
    for chunk in chunked([pk for pk, _, _ in links]):
        CaseRelation.objects.filter(from_case__in=chunk).delete()
    insert_rows(
        CaseRelation,
        ["from_case_id", "to_case_id", "position"],
        (
            (pk, pks[ref], position)
            for pk, related, _ in links
            for position, ref in enumerate(related)
        ),
    )
    by_target = defaultdict(list)
    for pk, _related, recurrence in links:
        by_target[pks.get(recurrence)].append(pk)
    for target, case_pks in by_target.items():
        for chunk in chunked(case_pks):
            # Touch only rows that change: rewriting a row also rewrites its index entries.
            rows = Case.objects.filter(pk__in=chunk)
            if target is None:
                rows.filter(recurrence_of__isnull=False).update(recurrence_of_id=None)
            else:
                rows.update(recurrence_of_id=target)


def write_case(case, data):
    """Write one case's whole content from its normal form and save it."""
    orgs, terms = ensure_organisations([data]), ensure_terms([data])
    fill_case(case, data, orgs, terms)
    case.save()
    replace_children([(case, data)], terms)
    write_links([link_of(case.pk, data)])
    return case
