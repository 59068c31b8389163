"""Searches read the narrow search entries (migration 0028), so the case rows lose their
own copies: the search vector with its GIN index, and the lowered titles (PostgreSQL
only; SQLite never had them). Each case write then stores its search text's vector once,
in its entry, instead of twice: an import costs what it did before the entries."""

from django.db import migrations


def drop(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("ALTER TABLE cases_case DROP COLUMN IF EXISTS search_vector")
    schema_editor.execute("ALTER TABLE cases_case DROP COLUMN IF EXISTS title_words")


def restore(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(
        "ALTER TABLE cases_case ADD COLUMN search_vector tsvector GENERATED ALWAYS AS "
        "(search_text::tsvector) STORED"
    )
    schema_editor.execute("CREATE INDEX case_search_vector ON cases_case USING gin (search_vector)")
    schema_editor.execute(
        "ALTER TABLE cases_case ADD COLUMN title_words text GENERATED ALWAYS AS "
        "(lower(coalesce(title_en, '') || ' ' || coalesce(title_ko, ''))) STORED"
    )


class Migration(migrations.Migration):
    dependencies = [("cases", "0028_search_entries")]
    operations = [migrations.RunPython(drop, restore)]
