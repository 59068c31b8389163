"""Deleting a row without Django's collector (cases.deletion) leaves the database exactly as
`Model.delete()` would, whatever points at the row.

The finding (#21, point 3): an approval deleted the revision's working copy through the
collector, seventeen statements compiled one by one for a row with next to nothing
hanging on it, a tenth of a correction's work in the editor's process.
"""

import datetime
import itertools

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, models, transaction
from django.db.models.deletion import Collector, get_candidate_relations_to_delete
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from cases.deletion import delete_row, statements_for
from cases.models import Case, CaseComment, CaseStep, CommentReply, Organisation, Source, Term
from tests.factories import (
    CaseFactory,
    CaseStepFactory,
    OrganisationFactory,
    SourceFactory,
    TermFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

RELATIONS = list(get_candidate_relations_to_delete(Case._meta))
# Those a deletion acts on: a case's own copies are the collector's (see below), and a
# relation that does nothing (the search entries) is the database's own to keep.
FOLLOWED = [
    relation
    for relation in RELATIONS
    if relation.field.name != "draft_of" and relation.on_delete is not models.DO_NOTHING
]
FAST = [
    relation
    for relation in FOLLOWED
    if relation.on_delete is not models.CASCADE
    or Collector(using="default").can_fast_delete(
        relation.related_model._base_manager.all(), from_field=relation.field
    )
]
NUMBERS = itertools.count()


def filled(field, *, case, user):
    """A value a required column of a test row can take."""
    if isinstance(field, models.ForeignKey):
        target = field.related_model
        if target is Case:
            return CaseFactory()
        if target is get_user_model():
            return user
        if target is CaseComment:
            return CaseComment.objects.create(case=CaseFactory(), field_path="title", text="x")
        return {Term: TermFactory, Organisation: OrganisationFactory}[target]()
    if field.choices:
        return field.choices[0][0]
    if isinstance(field, models.DateTimeField):
        return timezone.now()
    if isinstance(field, models.DateField):
        return datetime.date(2024, 1, 1)
    if isinstance(field, models.JSONField):
        return {}
    if isinstance(field, models.BooleanField):
        return False
    if isinstance(field, (models.IntegerField, models.FloatField, models.DecimalField)):
        return 1
    return f"x{next(NUMBERS)}"


def point_at(case, relation, *, user):
    """A row of the relation's model that points at `case` through it, its other required
    columns filled."""
    model = relation.related_model
    values = {relation.field.name: case}
    made_by = {Case: CaseFactory, CaseStep: CaseStepFactory, Source: SourceFactory}
    if model in made_by:  # (rows their factories know how to fill)
        return made_by[model](**values)
    for field in model._meta.concrete_fields:
        if field.primary_key or field.name in values or field.null or field.has_default():
            continue
        if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
            continue
        if field.blank and not isinstance(field, models.ForeignKey):
            continue
        values[field.name] = filled(field, case=case, user=user)
    return model.objects.create(**values)


def everything_pointing_at(case, user, *, collected=True):
    """A row in each relation that points at a case: what its deletion deletes or lets go;
    with `collected=False`, not in those whose rows have rows of their own (comments)."""
    for relation in FOLLOWED if collected else FAST:
        point_at(case, relation, user=user)


def database_state():
    """Every row of every table a case's deletion touches: {model: {key: values}}."""
    tables = {Case, CommentReply, *(relation.related_model for relation in RELATIONS)}
    return {
        model.__name__: {row[model._meta.pk.attname]: row for row in model._base_manager.values()}
        for model in tables
    }


def state_after(deletion, case):
    """The database after `deletion(case)`, then put back as it was."""
    with transaction.atomic():
        deletion(Case.objects.get(pk=case.pk))
        connection.check_constraints()  # (PostgreSQL checks its foreign keys at the commit)
        state = database_state()
        transaction.set_rollback(True)
    return state


def test_it_leaves_the_database_as_delete_does_whatever_points_at_the_row():
    case = CaseFactory(status=Case.Status.DRAFT)
    everything_pointing_at(case, UserFactory(), collected=False)
    before = database_state()

    quick, collected = state_after(delete_row, case), state_after(Case.delete, case)

    assert quick == collected
    assert case.pk not in quick["Case"] and quick != before


def test_every_relation_to_a_case_has_a_row_in_the_test():
    """A relation added to Case later gets a row above, or this test says which."""
    case = CaseFactory()
    everything_pointing_at(case, UserFactory())
    for relation in FOLLOWED:
        rows = relation.related_model._base_manager.filter(**{relation.field.name: case})
        assert rows.exists(), f"{relation.related_model.__name__}.{relation.field.name}"


def test_rows_with_rows_of_their_own_are_left_to_the_collector():
    """A comment's replies, a case's own working copy: followed as delete() follows them."""
    case = CaseFactory()
    user = UserFactory()
    comment = CaseComment.objects.create(case=case, field_path="title", text="Which outage?")
    CommentReply.objects.create(comment=comment, text="The second one.", author=user)
    copy = CaseFactory(public_id=case.public_id, draft_of=case, status=Case.Status.DRAFT)
    everything_pointing_at(copy, user)

    quick, collected = state_after(delete_row, case), state_after(Case.delete, case)

    assert quick == collected
    assert quick["CommentReply"] == {} and comment.pk not in quick["CaseComment"]
    assert copy.pk not in quick["Case"]


def test_a_row_nothing_complicated_points_at_goes_in_one_statement_on_postgresql():
    case = CaseFactory(status=Case.Status.DRAFT)
    everything_pointing_at(case, UserFactory(), collected=False)
    case = Case.objects.get(pk=case.pk)
    with CaptureQueriesContext(connection) as queries:
        delete_row(case)
    assert not Case.objects.filter(pk=case.pk).exists()
    statements, _guards = statements_for(Case, connection.alias)
    expected = 1 if connection.vendor == "postgresql" else len(statements)
    assert len(queries) <= expected, "\n".join(q["sql"][:120] for q in queries.captured_queries)
