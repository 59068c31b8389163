"""The version of the public content, in the database instead of the cache.

In a cache of each process's own memory, a change made by one gunicorn worker, or by an
import run from the shell, left every other process serving its old pages for an hour. A
lagging read replica could also have its old content cached under the new version.
"""

from django.db import migrations, models


def first_version(apps, schema_editor):
    apps.get_model("cases", "ContentVersion").objects.create(pk=1, number=1)


class Migration(migrations.Migration):
    dependencies = [("cases", "0015_narrow_case_rows")]

    operations = [
        migrations.CreateModel(
            name="ContentVersion",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("number", models.PositiveBigIntegerField(default=0)),
            ],
            options={
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(("pk", 1)), name="one_content_version"
                    )
                ],
            },
        ),
        migrations.RunPython(first_version, migrations.RunPython.noop),
    ]
