"""The whole public library's counts, kept instead of counted on every list page.

`counted` starts at 0, below every version: until the next change the public can see
(which counts them), the list counts the library itself, as before.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("cases", "0016_content_version"),
    ]

    operations = [
        migrations.AddField(
            model_name="contentversion",
            name="counted",
            field=models.PositiveBigIntegerField(default=0),
        ),
        migrations.CreateModel(
            name="LibraryCount",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("kind", models.CharField(max_length=10)),
                ("key", models.CharField(max_length=40)),
                ("count", models.PositiveIntegerField()),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("kind", "key"), name="one_count_per_key")
                ],
            },
        ),
    ]
