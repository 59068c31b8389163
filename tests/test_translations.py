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


def test_every_translation_keeps_the_placeholders_and_tags_of_its_original():
    """A placeholder lost or misspelt in Korean is a KeyError (or a missing value) only
    when that message is shown; HTML tags of a blocktranslate are its markup. Korean has one
    plural form, which says what the English plural says."""
    kept = re.compile(r"%\(\w+\)[sd]|%[sd]|\{\w*\}|<[^>]+>")
    pattern = re.compile(
        r'^msgid ((?:".*"\n)+)(?:msgid_plural ((?:".*"\n)+))?msgstr(?:\[0\])? ((?:".*"\n?)+)', re.M
    )
    po_text = (CATALOGUE / "django.po").read_text(encoding="utf-8")
    changed = []
    for match in pattern.finditer(po_text):
        msgid, plural, msgstr = ("".join(re.findall(r'"(.*)"', g or "")) for g in match.groups())
        if msgid and sorted(kept.findall(plural or msgid)) != sorted(kept.findall(msgstr)):
            changed.append(msgid)
    assert changed == []


def test_labels_built_from_two_translated_parts_read_as_one_in_korean():
    from cases.editorial import comments, merging

    with translation.override("ko"):
        assert comments.field_label("trigger.ko") == "촉발, 한국어"
        assert comments.field_label("remediation[2].ko") == "조치 3번, 한국어"
        assert comments.field_label("recurrence_of") == "재발 원본"  # no colon of its own
        assert merging.PARTS_BY_KEY["impact.scope.ko"].label == "영향: 범위, 한국어"


def test_the_korean_duration_hint_gives_only_examples_the_form_reads():
    from cases.admin.forms import DurationField
    from cases.exchange.fields import read_duration

    with translation.override("ko"):
        hint = str(DurationField().help_text)
    examples = hint.removeprefix("예: ").split(", ")
    assert "3시간 15분" in examples and "3h 15m" in examples
    assert [read_duration(example)[1] for example in examples] == [None] * len(examples)
