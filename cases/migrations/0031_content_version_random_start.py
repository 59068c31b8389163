from django.db import migrations, models
from django.db.models import F

import cases.models.public


def move_to_a_random_start(apps, schema_editor):
    """A database made before versions started at random moves its count far from any
    other's; every page cached before is rendered afresh once."""
    ContentVersion = apps.get_model("cases", "ContentVersion")
    ContentVersion.objects.using(schema_editor.connection.alias).update(
        number=F("number") + cases.models.public.first_number()
    )


class Migration(migrations.Migration):
    dependencies = [("cases", "0030_public_changes")]

    operations = [
        migrations.AlterField(
            model_name="contentversion",
            name="number",
            field=models.PositiveBigIntegerField(default=cases.models.public.first_number),
        ),
        migrations.RunPython(move_to_a_random_start, migrations.RunPython.noop),
    ]
