"""Whether a case's English and Korean texts are complete, and whether the Korean is current.

Every translated field keeps, in `translation_basis`, a short hash of the English text its
Korean was written against. When the English changes and the Korean does not, the hashes
differ and the Korean is flagged as possibly stale until an editor changes or confirms it.
"""

import hashlib

from django.utils import timezone

from cases.rules import REQUIRED_TRANSLATIONS, TRACKED_FIELDS


def english_hash(text):
    return hashlib.sha256((text or "").encode()).hexdigest()[:16]


def texts(case, field):
    return getattr(case, f"{field}_en") or "", getattr(case, f"{field}_ko") or ""


def stale_fields(case):
    basis = case.translation_basis or {}
    stale = []
    for field in TRACKED_FIELDS:
        english, korean = texts(case, field)
        if korean and english and basis.get(field) != english_hash(english):
            stale.append(field)
    return stale


def missing_fields(case, language):
    index = 0 if language == "en" else 1
    return [
        field
        for field in REQUIRED_TRANSLATIONS
        if any(texts(case, field)) and not texts(case, field)[index]
    ]


def update_translation_state(case, *, korean_changed=None, confirm=False):
    """Refresh the basis and the flags before a save.

    `korean_changed`: the fields whose Korean this edit changed (their basis moves to the
    current English); None means every field (an import, where both texts arrive together).
    `confirm`: an editor confirms that every Korean text matches its English.
    """
    basis = dict(case.translation_basis or {})
    for field in TRACKED_FIELDS:
        english, korean = texts(case, field)
        if not korean:
            basis.pop(field, None)
        elif confirm or korean_changed is None or field in korean_changed or field not in basis:
            basis[field] = english_hash(english)
    case.translation_basis = basis
    case.ko_stale = bool(stale_fields(case))
    # Since when, for the report of the longest stale: kept while it stays stale.
    stale_since = getattr(case, "ko_stale_since", None)
    case.ko_stale_since = (stale_since or timezone.now()) if case.ko_stale else None
    case.ko_missing = bool(missing_fields(case, "ko"))
    case.en_missing = bool(missing_fields(case, "en"))
