# Terms have a review state (#23): an import holds a slug no term answers to as an unreviewed
# term, unknown to the public until a reviewer accepts or merges it. Every term already in the
# database was public under the old rule and stays so: the column's default (db_default)
# fills their rows with true, a data migration in the ADD COLUMN itself.
#
# On SQLite this rebuilds cases_term (a column with a default); cases_case, whose search
# triggers a rebuild would drop, is untouched.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('cases', '0035_case_licence'),
    ]

    operations = [
        migrations.AddField(
            model_name='term',
            name='reviewed',
            field=models.BooleanField(db_default=True, default=True, help_text='Shown on the public pages. A term an import made from an unknown slug is not, until a reviewer accepts it.', verbose_name='reviewed'),
        ),
    ]
