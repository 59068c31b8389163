"""The database holds the rules it can: case ids of IL- and ASCII digits, ASCII slugs,
durations neither negative nor over twenty years, no case a recurrence of itself, steps
with text in some language, choices that are choices. Written around every form and
importer (a shell, a script, a bug), a value no page can show is refused here too. The
same rules, worded for people, are cases/rules.py's.
"""

import datetime

import django.db.models.deletion
from django.db import migrations, models

import cases.validators


class Migration(migrations.Migration):
    dependencies = [("cases", "0019_mend_rows_that_break_the_rules")]

    operations = [
        migrations.RemoveConstraint(
            model_name="case",
            name="case_id_prefix",
        ),
        migrations.AlterField(
            model_name="case",
            name="recurrence_of",
            field=models.ForeignKey(blank=True, limit_choices_to={"draft_of__isnull": True}, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name="recurrences", to="cases.case", verbose_name="recurrence of"),
        ),
        migrations.AlterField(
            model_name="caserelation",
            name="to_case",
            field=models.ForeignKey(limit_choices_to={"draft_of__isnull": True}, on_delete=django.db.models.deletion.CASCADE, related_name="incoming_relations", to="cases.case"),
        ),
        migrations.AlterField(
            model_name="caseterm",
            name="term",
            field=models.ForeignKey(limit_choices_to=models.Q(("vocabulary", "root_cause"), _negated=True), on_delete=django.db.models.deletion.PROTECT, related_name="case_terms", to="cases.term"),
        ),
        migrations.AlterField(
            model_name="organisation",
            name="slug",
            field=models.SlugField(max_length=200, unique=True, validators=[cases.validators.SlugValidator()], verbose_name="slug"),
        ),
        migrations.AlterField(
            model_name="source",
            name="kind",
            field=models.SlugField(blank=True, validators=[cases.validators.SlugValidator(50)], verbose_name="kind"),
        ),
        migrations.AlterField(
            model_name="term",
            name="slug",
            field=models.SlugField(max_length=100, validators=[cases.validators.SlugValidator()], verbose_name="slug"),
        ),
        migrations.AddConstraint(
            model_name="case",
            constraint=models.CheckConstraint(condition=models.Q(("public_id__regex", "^IL-[0-9]{4,}\\Z")), name="case_id_pattern", violation_error_message="a case id is IL- and at least four digits (0-9)"),
        ),
        migrations.AddConstraint(
            model_name="case",
            constraint=models.CheckConstraint(condition=models.Q(("detected_after__isnull", True), ("detected_after__range", (datetime.timedelta(0), datetime.timedelta(days=7300))), _connector="OR"), name="case_detected_after_in_range", violation_error_message="a duration is not negative, nor over 20 years"),
        ),
        migrations.AddConstraint(
            model_name="case",
            constraint=models.CheckConstraint(condition=models.Q(("resolved_after__isnull", True), ("resolved_after__range", (datetime.timedelta(0), datetime.timedelta(days=7300))), _connector="OR"), name="case_resolved_after_in_range", violation_error_message="a duration is not negative, nor over 20 years"),
        ),
        migrations.AddConstraint(
            model_name="case",
            constraint=models.CheckConstraint(condition=models.Q(("recurrence_of", models.F("pk")), _negated=True), name="case_not_own_recurrence", violation_error_message="a case cannot be a recurrence of itself"),
        ),
        migrations.AddConstraint(
            model_name="case",
            constraint=models.CheckConstraint(condition=models.Q(("status__in", ["draft", "in_review", "changes_requested", "published", "withdrawn"])), name="case_status_choice"),
        ),
        migrations.AddConstraint(
            model_name="case",
            constraint=models.CheckConstraint(condition=models.Q(("severity__in", ["unknown", "low", "medium", "high", "critical"])), name="case_severity_choice"),
        ),
        migrations.AddConstraint(
            model_name="case",
            constraint=models.CheckConstraint(condition=models.Q(("date_kind__in", ["occurred", "published"])), name="case_date_kind_choice"),
        ),
        migrations.AddConstraint(
            model_name="casestep",
            constraint=models.CheckConstraint(condition=models.Q(models.Q(("text_en__gt", ""), ("text_en__isnull", False)), models.Q(("text_ko__gt", ""), ("text_ko__isnull", False)), _connector="OR"), name="step_has_text", violation_error_message="is empty in both languages"),
        ),
        migrations.AddConstraint(
            model_name="casestep",
            constraint=models.CheckConstraint(condition=models.Q(("kind__in", ["remediation", "action_item"])), name="step_kind_choice"),
        ),
        migrations.AddConstraint(
            model_name="organisation",
            constraint=models.CheckConstraint(condition=models.Q(("slug__regex", "^[a-z0-9]+(?:-[a-z0-9]+)*\\Z")), name="organisation_slug_pattern", violation_error_message="a slug is lowercase letters a-z, digits and hyphens"),
        ),
        migrations.AddConstraint(
            model_name="source",
            constraint=models.CheckConstraint(condition=models.Q(("kind", ""), ("kind__regex", "^[a-z0-9]+(?:-[a-z0-9]+)*\\Z"), _connector="OR"), name="source_kind_slug"),
        ),
        migrations.AddConstraint(
            model_name="term",
            constraint=models.CheckConstraint(condition=models.Q(("slug__regex", "^[a-z0-9]+(?:-[a-z0-9]+)*\\Z")), name="term_slug_pattern", violation_error_message="a slug is lowercase letters a-z, digits and hyphens"),
        ),
        migrations.AddConstraint(
            model_name="term",
            constraint=models.CheckConstraint(condition=models.Q(("vocabulary__in", ["root_cause", "component", "symptom", "contributing", "domain"])), name="term_vocabulary_choice"),
        ),
    ]
