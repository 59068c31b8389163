"""Loading the taxonomy file (data/taxonomy.json): labels, descriptions and aliases of terms.

The file maps each vocabulary to a list of terms:
    {"component": [{"slug": "shared-filesystem",
                    "label": {"en": "Shared filesystem", "ko": "공유 파일 시스템"},
                    "description": {"en": "...", "ko": "..."},
                    "aliases": {"en": ["HDFS", "NFS"], "ko": ["분산 저장소"]}}], ...}
"""

import json

from django.db import transaction
from django.db.models import Q

from cases.caching import public_content_changed
from cases.models import Case, Term, Vocabulary
from cases.rules import LANGUAGES, is_slug
from cases.search.text import refresh_search_text

TERM_KEYS = {"slug", "label", "description", "aliases"}


class TaxonomyError(Exception):
    def __init__(self, problems):
        super().__init__("; ".join(problems))
        self.problems = problems


def parse_taxonomy(text, label="taxonomy"):
    """Validate a taxonomy document; return a list of field dicts for Term."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise TaxonomyError(
            [f"{label}: line {error.lineno}, column {error.colno}: invalid JSON: {error.msg}"]
        ) from None
    if not isinstance(document, dict):
        raise TaxonomyError([f"{label}: must be an object of vocabularies"])
    problems, terms = [], []
    for vocabulary, items in document.items():
        if vocabulary not in Vocabulary.values:
            problems.append(f"{label}: {vocabulary}: unknown vocabulary")
            continue
        if not isinstance(items, list):
            problems.append(f"{label}: {vocabulary}: must be a list of terms")
            continue
        for index, item in enumerate(items):
            path = f"{label}: {vocabulary}[{index}]"
            if not isinstance(item, dict):
                problems.append(f"{path}: must be an object")
                continue
            for key in sorted(set(item) - TERM_KEYS):
                problems.append(f"{path}.{key}: unknown field")
            slug = item.get("slug")
            if not is_slug(slug):
                problems.append(f"{path}.slug: {slug!r} is not a slug")
                continue
            fields = {"vocabulary": vocabulary, "slug": slug}
            for key in ("label", "description", "aliases"):
                value = item.get(key) or {}
                if not isinstance(value, dict) or set(value) - set(LANGUAGES):
                    problems.append(f"{path}.{key}: must be an object with en and ko")
                    continue
                for language in LANGUAGES:
                    text_value = value.get(language) or ("" if key != "aliases" else [])
                    if key == "aliases":
                        if not isinstance(text_value, list) or not all(
                            isinstance(alias, str) for alias in text_value
                        ):
                            problems.append(f"{path}.aliases.{language}: must be a list of strings")
                            continue
                        text_value = "\n".join(alias.strip() for alias in text_value)
                    elif not isinstance(text_value, str):
                        problems.append(f"{path}.{key}.{language}: must be a string")
                        continue
                    fields[f"{key}_{language}"] = text_value
            if not fields.get("label_en"):
                problems.append(f"{path}.label.en: an English label is required")
            terms.append(fields)
    if problems:
        raise TaxonomyError(problems)
    return terms


def is_unset(term, field):
    value = getattr(term, field)
    # A term an import created before anyone labelled it carries a label made from its slug.
    return not value or (field == "label_en" and value == Term.label_from_slug(term.slug))


@transaction.atomic
def load_taxonomy(terms, *, force=False):
    """Create missing terms and fill in what is unset; `force` overwrites editors' labels too.

    Returns counts of created, updated and unchanged terms.
    """
    existing = {(t.vocabulary, t.slug): t for t in Term.objects.all()}
    counts = {"created": 0, "updated": 0, "unchanged": 0}
    relabelled = []
    for fields in terms:
        term = existing.get((fields["vocabulary"], fields["slug"]))
        if term is None:
            Term.objects.create(**fields)
            counts["created"] += 1
            continue
        changed = [
            name
            for name, value in fields.items()
            if getattr(term, name) != value and (force or is_unset(term, name))
        ]
        for name in changed:
            setattr(term, name, fields[name])
        if changed:
            term.save(update_fields=changed)
            counts["updated"] += 1
            relabelled.append(term.pk)
        else:
            counts["unchanged"] += 1
    if relabelled:
        # Search matches term labels and aliases, so the cases using these terms change too.
        refresh_search_text(
            Case.objects.filter(
                Q(case_terms__term__in=relabelled) | Q(root_cause__in=relabelled)
            ).distinct()
        )
    if relabelled or counts["created"]:
        public_content_changed()
    return counts


def export_taxonomy():
    """Every term as the database has it now, in the document parse_taxonomy reads."""
    document = {vocabulary: [] for vocabulary in Vocabulary.values}
    for term in Term.objects.order_by("vocabulary", "slug"):
        document[term.vocabulary].append(
            {
                "slug": term.slug,
                "label": {lang: getattr(term, f"label_{lang}") or "" for lang in LANGUAGES},
                "description": {
                    lang: getattr(term, f"description_{lang}") or "" for lang in LANGUAGES
                },
                "aliases": {lang: term.alias_list(lang) for lang in LANGUAGES},
            }
        )
    return document
