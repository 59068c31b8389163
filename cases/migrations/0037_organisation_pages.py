# Organisations as entities (#23): a Korean name, links, the old slugs of merged
# organisations, and reviewers' right to merge them.
#
# Only cases_organisation is rebuilt on SQLite (its new NOT NULL columns), never cases_case,
# whose search entry triggers a rebuild would drop.

import cases.validators
import django.db.models.deletion
from django.contrib.auth.management import create_permissions
from django.db import migrations, models


def let_reviewers_merge(apps, schema_editor):
    # Permissions are normally created after migrations; the group needs this one now.
    app_config = apps.get_app_config("cases")
    app_config.models_module = True
    create_permissions(app_config, apps=apps, verbosity=0)
    app_config.models_module = None
    permission = apps.get_model("auth", "Permission").objects.get(
        content_type__app_label="cases", codename="merge_organisation"
    )
    for group in apps.get_model("auth", "Group").objects.filter(name="Reviewers"):
        group.permissions.add(permission)


class Migration(migrations.Migration):

    dependencies = [
        ('cases', '0036_term_review'),
    ]

    operations = [
        migrations.AlterModelOptions(
            name='organisation',
            options={'ordering': ['name'], 'permissions': [('merge_organisation', 'Can merge two organisations')], 'verbose_name': 'organisation', 'verbose_name_plural': 'organisations'},
        ),
        migrations.AddField(
            model_name='organisation',
            name='links',
            field=models.JSONField(blank=True, default=list, help_text='Its website, Wikipedia article or status page: http(s) addresses.', validators=[cases.validators.HttpUrlListValidator()], verbose_name='links'),
        ),
        migrations.AddField(
            model_name='organisation',
            name='name_ko',
            field=models.CharField(blank=True, max_length=200, verbose_name='name in Korean'),
        ),
        migrations.CreateModel(
            name='OrganisationRedirect',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('old_slug', models.SlugField(max_length=200, unique=True)),
                ('old_name', models.CharField(blank=True, max_length=200)),
                ('merged_at', models.DateTimeField(auto_now_add=True)),
                ('organisation', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='redirects', to='cases.organisation')),
            ],
        ),
        migrations.RunPython(let_reviewers_merge, migrations.RunPython.noop),
    ]
