"""What each saved version of a case was: a save that wrote its content (whose author may
not approve it), or a state kept for the history. Separation of duties reads it
(cases.editorial.history.authors_since_approval). Versions saved before were labelled only
by their reason, in the language of the editor who saved them; it tells the event.
"""


from django.db import migrations, models

EVENTS = {
    "created": ["created", "만듦"],
    "saved": ["saved", "저장함"],
    "restored": [r"restored from version \d+", r"버전 \d+ 에서 되살림"],
    "before_first_edit": ["as it was before its first edit", "처음 편집하기 전 상태"],
    "revision_started": ["pending revision started", "검토 대기 수정본 시작"],
    "approved": ["approved and published", "승인하고 공개함"],
}


def label_events(apps, schema_editor):
    CaseVersion = apps.get_model("cases", "CaseVersion")
    for event, reasons in EVENTS.items():
        for reason in reasons:
            CaseVersion.objects.filter(event="", reason__regex=f"^{reason}$").update(event=event)


class Migration(migrations.Migration):

    dependencies = [("cases", "0020_integrity_rules_in_the_database")]

    operations = [
        migrations.AddField(
            model_name="caseversion",
            name="event",
            field=models.CharField(blank=True, choices=[("created", "created"), ("saved", "saved"), ("restored", "restored from an older version"), ("before_first_edit", "as it was before its first edit"), ("revision_started", "pending revision started"), ("approved", "approved and published")], max_length=20),
        ),
        migrations.AlterField(
            model_name="casetransition",
            name="from_status",
            field=models.CharField(blank=True, choices=[("draft", "Draft"), ("in_review", "In review"), ("changes_requested", "Changes requested"), ("published", "Published"), ("withdrawn", "Withdrawn")], max_length=20, verbose_name="from"),
        ),
        migrations.RunPython(label_events, migrations.RunPython.noop),
    ]
