"""New terms are reviewed (#23, point 1): an import maps an unknown slug through the
taxonomy's names and aliases, or holds it as an unreviewed term the public does not see."""

import string

import pytest
from django.core.management import call_command
from hypothesis import given
from hypothesis import strategies as st

from cases.models import Case, Term, Vocabulary
from cases.rules import name_key
from tests.conftest import REPO
from tests.exchange.test_importer import another_case, run_import
from tests.factories import TermFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def taxonomy():
    call_command("load_taxonomy", str(REPO / "data" / "taxonomy.json"), verbosity=0)


@pytest.fixture
def post_mortem(seed_case):
    """An English-only post-mortem from a catalogue with free-form categories."""
    return another_case(
        seed_case,
        "IL-0700",
        root_cause="config-change",
        components=["aws", "us-east-1", "shared-filesystem"],
        symptoms=["outage"],
        domain=[],
        contributing=[],
    )


def slugs(case, vocabulary):
    return [term.slug for term in case.terms_of(vocabulary)]


def test_an_unknown_slug_is_held_as_an_unreviewed_term(taxonomy, post_mortem, write_json):
    _out, err, error = run_import(write_json("c.json", post_mortem))
    assert error is None, err
    aws = Term.objects.get(vocabulary=Vocabulary.COMPONENT, slug="aws")
    assert aws.reviewed is False
    assert not Term.objects.public().filter(slug__in=["aws", "us-east-1"]).exists()
    # The taxonomy's own terms are reviewed and public as before.
    assert Term.objects.public().filter(slug="shared-filesystem").exists()


def test_a_slug_matching_an_alias_gets_the_aliased_term(taxonomy, post_mortem, write_json):
    """`config-change` is the alias "config change" of configuration-error; `outage` the
    alias "outage" of service-unavailable: no new term for either."""
    out, err, error = run_import(write_json("c.json", post_mortem))
    assert error is None, err
    case = Case.objects.get(public_id="IL-0700")
    assert case.root_cause.slug == "configuration-error"
    assert slugs(case, Vocabulary.SYMPTOM) == ["service-unavailable"]
    assert not Term.objects.filter(slug__in=["config-change", "outage"]).exists()
    assert "root_cause: config-change → Configuration error (configuration-error)" in out
    assert "symptom: outage → Service unavailable (service-unavailable)" in out


def test_a_case_naming_a_term_twice_by_two_names_keeps_it_once(taxonomy, post_mortem, write_json):
    post_mortem["components"] = ["hdfs", "shared-filesystem", "nfs"]
    assert run_import(write_json("c.json", post_mortem))[2] is None
    assert slugs(Case.objects.get(), Vocabulary.COMPONENT) == ["shared-filesystem"]


def test_a_mapped_case_imported_again_is_unchanged(taxonomy, post_mortem, write_json):
    path = write_json("c.json", post_mortem)
    assert run_import(path)[2] is None
    out, _err, error = run_import(path)
    assert error is None
    assert "created 0, updated 0, unchanged 1, skipped 0" in out


def test_a_name_two_terms_share_maps_to_neither(taxonomy, post_mortem, write_json):
    # "reverse proxy" is an alias of both load-balancer and cdn-edge.
    post_mortem["components"] = ["reverse-proxy"]
    out, _err, error = run_import(write_json("c.json", post_mortem))
    assert error is None
    assert Term.objects.get(slug="reverse-proxy").reviewed is False
    assert "component: reverse-proxy (new; its name matches cdn-edge, load-balancer)" in out


def test_a_merged_terms_old_slug_maps_to_the_survivor(taxonomy, post_mortem, write_json):
    from cases.editorial.names import term_merge

    survivor = Term.objects.get(vocabulary=Vocabulary.COMPONENT, slug="shared-filesystem")
    old = TermFactory(vocabulary=Vocabulary.COMPONENT, slug="storage-cluster")
    term_merge(survivor=survivor, others=[old])
    post_mortem["components"] = ["storage-cluster"]
    assert run_import(write_json("c.json", post_mortem))[2] is None
    assert slugs(Case.objects.get(), Vocabulary.COMPONENT) == ["shared-filesystem"]
    assert not Term.objects.filter(slug="storage-cluster").exists()


def test_dry_run_lists_every_new_term_and_mapping_and_writes_nothing(
    taxonomy, post_mortem, write_json
):
    terms_before = Term.objects.count()
    out, _err, error = run_import(write_json("c.json", post_mortem), "--dry-run")
    assert error is None
    assert "Dry run, nothing written" in out
    assert "root_cause: config-change → Configuration error (configuration-error)" in out
    assert "component: aws (new)" in out
    assert "component: us-east-1 (new)" in out
    assert "shared-filesystem" not in out  # a known slug is neither new nor mapped
    assert Term.objects.count() == terms_before
    assert not Case.objects.exists()


def test_a_real_run_says_which_terms_wait_for_review(taxonomy, post_mortem, write_json):
    out, _err, _error = run_import(write_json("c.json", post_mortem))
    assert "not public until an editor accepts them" in out
    assert "component: aws (new)" in out


def test_a_skipped_case_makes_no_new_term(taxonomy, post_mortem, write_json):
    assert run_import(write_json("c.json", post_mortem))[2] is None
    Case.objects.filter(public_id="IL-0700").update(title_en="Edited by hand")
    Case.objects.filter(public_id="IL-0700").update(import_fingerprint="edited")
    post_mortem["components"] = ["github"]
    out, _err, error = run_import(write_json("c.json", post_mortem))
    assert error is None and "skipped 1" in out
    assert not Term.objects.filter(slug="github").exists()
    assert "github" not in out


# --- the name key -----------------------------------------------------------------


@pytest.mark.parametrize(
    "a, b",
    [
        ("config-change", "Config change"),
        ("us-east-1", "US East 1"),
        ("GitHub", "github"),
        ("CI/CD", "ci-cd"),
        ("Amazon S3", "amazon_s3"),
    ],
)
def test_names_that_differ_in_case_and_punctuation_share_a_key(a, b):
    assert name_key(a) == name_key(b)


@pytest.mark.parametrize("a, b", [("cache", "caches"), ("s3", "s4"), ("dns", "")])
def test_different_names_keep_different_keys(a, b):
    assert name_key(a) != name_key(b)


names = st.text(alphabet=string.ascii_letters + string.digits + " -_/.,'()", max_size=30)


@given(names)
def test_a_slug_made_from_a_name_has_the_names_key(name):
    """An importer's slug is its catalogue's name slugified: they must meet."""
    from django.utils.text import slugify

    assert name_key(slugify(name)) == name_key(name)


@given(names)
def test_the_key_is_idempotent_and_ignores_case_and_punctuation(name):
    key = name_key(name)
    assert name_key(key) == key
    assert name_key(name.upper()) == key
    assert name_key(f" -{name}- ") == key


# --- the admin's import preview -------------------------------------------------------


def test_the_admin_preview_lists_the_mapped_and_the_new_terms(
    client, reviewer, taxonomy, post_mortem
):
    from tests.admin.test_import_export import json_lines, text_of, upload

    client.force_login(reviewer)
    terms_before = Term.objects.count()
    response = upload(client, json_lines(post_mortem))
    assert response.status_code == 200
    text = text_of(response)
    assert "Slugs imported as an existing term" in text
    assert "<code>config-change</code></td><td>Configuration error" in text
    assert "New terms, held for review" in text
    assert [c.slug for c in response.context["new_terms"]] == ["aws", "us-east-1"]
    assert Term.objects.count() == terms_before
