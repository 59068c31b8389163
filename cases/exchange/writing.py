"""Writing cases from their normal exchange form (see validation.validate_case).

The importer writes many cases at a time with these; the editorial functions write one (an
editor's save, a restored version, a pending revision started or approved) with
`write_case`. Either way a case's content goes into the database through the same code,
and only from a normal form the validator made.
"""

import itertools
from collections import defaultdict
from types import SimpleNamespace

from django.db import connections, router
from django.db.models import Model
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime, parse_duration
from psycopg.copy import QueuedLibpqWriter

from cases.addresses import address_key
from cases.editorial.translation_state import update_translation_state
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
from cases.rules import IMPACT_FIELDS, LANGUAGES, TRACKED_FIELDS, TRANSLATED_FIELDS
from cases.search.text import remember_words, search_text_for

from .term_matching import TermMatcher

QUERY_CHUNK = 900  # stays under SQLite's limit on query parameters

# The columns that hold a case's content; status and editorial state are the CMS's own.
CONTENT_FIELDS = (
    ["search_text", "org", "date", "date_kind", "severity", "root_cause"]
    + ["detected_after", "resolved_after", "docs", "written_by", "reviewed_by", "reviewed_at"]
    + ["source_url", "licence", "updated_at", "import_fingerprint"]
    + ["translation_basis", "ko_missing", "en_missing", "ko_stale", "ko_stale_since"]
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
    instance of each for bulk_create cost more than all the rest of writing them. `rows`
    may be lazy: on PostgreSQL a thread sends each row while the next is being made, so
    the database stores one while Python prepares the next.
    """
    rows = iter(rows)
    first = next(rows, None)
    if first is None:
        return
    rows = itertools.chain([first], rows)
    table = model._meta.db_table
    connection = connections[router.db_for_write(model)]
    names = ", ".join(columns)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            raw = cursor.cursor
            statement = f"COPY {table} ({names}) FROM STDIN"
            with raw.copy(statement, writer=QueuedLibpqWriter(raw)) as copy:
                for row in rows:
                    copy.write_row(row)
        else:
            placeholders = ", ".join(["%s"] * len(columns))
            cursor.executemany(f"INSERT INTO {table} ({names}) VALUES ({placeholders})", list(rows))


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


def ensure_terms(cases, matcher=None):
    """Terms by (vocabulary, slug) for these cases (their normal forms), creating the new
    ones (see known_terms and create_terms)."""
    matcher = matcher or TermMatcher()
    found, new = known_terms(cases, matcher)
    return found | create_terms(new, matcher)


def known_terms(cases, matcher):
    """({(vocabulary, slug): term} of the terms these cases name, {(vocabulary, slug)} of
    the slugs no term answers to).

    A slug no term has as its own goes to the term the matcher finds for it (by name, alias
    or former slug: exchange.term_matching), and the case's own lists are rewritten to name
    that term, once. `matcher` is the run's, to report its choices; a single case's write
    makes its own, which reads the terms only if some slug is unknown.
    """
    found = {}
    wanted = slugs_named(cases)
    for chunk in chunked({slug for _, slug in wanted}):
        for term in Term.objects.filter(slug__in=chunk):
            found[(term.vocabulary, term.slug)] = term
    mapped, new = {}, set()
    for vocabulary, slug in sorted(wanted - set(found)):
        term = matcher.choose(vocabulary, slug).term
        if term is not None:
            mapped[(vocabulary, slug)] = term.slug
            found[(vocabulary, term.slug)] = term
        else:
            new.add((vocabulary, slug))
    if mapped:
        for data in cases:
            name_mapped_terms(data, mapped)
    return found, new


def slugs_named(cases):
    """{(vocabulary, slug)} of every term these cases name."""
    named = set()
    for data in cases:
        for list_field, vocabulary in LIST_VOCABULARIES.items():
            named.update((vocabulary, slug) for slug in data[list_field])
        if data["root_cause"]:
            named.add((Vocabulary.ROOT_CAUSE, data["root_cause"]))
    return named


def create_terms(keys, matcher):
    """New terms for these (vocabulary, slug) keys: labelled from the slug and unreviewed,
    unknown to the public until a reviewer accepts them."""
    created = [
        Term(vocabulary=vocabulary, slug=slug, label_en=Term.label_from_slug(slug), reviewed=False)
        for vocabulary, slug in sorted(keys)
    ]
    Term.objects.bulk_create(created)
    for term in created:
        matcher.add(term, created=True)
    return {(term.vocabulary, term.slug): term for term in created}


def name_mapped_terms(data, mapped):
    """Rewrite a case's normal form to name the terms its slugs mapped to ({(vocabulary,
    slug): the term's slug}), each term once where two of its names were given: what is
    written, and fingerprinted, is what the case then has."""
    for list_field, vocabulary in LIST_VOCABULARIES.items():
        slugs = [mapped.get((vocabulary, slug), slug) for slug in data[list_field]]
        data[list_field] = list(dict.fromkeys(slugs))
    if data["root_cause"]:
        data["root_cause"] = mapped.get(
            (Vocabulary.ROOT_CAUSE, data["root_cause"]), data["root_cause"]
        )


def optional(parse, text):
    return parse(text) if text else None


def case_columns(data, orgs, terms, words=None):
    """A case's own content, by model field name, from its normal form (`words`: those
    of its own texts, if already found; see cases.search.text.search_text_for)."""
    columns = {
        "public_id": data["id"],
        "org": orgs[data["org_slug"]],
        "date": parse_date(data["date"]),
        "date_kind": data["date_kind"],
        "severity": data["severity"],
        "root_cause": (
            terms[(Vocabulary.ROOT_CAUSE, data["root_cause"])] if data["root_cause"] else None
        ),
        "docs": data["docs"],
        "written_by": data["review"]["written_by"] or "",
        "reviewed_by": data["review"]["reviewed_by"] or "",
        "reviewed_at": optional(parse_datetime, data["review"]["reviewed_at"]),
        "updated_at": optional(parse_datetime, data["updated_at"]),
        "source_url": data["url"] or "",
        "licence": data.get("licence") or "",
        "search_text": search_text_for(data, terms, words),
    }
    for field in TRANSLATED_FIELDS:
        for language in LANGUAGES:
            columns[f"{field}_{language}"] = data[field][language]
    for field in IMPACT_FIELDS:
        for language in LANGUAGES:
            columns[f"impact_{field}_{language}"] = data["impact"][field][language]
    for field in ("detected_after", "resolved_after"):
        columns[field] = optional(parse_duration, data["timeline"][field])
    # An import brings both languages at once: every Korean text is current.
    state = SimpleNamespace(**columns, translation_basis={})
    update_translation_state(state)
    for name in ("translation_basis", "ko_stale", "ko_stale_since", "ko_missing", "en_missing"):
        columns[name] = getattr(state, name)
    return columns


def fill_case(case, data, orgs, terms, words=None):
    """Set a case's own columns from its normal form (not saved)."""
    for name, value in case_columns(data, orgs, terms, words).items():
        setattr(case, name, value)


def create_cases(items, values_of):
    """Insert a new case for each item, `values_of(item)` giving its field values
    (case_columns and the editorial state); return their primary keys, in order.

    On PostgreSQL the rows go in by COPY, with keys drawn from the table's own sequence: a
    model instance per case and Django's sixty-column INSERT cost more than the database's
    own work on them. Each case's values are made as its row is sent (see insert_rows).
    """
    if not items:
        return []
    connection = connections[router.db_for_write(Case)]
    if connection.vendor != "postgresql":
        cases = Case.objects.bulk_create([Case(**values_of(item)) for item in items])
        return [case.pk for case in cases]
    fields = Case._meta.concrete_fields
    now = timezone.now()
    defaults = {field.name: field.get_default() for field in fields}
    defaults.update(created=now, modified=now)

    def row(pk, values):
        cells = []
        for field in fields:
            if field.primary_key:
                value = pk
            elif field.name in values:
                value = values[field.name]
            elif field.name in TRACKED_FIELDS:
                # modeltranslation's own column holds the default language, English.
                value = values[f"{field.name}_en"]
            else:
                value = defaults[field.name]
            if isinstance(value, Model):
                value = value.pk
            cells.append(field.get_db_prep_save(value, connection))
        return cells

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
            [Case._meta.db_table, len(items)],
        )
        pks = [pk for (pk,) in cursor.fetchall()]
    insert_rows(
        Case,
        [field.column for field in fields],
        (row(pk, values_of(item)) for pk, item in zip(pks, items, strict=True)),
    )
    return pks


def replace_children(pairs, terms, *, new=frozenset()):
    """Terms, steps and sources of saved cases, replacing whatever they had.

    `pairs` holds (primary key, normal form) of each case; `new`, the keys of cases just
    created, which have nothing to replace.
    """
    pks = [pk for pk, _ in pairs if pk not in new]
    for chunk in chunked(pks):
        CaseTerm.objects.filter(case__in=chunk).delete()
        CaseStep.objects.filter(case__in=chunk).delete()
        Source.objects.filter(case__in=chunk).delete()
    case_terms, steps, sources = [], [], []
    for pk, data in pairs:
        position = 0
        for list_field, vocabulary in LIST_VOCABULARIES.items():
            for slug in data[list_field]:
                case_terms.append((pk, terms[(vocabulary, slug)].pk, position))
                position += 1
        for kind, list_field in (
            (CaseStep.Kind.REMEDIATION, "remediation"),
            (CaseStep.Kind.ACTION_ITEM, "action_items"),
        ):
            # `text` is modeltranslation's copy of the default language, English.
            steps += [
                (pk, kind.value, position, t["en"], t["en"], t["ko"])
                for position, t in enumerate(data[list_field])
            ]
        sources += [
            (pk, position, item["url"], address_key(item["url"]), item["kind"] or "")
            + (item["archived"] or "",)
            for position, item in enumerate(data["sources"])
        ]
    insert_rows(CaseTerm, ["case_id", "term_id", "position"], case_terms)
    insert_rows(CaseStep, ["case_id", "kind", "position", "text", "text_en", "text_ko"], steps)
    insert_rows(Source, ["case_id", "position", "url", "url_key", "kind", "archived"], sources)


def link_of(pk, data):
    """What write_links needs of a written case."""
    return pk, tuple(data["related"]), data["recurrence_of"]


def write_links(links, *, new=frozenset()):
    """Related cases and recurrences of written cases: `links` holds `link_of` tuples;
    `new`, the keys of cases just created, which have no links to replace.

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
    for chunk in chunked([pk for pk, _, _ in links if pk not in new]):
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
        if recurrence or pk not in new:  # (a new row has none to clear)
            by_target[pks.get(recurrence)].append(pk)
    for target, case_pks in by_target.items():
        for chunk in chunked(case_pks):
            # Touch only rows that change: rewriting a row also rewrites its index entries.
            rows = Case.objects.filter(pk__in=chunk)
            if target is None:
                rows.filter(recurrence_of__isnull=False).update(recurrence_of_id=None)
            else:
                rows.update(recurrence_of_id=target)


def names_of(case):
    """({slug: organisation}, {(vocabulary, slug): term}) of a case read with
    `Case.objects.for_exchange()`: what `write_case` needs of a copy of its content."""
    terms = {(ct.term.vocabulary, ct.term.slug): ct.term for ct in case.case_terms.all()}
    if case.root_cause:
        terms[(case.root_cause.vocabulary, case.root_cause.slug)] = case.root_cause
    return {case.org.slug: case.org}, terms


# The parts of a case's normal form written as rows of their own (replace_children,
# write_links) rather than as its columns.
CHILD_FIELDS = (*LIST_VOCABULARIES, "remediation", "action_items", "sources")
LINK_FIELDS = ("related", "recurrence_of")


def write_case(
    case,
    data,
    *,
    translation_basis=None,
    korean_changed=None,
    also=None,
    names=None,
    stored=None,
):
    """Write one case's whole content from its normal form and save it.

    As for an import, every Korean text is taken as current, unless `translation_basis`
    (the case's basis before this write) is given: then only the Korean of the fields in
    `korean_changed` is (see editorial.translation_state). `also`, if given, sets the
    case's editorial columns before the save, so that the row is written once. `names`:
    the organisations and terms of the stored case `data` was read from (`names_of`),
    which need not be looked up again. `stored`: the case's content as its rows hold it
    (`case_to_exchange` of it read with `for_exchange`): its terms, steps and sources, and
    its links, are written only if `data` changes them, since rewriting a row rewrites its
    index entries and costs the database more than comparing them costs us.
    """
    orgs, terms = names or ({}, {})
    if data["org_slug"] not in orgs:
        orgs = ensure_organisations([data])
    if not slugs_named([data]) <= terms.keys():
        terms = ensure_terms([data])
    stale_since = case.ko_stale_since
    # The words of a stored case's text are the library's already (each write, import and
    # migration remembers them): only those the new text brings are new.
    known = set(case.search_text.split())
    fill_case(case, data, orgs, terms)
    if translation_basis is not None:
        case.translation_basis, case.ko_stale_since = translation_basis, stale_since
        update_translation_state(case, korean_changed=korean_changed)
    if also:
        also(case)
    created = case._state.adding
    case.save()
    remember_words(word for word in case.search_text.split() if word not in known)
    # A row just inserted (a revision's working copy) has no children to replace.
    new = {case.pk} if created else frozenset()
    if not unchanged(stored, data, CHILD_FIELDS):
        replace_children([(case.pk, data)], terms, new=new)
    if not unchanged(stored, data, LINK_FIELDS):
        write_links([link_of(case.pk, data)], new=new)
    return case


def unchanged(stored, data, fields):
    """Whether the stored content (None: not known) has these fields as `data` gives them."""
    return stored is not None and all(stored[field] == data[field] for field in fields)
