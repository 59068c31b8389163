"""Suggested cases, readers' own, and the editors' right to triage them.

The Editors and Reviewers groups (migration 0005) may see and handle suggestions; the list
is frozen here, cases/editorial/roles.py holds the current one.
"""

import cases.validators
import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.contrib.auth.management import create_permissions
from django.db import migrations, models

TRIAGE_PERMISSIONS = ["view_suggestion", "change_suggestion"]
GROUPS = ("Editors", "Reviewers")


def let_editors_triage(apps, schema_editor):
    # Permissions are normally created after migrations; the groups need these now.
    app_config = apps.get_app_config("cases")
    app_config.models_module = True
    create_permissions(app_config, apps=apps, verbosity=0)
    app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    permissions = Permission.objects.filter(
        content_type__app_label="cases", codename__in=TRIAGE_PERMISSIONS
    )
    for group in Group.objects.filter(name__in=GROUPS):
        group.permissions.add(*permissions)


def forbid_triage(apps, schema_editor):
    Permission = apps.get_model("auth", "Permission")
    permissions = Permission.objects.filter(
        content_type__app_label="cases", codename__in=TRIAGE_PERMISSIONS
    )
    for group in apps.get_model("auth", "Group").objects.filter(name__in=GROUPS):
        group.permissions.remove(*permissions)


class Migration(migrations.Migration):

    dependencies = [
        ('cases', '0031_content_version_random_start'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.CreateModel(
            name='Suggestion',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('source_url', models.CharField(max_length=1000, validators=[cases.validators.HttpUrlValidator()], verbose_name='source address')),
                ('source_key', models.CharField(db_index=True, editable=False, max_length=1000)),
                ('organisation', models.CharField(blank=True, max_length=200, verbose_name='organisation')),
                ('date', models.DateField(blank=True, null=True, verbose_name='date')),
                ('note', models.TextField(blank=True, max_length=5000, verbose_name='note')),
                ('email', models.EmailField(blank=True, max_length=254, verbose_name='email')),
                ('language', models.CharField(choices=[('en', 'English'), ('ko', 'Korean')], max_length=10, verbose_name='sent in')),
                ('sent_at', models.DateTimeField(default=django.utils.timezone.now, verbose_name='sent')),
                ('status', models.CharField(choices=[('new', 'New'), ('accepted', 'Accepted'), ('rejected', 'Rejected'), ('duplicate', 'Duplicate')], default='new', max_length=20, verbose_name='status')),
                ('reason', models.TextField(blank=True, verbose_name='reason')),
                ('handled_at', models.DateTimeField(blank=True, null=True, verbose_name='handled')),
                ('draft', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='suggestions', to='cases.case', verbose_name='draft')),
                ('duplicate_of', models.ForeignKey(blank=True, limit_choices_to={'draft_of__isnull': True}, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='cases.case', verbose_name='duplicate of')),
                ('handled_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='handled by')),
            ],
            options={
                'verbose_name': 'suggested case',
                'verbose_name_plural': 'suggested cases',
                'ordering': ['sent_at', 'pk'],
                'indexes': [models.Index(fields=['status', 'sent_at'], name='suggestion_queue')],
                'constraints': [models.CheckConstraint(condition=models.Q(('status__in', ['new', 'accepted', 'rejected', 'duplicate'])), name='suggestion_status_choice'), models.CheckConstraint(condition=models.Q(('status', 'new'), ('handled_at__isnull', False), _connector='OR'), name='suggestion_handled_has_date'), models.CheckConstraint(condition=models.Q(models.Q(('status', 'rejected'), _negated=True), models.Q(('reason', ''), _negated=True), _connector='OR'), name='suggestion_rejected_has_reason')],
            },
        ),
        migrations.RunPython(let_editors_triage, forbid_triage),
    ]
