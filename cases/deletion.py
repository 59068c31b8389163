"""Deleting one row as Django's `Model.delete()` would, in one statement where it can.

Django's collector asks, for each relation that points at the row, what hangs on it, and
compiles a statement for each: seventeen for a case, a tenth of the editor's work in a
correction, whose approval deletes the revision's working copy, with next to nothing
hanging on it.
`delete_row` writes those statements once per database from the same relations and their
`on_delete`, and sends them as one on PostgreSQL. Relations whose rows have rows of their
own hanging on them (a case's copies, a comment's replies) are the collector's to follow:
if the row has any, it is left to `Model.delete()`.
"""

import functools

from django.db import connections, router, transaction
from django.db.models import CASCADE, SET_NULL, signals
from django.db.models.deletion import (
    SKIP_COLLECTION,
    Collector,
    get_candidate_relations_to_delete,
)


class NeedsCollector(Exception):
    """A relation `delete_row` does not follow; Model.delete() does."""


@functools.cache
def statements_for(model, alias):
    """(statements, guards) deleting a row of `model` by its primary key on `alias`: the
    statements that delete or let go what points at it, the last deleting the row itself,
    each with one parameter, the key; and the queries whose rows would need the collector."""
    connection = connections[alias]
    quote = connection.ops.quote_name
    if model._meta.parents or any(
        signal.has_listeners(model) for signal in (signals.pre_delete, signals.post_delete)
    ):
        raise NeedsCollector(model)
    collector = Collector(using=alias)
    statements, guards = [], []
    # As the collector finds them: hidden relations (related_name "+") too.
    for relation in get_candidate_relations_to_delete(model._meta):
        if relation.many_to_many or relation.on_delete in SKIP_COLLECTION:
            continue  # (nothing to do, or the database's; a many-to-many's table is followed)
        if not relation.field.target_field.primary_key:
            raise NeedsCollector(relation)
        table = quote(relation.related_model._meta.db_table)
        column = quote(relation.field.column)
        if relation.on_delete is SET_NULL:
            statements.append(f"UPDATE {table} SET {column} = NULL WHERE {column} = %s")
        elif relation.on_delete is CASCADE and collector.can_fast_delete(
            relation.related_model._base_manager.all(), from_field=relation.field
        ):
            statements.append(f"DELETE FROM {table} WHERE {column} = %s")
        elif relation.on_delete is CASCADE:
            guards.append(f"SELECT 1 FROM {table} WHERE {column} = %s")
        else:  # PROTECT, RESTRICT, SET(...), SET_DEFAULT: the collector's to judge
            raise NeedsCollector(relation)
    pk = quote(model._meta.pk.column)
    unguarded = " AND ".join(f"NOT EXISTS ({guard})" for guard in guards) or "TRUE"
    statements.append(f"DELETE FROM {quote(model._meta.db_table)} WHERE {pk} = %s AND {unguarded}")
    return statements, len(guards)


def delete_row(instance):
    """Delete `instance` and what its relations delete with it, or let go, as its
    `delete()` would (it does, where a relation holds rows with rows of their own)."""
    model = type(instance)._meta.concrete_model
    alias = router.db_for_write(model, instance=instance)
    try:
        statements, guards = statements_for(model, alias)
    except NeedsCollector:
        return instance.delete()
    connection = connections[alias]
    key = instance.pk
    with transaction.atomic(using=alias, savepoint=False), connection.cursor() as cursor:
        if connection.vendor == "postgresql" and len(statements) > 1:
            # Each part sees the rows as they were before the statement; the foreign keys
            # are checked at the commit (Django creates them deferred).
            parts = [f"part_{n} AS ({sql})" for n, sql in enumerate(statements[:-1])]
            params = [key] * (len(statements) + guards)
            cursor.execute(f"WITH {', '.join(parts)} {statements[-1]}", params)
        else:
            for sql in statements[:-1]:
                cursor.execute(sql, [key])
            cursor.execute(statements[-1], [key] * (1 + guards))
        deleted = cursor.rowcount
    if deleted != 1:  # a relation holds rows the collector must follow (or none was there)
        instance.delete()
    instance.pk = None
