# The licence of a case's text reused from another catalogue (an SPDX identifier).
#
# On SQLite, Django adds a NOT NULL column by rebuilding the table, which drops the search
# entry triggers of 0028 on cases_case; a plain ADD COLUMN keeps them. PostgreSQL adds it in
# place as usual.

import cases.validators
from django.db import migrations, models

ADD_ON_SQLITE = "ALTER TABLE cases_case ADD COLUMN licence varchar(100) NOT NULL DEFAULT ''"
DROP_ON_SQLITE = "ALTER TABLE cases_case DROP COLUMN licence"


def licence_field():
    field = models.CharField(blank=True, default="", max_length=100)
    field.set_attributes_from_name("licence")
    return field


def add_column(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        schema_editor.execute(ADD_ON_SQLITE)
    else:
        schema_editor.add_field(apps.get_model("cases", "Case"), licence_field())


def drop_column(apps, schema_editor):
    if schema_editor.connection.vendor == "sqlite":
        schema_editor.execute(DROP_ON_SQLITE)
    else:
        schema_editor.remove_field(apps.get_model("cases", "Case"), licence_field())


class Migration(migrations.Migration):

    dependencies = [
        ('cases', '0034_open_data'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(add_column, drop_column)],
            state_operations=[
                migrations.AddField(
                    model_name='case',
                    name='licence',
                    field=models.CharField(blank=True, help_text="Only when the text is reused from another catalogue: its licence as an SPDX identifier, such as CC-BY-SA-4.0. Empty for the library's own text.", max_length=100, validators=[cases.validators.LicenceValidator()], verbose_name='licence of reused text'),
                ),
            ],
        ),
    ]
