"""Both titles of a case in lower case, kept by PostgreSQL beside the search vector.

A search ranks its matches by how many query words their titles hold. Lowering the two
titles of every match, as `icontains` does, cost about 180 ms a search at 100,000 matches,
more than all the rest of the ranking; a stored column is lowered once, when written.
Like `search_vector`, the model has no field for it (cases.search reads it by name), and
SQLite lowers the titles as it searches.
"""

from django.db import migrations


def forward(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(
        "ALTER TABLE cases_case ADD COLUMN title_words text GENERATED ALWAYS AS "
        "(lower(coalesce(title_en, '') || ' ' || coalesce(title_ko, ''))) STORED"
    )


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE cases_case DROP COLUMN title_words")


class Migration(migrations.Migration):
    dependencies = [("cases", "0013_lz4_compression")]
    operations = [migrations.RunPython(forward, backward)]
