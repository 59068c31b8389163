"""Uploads waiting for their import to be confirmed in the admin (cases.models.uploads)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('cases', '0021_history_events'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='PendingImport',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('token', models.CharField(max_length=64, unique=True)),
                ('file_name', models.CharField(max_length=255, verbose_name='file')),
                ('content', models.BinaryField()),
                ('sha256', models.CharField(max_length=64)),
                ('status', models.CharField(choices=[('draft', 'Draft'), ('in_review', 'In review'), ('changes_requested', 'Changes requested'), ('published', 'Published'), ('withdrawn', 'Withdrawn')], max_length=20)),
                ('force', models.BooleanField(default=False)),
                ('dry_run_counts', models.JSONField(default=dict)),
                ('uploaded_at', models.DateTimeField()),
                ('expires_at', models.DateTimeField(db_index=True)),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'verbose_name': 'import waiting for confirmation',
                'verbose_name_plural': 'imports waiting for confirmation',
                'constraints': [models.CheckConstraint(condition=models.Q(('expires_at__gt', models.F('uploaded_at'))), name='pending_import_expires_after_upload'), models.CheckConstraint(condition=models.Q(('status__in', ['draft', 'in_review', 'changes_requested', 'published', 'withdrawn'])), name='pending_import_status'), models.CheckConstraint(condition=models.Q(('sha256__regex', '^[0-9a-f]{64}\\Z')), name='pending_import_sha256'), models.CheckConstraint(condition=models.Q(('token__regex', '^[A-Za-z0-9_-]{32,64}\\Z')), name='pending_import_token')],
            },
        ),
    ]
