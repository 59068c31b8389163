"""Search moves from substrings (trigram index) to word beginnings (full-text index).

The search text keeps the same words, now split at punctuation the way PostgreSQL's parser
splits them. On PostgreSQL the trigram index gives way to a stored `search_vector` column,
generated from the search text, with a GIN index; the model has no field for it (see
cases.search.SearchVectorMatches), since SQLite has no such type.
"""

import re

from django.db import migrations

WORD = re.compile(r"[^\W_]+")


def resplit_search_text(apps, schema_editor):
    Case = apps.get_model("cases", "Case")
    changed = []
    for case in Case.objects.only("pk", "search_text").iterator(chunk_size=2000):
        text = " ".join(dict.fromkeys(WORD.findall(case.search_text.casefold())))
        if text != case.search_text:
            case.search_text = text
            changed.append(case)
    Case.objects.bulk_update(changed, ["search_text"], batch_size=1000)


def add_search_vector(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("DROP INDEX IF EXISTS case_search_text_trgm")
    schema_editor.execute(
        "ALTER TABLE cases_case ADD COLUMN search_vector tsvector GENERATED ALWAYS AS "
        "(to_tsvector('simple'::regconfig, search_text)) STORED"
    )
    schema_editor.execute(
        "CREATE INDEX case_search_vector ON cases_case USING gin (search_vector)"
    )


def drop_search_vector(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("ALTER TABLE cases_case DROP COLUMN search_vector")
    schema_editor.execute(
        "CREATE INDEX IF NOT EXISTS case_search_text_trgm ON cases_case "
        "USING gin (search_text gin_trgm_ops)"
    )


class Migration(migrations.Migration):
    dependencies = [("cases", "0008_list_indexes")]
    operations = [
        migrations.RunPython(resplit_search_text, migrations.RunPython.noop),
        migrations.RunPython(add_search_vector, drop_search_vector),
    ]
