"""Loading the taxonomy file (data/taxonomy.json): labels, descriptions and aliases of terms,
and names and aliases of organisations (docs/taxonomy-format.md).

The file maps each vocabulary to a list of terms, and "organisations" to a list of
organisations:
    {"component": [{"slug": "shared-filesystem",
                    "label": {"en": "Shared filesystem", "ko": "공유 파일 시스템"},
                    "description": {"en": "...", "ko": "..."},
                    "aliases": {"en": ["HDFS", "NFS"], "ko": ["분산 저장소"]},
                    "question": {"en": "...?", "ko": "...?"}}], ...,
     "organisations": [{"slug": "meta", "name": "Meta",
                        "aliases": {"en": ["Facebook"], "ko": ["메타", "페이스북"]}}]}
"""

import json
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Q

from cases.caching import public_content_changed
from cases.models import Case, Organisation, OrganisationRedirect, Term, TermRedirect, Vocabulary
from cases.rules import LANGUAGES, MAX_NAME_LENGTH, MAX_QUESTION_LENGTH, is_slug, url_problem
from cases.search.text import refresh_search_text

TERM_KEYS = {"slug", "label", "description", "aliases", "reviewed", "question", "former_slugs"}
# The one key of the file that is not a vocabulary.
ORGANISATIONS = "organisations"
ORGANISATION_KEYS = {"slug", "name", "name_ko", "aliases", "links", "former_slugs"}


class TaxonomyError(Exception):
    def __init__(self, problems):
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass
class Taxonomy:
    """A taxonomy file read: field dicts for Term, and for Organisation; and the slugs of
    those merged into them, which still lead to them: (vocabulary, old slug, slug) of
    terms, (old slug, slug) of organisations."""

    terms: list = field(default_factory=list)
    organisations: list = field(default_factory=list)
    term_redirects: list = field(default_factory=list)
    organisation_redirects: list = field(default_factory=list)


def parse_taxonomy(text, label="taxonomy"):
    """Validate a taxonomy document; return its Taxonomy, or raise TaxonomyError naming every
    problem."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise TaxonomyError(
            [f"{label}: line {error.lineno}, column {error.colno}: invalid JSON: {error.msg}"]
        ) from None
    if not isinstance(document, dict):
        raise TaxonomyError([f"{label}: must be an object of vocabularies and organisations"])
    problems, taxonomy = [], Taxonomy()
    for key, items in document.items():
        if key == ORGANISATIONS:
            taxonomy.organisations = parse_organisations(
                items, f"{label}: {key}", problems, taxonomy.organisation_redirects
            )
            continue
        if key not in Vocabulary.values:
            problems.append(f"{label}: {key}: unknown vocabulary")
            continue
        if not isinstance(items, list):
            problems.append(f"{label}: {key}: must be a list of terms")
            continue
        for index, item in enumerate(items):
            where = f"{label}: {key}[{index}]"
            fields = parse_term(item, key, where, problems)
            if fields is not None:
                taxonomy.terms.append(fields)
                taxonomy.term_redirects += [
                    (key, old, fields["slug"]) for old in former_slugs(item, where, problems)
                ]
    check_former_slugs(taxonomy, label, problems)
    if problems:
        raise TaxonomyError(problems)
    return taxonomy


def former_slugs(item, path, problems):
    """The slugs of those merged into this term or organisation (`former_slugs`)."""
    value = item.get("former_slugs", [])
    if not isinstance(value, list) or not all(is_slug(slug) for slug in value):
        problems.append(f"{path}.former_slugs: must be a list of slugs")
        return []
    return value


def check_former_slugs(taxonomy, label, problems):
    """A slug leads to one place: not to two, and not away from a term or organisation the
    file keeps under that slug."""
    kept = {(t["vocabulary"], t["slug"]) for t in taxonomy.terms}
    leads = [((vocabulary, old), slug) for vocabulary, old, slug in taxonomy.term_redirects]
    kept |= {(ORGANISATIONS, org["slug"]) for org in taxonomy.organisations}
    leads += [((ORGANISATIONS, old), slug) for old, slug in taxonomy.organisation_redirects]
    seen = set()
    for (vocabulary, old), slug in leads:
        if (vocabulary, old) in kept:
            problems.append(
                f"{label}: {vocabulary}: {old!r} is a former slug of {slug!r} and a slug of its own"
            )
        elif (vocabulary, old) in seen:
            problems.append(f"{label}: {vocabulary}: {old!r} is a former slug twice")
        seen.add((vocabulary, old))


def parse_term(item, vocabulary, path, problems):
    """Term's fields from one item of a vocabulary's list, or None; problems go to `problems`."""
    if not isinstance(item, dict):
        problems.append(f"{path}: must be an object")
        return None
    unknown_fields(item, TERM_KEYS, path, problems)
    slug = item.get("slug")
    if not is_slug(slug):
        problems.append(f"{path}.slug: {slug!r} is not a slug")
        return None
    fields = {"vocabulary": vocabulary, "slug": slug}
    # A file without questions (every one before them) leaves the terms' questions as they are.
    translated = ["label", "description"] + (["question"] if "question" in item else [])
    for key in translated:
        value = translations(item, key, path, problems)
        for language, text in value.items():
            if not isinstance(text, str):
                problems.append(f"{path}.{key}.{language}: must be a string")
                continue
            if key == "question" and len(text) > MAX_QUESTION_LENGTH:
                problems.append(
                    f"{path}.{key}.{language}: at most {MAX_QUESTION_LENGTH} characters"
                )
                continue
            fields[f"{key}_{language}"] = text
    fields |= parse_aliases(item, path, problems)
    # A term the file names is reviewed, unless it says otherwise (a backup of one that an
    # import holds for review).
    reviewed = item.get("reviewed", True)
    if not isinstance(reviewed, bool):
        problems.append(f"{path}.reviewed: must be true or false")
    fields["reviewed"] = reviewed is not False
    if not fields.get("label_en"):
        problems.append(f"{path}.label.en: an English label is required")
    return fields


def parse_organisations(items, path, problems, redirects):
    """Organisation's fields for each item of the file's "organisations" list; the slugs
    merged into each go to `redirects`."""
    if not isinstance(items, list):
        problems.append(f"{path}: must be a list of organisations")
        return []
    organisations, first_at = [], {}
    for index, item in enumerate(items):
        where = f"{path}[{index}]"
        if not isinstance(item, dict):
            problems.append(f"{where}: must be an object")
            continue
        unknown_fields(item, ORGANISATION_KEYS, where, problems)
        slug, name = item.get("slug"), item.get("name")
        if not is_slug(slug):
            problems.append(f"{where}.slug: {slug!r} is not a slug")
            continue
        if slug in first_at:
            problems.append(f"{where}.slug: {slug!r} appears twice (first at [{first_at[slug]}])")
            continue
        first_at[slug] = index
        if name is not None and not isinstance(name, str):
            problems.append(f"{where}.name: must be a string")
        elif not name or not name.strip():
            problems.append(f"{where}.name: a name is required")
        elif len(name) > MAX_NAME_LENGTH:
            problems.append(f"{where}.name: at most {MAX_NAME_LENGTH} characters")
        fields = {"slug": slug, "name": name} | parse_aliases(item, where, problems)
        if "name_ko" in item:
            fields["name_ko"] = parse_korean_name(item["name_ko"], where, problems)
        if "links" in item:
            fields["links"] = parse_links(item["links"], where, problems)
        organisations.append(fields)
        redirects += [(old, slug) for old in former_slugs(item, where, problems)]
    return organisations


def parse_korean_name(value, path, problems):
    if value is None:
        return ""
    if not isinstance(value, str) or len(value.splitlines()) > 1:
        problems.append(f"{path}.name_ko: must be a string of one line")
        return ""
    if len(value) > MAX_NAME_LENGTH:
        problems.append(f"{path}.name_ko: at most {MAX_NAME_LENGTH} characters")
    return value.strip()


def parse_links(value, path, problems):
    """A list of http(s) addresses, as the organisation's validator takes them."""
    if not isinstance(value, list) or not all(isinstance(link, str) for link in value):
        problems.append(f"{path}.links: must be a list of links")
        return []
    for index, link in enumerate(value):
        if message := url_problem(link):
            problems.append(f"{path}.links[{index}]: {message}")
    return [link.strip() for link in value]


def unknown_fields(item, known, path, problems):
    for key in sorted(set(item) - known):
        problems.append(f"{path}.{key}: unknown field")


def translations(item, key, path, problems):
    """The item's {"en": ..., "ko": ...} under `key`, with missing languages as None."""
    value = item.get(key) or {}
    if not isinstance(value, dict) or set(value) - set(LANGUAGES):
        problems.append(f"{path}.{key}: must be an object with en and ko")
        return {}
    empty = [] if key == "aliases" else ""
    return {language: value.get(language) or empty for language in LANGUAGES}


def parse_aliases(item, path, problems):
    """aliases_en and aliases_ko, one alias a line, from a list of names in each language."""
    fields = {}
    for language, aliases in translations(item, "aliases", path, problems).items():
        if not isinstance(aliases, list) or not all(isinstance(alias, str) for alias in aliases):
            problems.append(f"{path}.aliases.{language}: must be a list of strings")
            continue
        # The database keeps one alias a line: a line break would make two of one.
        broken = [index for index, alias in enumerate(aliases) if len(alias.splitlines()) > 1]
        if broken:
            problems.append(f"{path}.aliases.{language}[{broken[0]}]: must be one line")
            continue
        fields[f"aliases_{language}"] = "\n".join(alias.strip() for alias in aliases)
    return fields


def is_unset(obj, name):
    value = getattr(obj, name)
    # A term an import created before anyone labelled it carries a label made from its slug,
    # and waits for review (`reviewed` false): the file's word on either fills it in.
    return not value or (
        isinstance(obj, Term) and name == "label_en" and value == Term.label_from_slug(obj.slug)
    )


def fill_in(existing, key, items, model, force):
    """Create the items `existing` (by `key`) lacks; in the others set what is unset, or with
    `force` whatever differs. Returns the counts and the primary keys of those changed."""
    counts = {"created": 0, "updated": 0, "unchanged": 0}
    changed_pks = []
    for fields in items:
        obj = existing.get(key(fields))
        if obj is None:
            existing[key(fields)] = model.objects.create(**fields)  # a second mention updates
            counts["created"] += 1
            continue
        changed = [
            name
            for name, value in fields.items()
            if getattr(obj, name) != value and (force or is_unset(obj, name))
        ]
        for name in changed:
            setattr(obj, name, fields[name])
        if changed:
            obj.save(update_fields=changed)
            counts["updated"] += 1
            changed_pks.append(obj.pk)
        else:
            counts["unchanged"] += 1
    return counts, changed_pks


@transaction.atomic
def load_taxonomy(
    terms, *, organisations=(), force=False, term_redirects=(), organisation_redirects=()
):
    """Create missing terms and organisations and fill in what is unset; `force` overwrites
    editors' labels, names and aliases too. An organisation's name is set only when it is
    created (an import names it after its case) or with `force`. The former slugs
    (Taxonomy's redirects) lead to their terms and organisations from now on.

    Returns counts of created, updated and unchanged terms and organisations:
    {"terms": {"created": 2, ...}, "organisations": {...}}.
    """
    term_counts, relabelled = fill_in(
        {(t.vocabulary, t.slug): t for t in Term.objects.all()},
        lambda fields: (fields["vocabulary"], fields["slug"]),
        terms,
        Term,
        force,
    )
    org_counts, renamed = fill_in(
        {org.slug: org for org in Organisation.objects.all()},
        lambda fields: fields["slug"],
        organisations,
        Organisation,
        force,
    )
    # Search matches names and aliases, so the cases using these change too.
    if relabelled or renamed:
        refresh_search_text(
            Case.objects.filter(
                Q(case_terms__term__in=relabelled)
                | Q(root_cause__in=relabelled)
                | Q(org__in=renamed)
            ).distinct()
        )
    redirected = keep_former_slugs(term_redirects, organisation_redirects)
    if relabelled or renamed or term_counts["created"] or org_counts["created"] or redirected:
        public_content_changed()
    return {"terms": term_counts, "organisations": org_counts}


def keep_former_slugs(term_redirects, organisation_redirects):
    """Point each former slug at its term or organisation; returns how many changed."""
    changed = 0
    if term_redirects:
        terms = {(t.vocabulary, t.slug): t for t in Term.objects.all()}
        for vocabulary, old, slug in term_redirects:
            _, made = TermRedirect.objects.update_or_create(
                vocabulary=vocabulary, old_slug=old, defaults={"term": terms[(vocabulary, slug)]}
            )
            changed += made
    if organisation_redirects:
        orgs = {org.slug: org for org in Organisation.objects.all()}
        for old, slug in organisation_redirects:
            _, made = OrganisationRedirect.objects.update_or_create(
                old_slug=old, defaults={"organisation": orgs[slug]}
            )
            changed += made
    return changed


def export_taxonomy():
    """Every term and organisation as the database has it now, in the document
    parse_taxonomy reads."""
    document = {vocabulary: [] for vocabulary in Vocabulary.values}
    for term in Term.objects.prefetch_related("redirects").order_by("vocabulary", "slug"):
        document[term.vocabulary].append(
            {
                "slug": term.slug,
                "label": {lang: getattr(term, f"label_{lang}") or "" for lang in LANGUAGES},
                "description": {
                    lang: getattr(term, f"description_{lang}") or "" for lang in LANGUAGES
                },
                "aliases": {lang: term.alias_list(lang) for lang in LANGUAGES},
                "question": {lang: getattr(term, f"question_{lang}") or "" for lang in LANGUAGES},
            }
            | ({} if term.reviewed else {"reviewed": False})
            | former_slugs_of(term)
        )
    document[ORGANISATIONS] = [
        {
            "slug": org.slug,
            "name": org.name,
            "name_ko": org.name_ko,
            "aliases": {lang: org.alias_list(lang) for lang in LANGUAGES},
            "links": org.links,
        }
        | former_slugs_of(org)
        for org in Organisation.objects.prefetch_related("redirects").order_by("slug")
    ]
    return document


def former_slugs_of(item):
    """{"former_slugs": [...]} of a term or organisation others were merged into, else {}."""
    slugs = sorted(redirect.old_slug for redirect in item.redirects.all())
    return {"former_slugs": slugs} if slugs else {}
