"""Rows an older version let in that break the rules migration 0020 gives the database
are mended, where there is one right answer: an id or a slug with a final newline, other
digits or capitals; an impossible duration or a self-recurrence, which mean nothing; an
empty step, which shows as an empty bullet. What cannot be mended so stops the migration
with the rows named. (Apart from 0020: on PostgreSQL a table whose rows changed in this
transaction cannot be altered in it.)
"""

import datetime
import unicodedata

from django.db import migrations, models
from django.utils.text import slugify

CASE_ID = r"^IL-[0-9]{4,}\Z"
SLUG = r"^[a-z0-9]+(?:-[a-z0-9]+)*\Z"
LONGEST = datetime.timedelta(days=7300)


def ascii_text(value):
    """Digits of any script as ASCII digits, full-width letters as ASCII ones, no spaces."""
    value = unicodedata.normalize("NFKC", value).strip()
    return "".join(str(unicodedata.digit(c)) if c.isdigit() else c for c in value)


def mend(apps, schema_editor):
    import re

    Case, Organisation, Term = (apps.get_model("cases", n) for n in ("Case", "Organisation", "Term"))
    CaseStep, Source = apps.get_model("cases", "CaseStep"), apps.get_model("cases", "Source")
    unmendable = []

    taken = set(Case.objects.values_list("public_id", flat=True))
    for case in Case.objects.exclude(public_id__regex=CASE_ID).only("public_id", "draft_of"):
        mended = ascii_text(case.public_id).upper()
        if re.fullmatch(r"IL-[0-9]{4,}", mended) and (case.draft_of_id or mended not in taken):
            Case.objects.filter(pk=case.pk).update(public_id=mended)
            taken.add(mended)
        else:
            unmendable.append(f"case {case.public_id!r}")
    for field in ("detected_after", "resolved_after"):
        wrong = models.Q(**{f"{field}__lt": datetime.timedelta(0)})
        wrong |= models.Q(**{f"{field}__gt": LONGEST})
        Case.objects.filter(wrong).update(**{field: None})
    Case.objects.filter(recurrence_of=models.F("pk")).update(recurrence_of=None)
    Case.objects.exclude(severity__in=["unknown", "low", "medium", "high", "critical"]).update(
        severity="unknown"
    )
    Case.objects.exclude(date_kind__in=["occurred", "published"]).update(date_kind="occurred")

    taken = set(Organisation.objects.values_list("slug", flat=True))
    for org in Organisation.objects.exclude(slug__regex=SLUG):
        mended = slugify(ascii_text(org.slug)) or slugify(org.name) or f"organisation-{org.pk}"
        base, number = mended, 2
        while mended in taken:
            mended, number = f"{base}-{number}", number + 1
        Organisation.objects.filter(pk=org.pk).update(slug=mended)
        taken.add(mended)
    for term in Term.objects.exclude(slug__regex=SLUG):
        mended = slugify(ascii_text(term.slug))
        clash = Term.objects.filter(vocabulary=term.vocabulary, slug=mended).exists()
        if mended and not clash:
            Term.objects.filter(pk=term.pk).update(slug=mended)
        else:
            unmendable.append(f"term {term.vocabulary}/{term.slug!r}")
    for source in Source.objects.exclude(kind="").exclude(kind__regex=SLUG):
        Source.objects.filter(pk=source.pk).update(kind=slugify(ascii_text(source.kind))[:50])
    empty = models.Q(text_en__isnull=True) | models.Q(text_en="")
    CaseStep.objects.filter(empty, models.Q(text_ko__isnull=True) | models.Q(text_ko="")).delete()
    if unmendable:
        raise RuntimeError(
            "These break the library's rules and have no one right correction; change them "
            "(in the admin or a shell) and migrate again: " + ", ".join(unmendable)
        )


class Migration(migrations.Migration):
    dependencies = [("cases", "0018_remove_library_counts")]

    operations = [migrations.RunPython(mend, migrations.RunPython.noop)]
