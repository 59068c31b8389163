"""Cases to the exchange format, and the fingerprint that tells whether a case changed."""

import hashlib
import json

from cases.models import LIST_VOCABULARIES, CaseStep
from cases.models.taxonomy import shown_terms
from cases.rules import IMPACT_FIELDS, LANGUAGES, TRANSLATED_FIELDS

from .spelling import format_datetime, format_duration


def tracked_text(normal_case, field):
    """{"en", "ko"} of one of rules.TRACKED_FIELDS in a case's normal form (an impact
    field, `impact_scope`, lies under "impact")."""
    if field.startswith("impact_"):
        return normal_case["impact"][field.removeprefix("impact_")]
    return normal_case[field]


def translated(obj, field):
    return {language: getattr(obj, f"{field}_{language}") or "" for language in LANGUAGES}


def impact_value(case, field):
    # A plain string is English in the format; write one when there is no Korean.
    text = translated(case, f"impact_{field}")
    return text["en"] if not text["ko"] else text


def case_to_exchange(case, *, public=False):
    """The case as one exchange-format object. Expects `Case.objects.for_exchange()`.

    `public`: as readers may have it (its page's JSON, the API, the open data), without
    the terms an import holds for review, which no public page names; editors' exports
    and backups keep them."""
    shown = shown_terms if public else list
    data = {
        "id": case.public_id,
        "org": case.org.name,
        "org_slug": case.org.slug,
        "date": case.date.isoformat(),
        "date_kind": case.date_kind,
    }
    for field in TRANSLATED_FIELDS:
        data[field] = translated(case, field)
    data["impact"] = {field: impact_value(case, field) for field in IMPACT_FIELDS}
    data["severity"] = case.severity
    for list_field, vocabulary in LIST_VOCABULARIES.items():
        data[list_field] = [term.slug for term in shown(case.terms_of(vocabulary))]
    cause = shown([case.root_cause] if case.root_cause_id else [])
    data["root_cause"] = cause[0].slug if cause else None
    data["timeline"] = {
        "detected_after": format_duration(case.detected_after),
        "resolved_after": format_duration(case.resolved_after),
    }
    data["remediation"] = [
        translated(step, "text") for step in case.steps_of(CaseStep.Kind.REMEDIATION)
    ]
    data["action_items"] = [
        translated(step, "text") for step in case.steps_of(CaseStep.Kind.ACTION_ITEM)
    ]
    data["related"] = [relation.to_case.public_id for relation in case.outgoing_relations.all()]
    data["recurrence_of"] = case.recurrence_of.public_id if case.recurrence_of_id else None
    data["sources"] = [
        {"url": source.url, "kind": source.kind or None, "archived": source.archived or None}
        for source in case.sources.all()
    ]
    data["docs"] = list(case.docs or [])
    data.update(review_fields(case))
    data["url"] = case.source_url or None
    if case.licence:  # written only when given, as the validator's normal form has it
        data["licence"] = case.licence
    return data


def review_fields(case):
    """The fields of a case's exchange form that its review sets (an approval sets them
    after writing the content: editorial.transitions.case_approve)."""
    return {
        "review": {
            "written_by": case.written_by or None,
            "reviewed_at": format_datetime(case.reviewed_at),
            "reviewed_by": case.reviewed_by or None,
        },
        "updated_at": format_datetime(case.updated_at),
    }


def fingerprint(normal_case):
    """A stable hash of a case in its normal form (see validation.validate_case)."""
    encoded = json.dumps(normal_case, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(encoded.encode()).hexdigest()
