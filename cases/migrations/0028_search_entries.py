"""A narrow table of what a search reads of each case, kept by the database (see
cases.models.search).

Triggers on cases_case write each entry: after an insert, after an update of a column the
entry copies (and only when one of them changed), after a delete. They fire however a case
is written: Django's saves and bulk writes, the importer's COPY, raw SQL. The migration
fills the table from the cases there are.

On PostgreSQL the entry holds the search vector too, generated from its search text, with
a GIN index. The row keeps only its short columns: with `toast_tuple_target` at its
minimum, search_text and search_vector go to TOAST (a search reads the vector through its
index, never from the row), while `title_words` stays in the row (storage MAIN), since
ranking reads it in every match. Measured at 100,000 cases: 3,287 heap blocks against
cases_case's 12,380 (9,273 with PostgreSQL's default toast_tuple_target); a search matching
99,053 of them reads 3,324 buffers instead of 12,432. Storing search_text EXTERNAL instead
made neither the table nor the fill any different. The fill took 23 s, its GIN index 14 s.
"""

import django.db.models.deletion
from django.db import migrations, models

# The columns an entry copies from its case: (entry column, expression over a case row
# named R). The titles are nullable (modeltranslation), the rest are not.
COPIED = [
    ("org_id", "R.org_id"),
    ("root_cause_id", "R.root_cause_id"),
    ("date", "R.date"),
    ("status", "R.status"),
    ("public_id", "R.public_id"),
    ("title_words", "lower(coalesce(R.title_en, '') || ' ' || coalesce(R.title_ko, ''))"),
    ("search_text", "R.search_text"),
]
# The columns of cases_case those expressions read: an update of any other does nothing.
SOURCE_COLUMNS = [
    "org_id",
    "root_cause_id",
    "date",
    "status",
    "public_id",
    "title_en",
    "title_ko",
    "search_text",
]
NAMES = ", ".join(["case_id"] + [name for name, _ in COPIED])


def values_of(row):
    return ", ".join([f"{row}.id"] + [expr.replace("R.", f"{row}.") for _, expr in COPIED])


UPSERT = ", ".join(f"{name} = excluded.{name}" for name, _ in COPIED)
FILL = f"INSERT INTO cases_searchentry ({NAMES}) SELECT {values_of('cases_case')} FROM cases_case"


def changed(old="OLD", new="NEW"):
    return " OR ".join(f"{old}.{c} IS DISTINCT FROM {new}.{c}" for c in SOURCE_COLUMNS)


POSTGRESQL = [
    # Rows keep their short columns: the two long ones go to TOAST, the titles stay.
    "ALTER TABLE cases_searchentry SET (toast_tuple_target = 128)",
    "ALTER TABLE cases_searchentry ALTER COLUMN title_words SET STORAGE MAIN",
    "ALTER TABLE cases_searchentry ADD COLUMN search_vector tsvector "
    "GENERATED ALWAYS AS (search_text::tsvector) STORED",
    f"""
    CREATE FUNCTION cases_search_entry_write() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO cases_searchentry ({NAMES}) VALUES ({values_of("NEW")})
        ON CONFLICT (case_id) DO UPDATE SET {UPSERT};
        RETURN NULL;
    END
    $$
    """,
    """
    CREATE FUNCTION cases_search_entry_delete() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        DELETE FROM cases_searchentry WHERE case_id = OLD.id;
        RETURN NULL;
    END
    $$
    """,
    "CREATE TRIGGER case_search_entry_insert AFTER INSERT ON cases_case "
    "FOR EACH ROW EXECUTE FUNCTION cases_search_entry_write()",
    f"CREATE TRIGGER case_search_entry_update AFTER UPDATE OF {', '.join(SOURCE_COLUMNS)} "
    f"ON cases_case FOR EACH ROW WHEN ({changed()}) "
    "EXECUTE FUNCTION cases_search_entry_write()",
    "CREATE TRIGGER case_search_entry_delete AFTER DELETE ON cases_case "
    "FOR EACH ROW EXECUTE FUNCTION cases_search_entry_delete()",
    FILL,
    "CREATE INDEX search_entry_vector ON cases_searchentry USING gin (search_vector)",
]
POSTGRESQL_BACK = [
    "DROP TRIGGER case_search_entry_insert ON cases_case",
    "DROP TRIGGER case_search_entry_update ON cases_case",
    "DROP TRIGGER case_search_entry_delete ON cases_case",
    "DROP FUNCTION cases_search_entry_write()",
    "DROP FUNCTION cases_search_entry_delete()",
]

SQLITE = [
    f"""
    CREATE TRIGGER case_search_entry_insert AFTER INSERT ON cases_case BEGIN
        INSERT INTO cases_searchentry ({NAMES}) VALUES ({values_of("NEW")})
        ON CONFLICT (case_id) DO UPDATE SET {UPSERT};
    END
    """,
    f"""
    CREATE TRIGGER case_search_entry_update AFTER UPDATE OF {", ".join(SOURCE_COLUMNS)}
    ON cases_case WHEN {changed().replace("IS DISTINCT FROM", "IS NOT")} BEGIN
        INSERT INTO cases_searchentry ({NAMES}) VALUES ({values_of("NEW")})
        ON CONFLICT (case_id) DO UPDATE SET {UPSERT};
    END
    """,
    """
    CREATE TRIGGER case_search_entry_delete AFTER DELETE ON cases_case BEGIN
        DELETE FROM cases_searchentry WHERE case_id = OLD.id;
    END
    """,
    FILL,
]
SQLITE_BACK = [
    "DROP TRIGGER case_search_entry_insert",
    "DROP TRIGGER case_search_entry_update",
    "DROP TRIGGER case_search_entry_delete",
]


def run(statements):
    def operation(apps, schema_editor):
        by_vendor = statements.get(schema_editor.connection.vendor)
        if by_vendor is None:
            raise NotImplementedError("search entries are kept on PostgreSQL and SQLite only")
        for statement in by_vendor:
            schema_editor.execute(statement)

    return operation


class Migration(migrations.Migration):
    dependencies = [("cases", "0027_search_words")]

    operations = [
        migrations.CreateModel(
            name="SearchEntry",
            # In the table's column order: the fixed-width columns first, unpadded.
            fields=[
                ("case", models.OneToOneField(db_constraint=False, on_delete=django.db.models.deletion.DO_NOTHING, primary_key=True, related_name="search_entry", serialize=False, to="cases.case")),
                ("org", models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.DO_NOTHING, related_name="+", to="cases.organisation")),
                ("root_cause", models.ForeignKey(db_constraint=False, db_index=False, null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name="+", to="cases.term")),
                ("date", models.DateField()),
                ("status", models.CharField(choices=[("draft", "Draft"), ("in_review", "In review"), ("changes_requested", "Changes requested"), ("published", "Published"), ("withdrawn", "Withdrawn")], max_length=20)),
                ("public_id", models.CharField(max_length=20)),
                ("title_words", models.TextField()),
                ("search_text", models.TextField()),
            ],
            options={"default_permissions": ()},
        ),
        # Dropping the table on the way back takes the generated column and index with it.
        migrations.RunPython(
            run({"postgresql": POSTGRESQL, "sqlite": SQLITE}),
            run({"postgresql": POSTGRESQL_BACK, "sqlite": SQLITE_BACK}),
        ),
    ]
