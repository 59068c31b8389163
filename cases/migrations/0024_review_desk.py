"""The review desk: comments on fields, review claims, who has a case open; and two dates
of a case that the review queue and its report sort by.

`submitted_at` is filled from each case's last `incidentlib.case.submitted` transition (a
pending revision's from its case's last one made on a pending revision). `ko_stale_since`
cannot be known for a case stale now: when its English last changed is not recorded apart
from its other edits, so it gets the case's `modified`, the latest the Korean can have
fallen behind. The report therefore understates how long those cases have waited.
"""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


SUBMITTED = "incidentlib.case.submitted"


def backfill_dates(apps, schema_editor):
    Case = apps.get_model("cases", "Case")
    CaseTransition = apps.get_model("cases", "CaseTransition")
    submitted = CaseTransition.objects.filter(action=SUBMITTED).order_by("-at", "-pk")
    Case.objects.filter(draft_of__isnull=True).update(
        submitted_at=models.Subquery(
            submitted.filter(case=models.OuterRef("pk"), pending_revision=False).values("at")[:1]
        )
    )
    Case.objects.filter(draft_of__isnull=False).update(
        submitted_at=models.Subquery(
            submitted.filter(case=models.OuterRef("draft_of"), pending_revision=True).values(
                "at"
            )[:1]
        )
    )
    Case.objects.filter(ko_stale=True).update(ko_stale_since=models.F("modified"))


class Migration(migrations.Migration):

    dependencies = [
        ('cases', '0023_tasks_notifications_scheduling'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='case',
            name='ko_stale_since',
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
        migrations.AddField(
            model_name='case',
            name='submitted_at',
            field=models.DateTimeField(blank=True, editable=False, null=True, verbose_name='submitted at'),
        ),
        migrations.CreateModel(
            name='CaseComment',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('field_path', models.CharField(max_length=100, verbose_name='field')),
                ('text', models.TextField(verbose_name='comment')),
                ('created', models.DateTimeField(default=django.utils.timezone.now, verbose_name='written')),
                ('on_pending_revision', models.BooleanField(default=False, verbose_name='on a pending revision')),
                ('resolved_at', models.DateTimeField(blank=True, null=True, verbose_name='resolved')),
                ('author', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('case', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='comments', to='cases.case')),
                ('resolved_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='resolved by')),
            ],
            options={
                'verbose_name': 'review comment',
                'verbose_name_plural': 'review comments',
                'ordering': ['created', 'pk'],
            },
        ),
        migrations.CreateModel(
            name='CasePresence',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('last_seen', models.DateTimeField()),
                ('case', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='cases.case')),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'verbose_name': 'open case page',
                'verbose_name_plural': 'open case pages',
            },
        ),
        migrations.CreateModel(
            name='CommentReply',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('text', models.TextField(verbose_name='reply')),
                ('created', models.DateTimeField(default=django.utils.timezone.now, verbose_name='written')),
                ('author', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('comment', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='replies', to='cases.casecomment')),
            ],
            options={
                'verbose_name': 'reply',
                'verbose_name_plural': 'replies',
                'ordering': ['created', 'pk'],
            },
        ),
        migrations.CreateModel(
            name='ReviewClaim',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('claimed_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('ended_at', models.DateTimeField(blank=True, null=True)),
                ('end', models.CharField(blank=True, choices=[('released', 'released'), ('taken_over', 'taken over by another reviewer'), ('review_ended', 'the case left review')], max_length=20)),
                ('case', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='review_claims', to='cases.case')),
                ('ended_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('reviewer', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'verbose_name': 'review claim',
                'verbose_name_plural': 'review claims',
                'ordering': ['claimed_at', 'pk'],
            },
        ),
        migrations.AddIndex(
            model_name='casecomment',
            index=models.Index(condition=models.Q(('resolved_at__isnull', True)), fields=['case'], name='comment_open_case'),
        ),
        migrations.AddConstraint(
            model_name='casecomment',
            constraint=models.CheckConstraint(condition=models.Q(('field_path', ''), _negated=True), name='comment_has_field'),
        ),
        migrations.AddConstraint(
            model_name='casecomment',
            constraint=models.CheckConstraint(condition=models.Q(('text', ''), _negated=True), name='comment_has_text'),
        ),
        migrations.AddConstraint(
            model_name='casecomment',
            constraint=models.CheckConstraint(condition=models.Q(('resolved_at__isnull', False), ('resolved_by__isnull', True), _connector='OR'), name='comment_resolver_only_when_resolved'),
        ),
        migrations.AddConstraint(
            model_name='casepresence',
            constraint=models.UniqueConstraint(fields=('case', 'user'), name='presence_one_row_a_user'),
        ),
        migrations.AddConstraint(
            model_name='commentreply',
            constraint=models.CheckConstraint(condition=models.Q(('text', ''), _negated=True), name='reply_has_text'),
        ),
        migrations.AddConstraint(
            model_name='reviewclaim',
            constraint=models.UniqueConstraint(condition=models.Q(('ended_at__isnull', True)), fields=('case',), name='claim_one_active_per_case', violation_error_message='Someone else is already reviewing this case.'),
        ),
        migrations.AddConstraint(
            model_name='reviewclaim',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('end', ''), ('ended_at__isnull', True)), models.Q(('end__in', ['released', 'taken_over', 'review_ended']), ('ended_at__isnull', False)), _connector='OR'), name='claim_ended_with_a_reason'),
        ),
        migrations.RunPython(backfill_dates, migrations.RunPython.noop),
    ]
