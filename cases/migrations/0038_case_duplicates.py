# Duplicate cases (issue 23, point 3): each source's address key, indexed, so that two cases
# citing one page are found without reading every address; the record of a case merged into
# another; the right to merge, given to the Reviewers; a merged id in the change feed.
#
# cases_source has no triggers: SQLite may rebuild it to add the column (cases_case is not
# touched but for its Meta options, which the database never sees).

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from cases.addresses import address_key

BATCH = 2000


def fill_url_keys(apps, schema_editor):
    Source = apps.get_model("cases", "Source")
    last = 0
    while batch := list(Source.objects.filter(pk__gt=last).order_by("pk").only("url")[:BATCH]):
        last = batch[-1].pk
        for source in batch:
            source.url_key = address_key(source.url)
        Source.objects.bulk_update(batch, ["url_key"])


def let_reviewers_merge(apps, schema_editor):
    from django.contrib.auth.management import create_permissions

    config = apps.get_app_config("cases")
    config.models_module = True  # a migration's app has none; the permission is made now
    create_permissions(config, apps=apps, verbosity=0)
    config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    permission = Permission.objects.get(content_type__app_label="cases", codename="merge_case")
    for group in Group.objects.filter(name="Reviewers"):
        group.permissions.add(permission)


class Migration(migrations.Migration):

    dependencies = [
        ('cases', '0037_organisation_pages'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterModelOptions(
            name='case',
            options={'ordering': ['-date', '-public_id'], 'permissions': [('submit_case', 'Can submit a case for review'), ('review_case', 'Can approve and publish, request changes and withdraw cases'), ('merge_case', 'Can merge a duplicate case into another')], 'verbose_name': 'case', 'verbose_name_plural': 'cases'},
        ),
        migrations.AddField(
            model_name='source',
            name='url_key',
            field=models.CharField(blank=True, db_index=True, editable=False, max_length=1000),
        ),
        migrations.RunPython(fill_url_keys, migrations.RunPython.noop),
        migrations.AlterField(
            model_name='publishedrecord',
            name='state',
            field=models.CharField(choices=[('published', 'Published'), ('withdrawn', 'Withdrawn'), ('merged', 'Merged')], max_length=10),
        ),
        migrations.CreateModel(
            name='CaseMerge',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('absorbed_public_id', models.CharField(max_length=20, unique=True)),
                ('merged_at', models.DateTimeField(auto_now_add=True, verbose_name='merged at')),
                ('note', models.TextField(blank=True, verbose_name='note')),
                ('absorbed', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='merged_into', to='cases.case', verbose_name='absorbed')),
                ('merged_by', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('survivor', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='absorbed_merges', to='cases.case', verbose_name='survivor')),
            ],
            options={
                'verbose_name': 'merged duplicate',
                'verbose_name_plural': 'merged duplicates',
                'constraints': [models.CheckConstraint(condition=models.Q(('absorbed', models.F('survivor')), _negated=True), name='merge_not_into_itself')],
            },
        ),
        migrations.RunPython(let_reviewers_merge, migrations.RunPython.noop),
    ]
