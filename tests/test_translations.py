import re
from pathlib import Path

from django.utils import translation

from tests.conftest import REPO

CATALOGUE = REPO / "locale" / "ko" / "LC_MESSAGES"


def entries(po_text):
    """(msgid, msgstr) pairs of a .po file, joining continued lines."""
    pattern = re.compile(
        r'^msgid ((?:".*"\n)+)(?:msgid_plural (?:".*"\n)+)?msgstr(?:\[0\])? ((?:".*"\n?)+)', re.M
    )

    def join(block):
        return "".join(re.findall(r'"(.*)"', block))

    return [(join(m.group(1)), join(m.group(2))) for m in pattern.finditer(po_text)]


def test_every_interface_text_has_a_korean_translation():
    pairs = entries((CATALOGUE / "django.po").read_text(encoding="utf-8"))
    assert len(pairs) > 100
    untranslated = [msgid for msgid, msgstr in pairs if msgid and not msgstr]
    assert untranslated == []
    assert "fuzzy" not in (CATALOGUE / "django.po").read_text(encoding="utf-8")


def test_the_compiled_catalogue_is_current():
    po, mo = CATALOGUE / "django.po", CATALOGUE / "django.mo"
    assert mo.exists() and Path(mo).stat().st_size > 1000
    with translation.override("ko"):
        assert translation.gettext("Applied filters") == "적용된 필터"
        assert translation.gettext("Clear all") == "모두 풀기"
    # Every translation in the .po must be in the compiled file that Django reads.
    compiled = mo.read_bytes()
    for msgid, msgstr in entries(po.read_text(encoding="utf-8")):
        if msgid and "\\" not in msgstr:
            assert msgstr.encode() in compiled, f"{msgid!r}: run make messages"
