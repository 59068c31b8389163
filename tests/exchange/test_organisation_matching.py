"""The importer knows organisations by their slugs, old slugs, names and aliases, and names
that differ only in case, spaces or punctuation: it matches them instead of refusing the run
or making a second organisation, and says what it matched (issue #23, point 2)."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cases.models import Case, Organisation
from tests.exchange.test_importer import another_case, run_import
from tests.factories import OrganisationFactory

pytestmark = pytest.mark.django_db


def org_of(case_id):
    return Case.objects.select_related("org").get(public_id=case_id).org


def test_one_run_that_spells_an_organisation_two_ways_makes_one_organisation(
    seed_case, write_json, tmp_path
):
    write_json("a.json", another_case(seed_case, "IL-0001", org="Gitlab", org_slug="gitlab"))
    write_json("b.json", another_case(seed_case, "IL-0002", org="GitLab", org_slug="gitlab"))

    out, err, error = run_import(tmp_path)

    assert error is None, err
    assert "created 2" in out
    assert org_of("IL-0001") == org_of("IL-0002")
    assert Organisation.objects.filter(slug="gitlab").count() == 1
    assert "GitLab → Gitlab (gitlab)" in out  # the first spelling names it; the other is said


def test_one_run_matches_spellings_without_a_slug(seed_case, write_json, tmp_path):
    first = another_case(seed_case, "IL-0001", org="Git Lab")
    first.pop("org_slug", None)
    write_json("a.json", first)
    write_json("b.json", another_case(seed_case, "IL-0002", org="GitLab", org_slug="gitlab"))

    out, err, error = run_import(tmp_path)

    assert error is None, err
    assert org_of("IL-0001") == org_of("IL-0002")
    assert Organisation.objects.filter(name__in=["Git Lab", "GitLab"]).count() == 1


def test_a_later_run_matches_another_spelling_and_says_so(seed_case, write_json):
    OrganisationFactory(slug="gitlab", name="GitLab")
    path = write_json("a.json", another_case(seed_case, "IL-0001", org="Gitlab", org_slug="gitlab"))

    out, err, error = run_import(path)

    assert error is None, err
    assert org_of("IL-0001").name == "GitLab"
    assert "Gitlab → GitLab (gitlab)" in out


def test_an_alias_matches_the_organisation_it_names(seed_case, write_json):
    meta = OrganisationFactory(slug="meta", name="Meta", aliases_en="Facebook")
    path = write_json(
        "a.json", another_case(seed_case, "IL-0001", org="Facebook", org_slug="facebook")
    )

    out, _err, error = run_import(path)

    assert error is None
    assert org_of("IL-0001") == meta
    assert not Organisation.objects.filter(slug="facebook").exists()
    assert "Facebook → Meta (meta)" in out


def test_a_korean_name_matches_too(seed_case, write_json):
    meta = OrganisationFactory(slug="meta", name="Meta", name_ko="메타")
    path = write_json("a.json", another_case(seed_case, "IL-0001", org="메타", org_slug="meta-ko"))

    _out, _err, error = run_import(path)

    assert error is None
    assert org_of("IL-0001") == meta


def test_the_dry_run_says_what_it_would_match(seed_case, write_json):
    OrganisationFactory(slug="meta", name="Meta", aliases_en="Facebook")
    path = write_json(
        "a.json", another_case(seed_case, "IL-0001", org="Facebook", org_slug="facebook")
    )

    out, _err, error = run_import(path, "--dry-run")

    assert error is None
    assert "Facebook → Meta (meta)" in out
    assert not Case.objects.exists()


def test_a_matched_case_imports_again_unchanged(seed_case, write_json):
    """The stored case is the matched organisation's: importing the same file again (or an
    export of it) changes nothing, and is not taken for an editor's change."""
    OrganisationFactory(slug="meta", name="Meta", aliases_en="Facebook")
    path = write_json(
        "a.json", another_case(seed_case, "IL-0001", org="Facebook", org_slug="facebook")
    )
    run_import(path)

    out, _err, error = run_import(path)

    assert error is None
    assert "created 0, updated 0, unchanged 1, skipped 0" in out


def test_a_merged_organisations_old_slug_matches_the_survivor(seed_case, write_json):
    from cases.editorial.names import organisation_merge

    meta = OrganisationFactory(slug="meta", name="Meta")
    facebook = OrganisationFactory(slug="facebook-inc", name="Facebook Inc")
    organisation_merge(survivor=meta, others=[facebook])
    path = write_json(
        "a.json", another_case(seed_case, "IL-0001", org="FB", org_slug="facebook-inc")
    )

    out, _err, error = run_import(path)

    assert error is None
    assert org_of("IL-0001") == meta
    assert "FB → Meta (meta)" in out


def test_different_organisations_stay_apart(seed_case, write_json, tmp_path):
    OrganisationFactory(slug="amazon-web-services", name="Amazon Web Services", aliases_en="AWS")
    write_json("a.json", another_case(seed_case, "IL-0001", org="Amazon", org_slug="amazon"))
    write_json("b.json", another_case(seed_case, "IL-0002", org="AWS", org_slug="aws"))

    _out, _err, error = run_import(tmp_path)

    assert error is None
    assert org_of("IL-0001").slug == "amazon"
    assert org_of("IL-0002").slug == "amazon-web-services"


# A name as one catalogue spells it, and as another might: in other letter case, with spaces
# and punctuation put in or taken out.
LETTERS_AND_DIGITS = st.characters(categories=["Lu", "Ll", "Nd", "Lo"])
names = st.text(alphabet=LETTERS_AND_DIGITS, min_size=1, max_size=60)


def other_case(char):
    """The letter in its other case, where that is the same letter folded: not for one whose
    case is not one letter's two forms (Turkish "ı" upper-cases to "I", which folds to "i")."""
    swapped = char.swapcase()
    return swapped if swapped.casefold() == char.casefold() else char


@st.composite
def respelled(draw, name):
    cased = "".join(other_case(c) if draw(st.booleans()) else c for c in name)
    marks = st.sampled_from([" ", "-", ".", "'", "&", ""])
    return "".join(c + draw(marks) for c in cased)


@given(data=st.data(), name=names)
@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_any_respelling_of_a_known_name_matches_it(data, name):
    from cases.exchange.organisations import OrganisationMatcher

    Organisation.objects.all().delete()
    OrganisationFactory(slug="known", name=name)
    other = data.draw(respelled(name))
    assert OrganisationMatcher().resolve(other, "some-other-slug") == (name, "known")


# An editor's one case reads its organisation alone: loading every organisation to match it
# was a fifth of the writer's time for a new case in `make load` (issue #21).
@pytest.fixture
def known_organisations():
    from cases.models import OrganisationRedirect

    OrganisationFactory.create_batch(5)
    gitlab = OrganisationFactory(slug="gitlab", name="GitLab", aliases_en="Git Lab")
    meta = OrganisationFactory(slug="meta", name="Meta", aliases_ko="페이스북")
    OrganisationRedirect.objects.create(old_slug="facebook", old_name="Facebook", organisation=meta)
    # A slug that is another organisation's old name: its own slug must still win.
    OrganisationFactory(slug="git-lab", name="Git Lab Tools")
    return gitlab


def test_a_case_naming_a_known_slug_reads_that_organisation_alone(
    known_organisations, django_assert_num_queries
):
    from cases.exchange.organisations import OrganisationMatcher

    matcher = OrganisationMatcher()
    with django_assert_num_queries(1):
        assert matcher.resolve("Gitlab", "gitlab") == ("GitLab", "gitlab")
        assert matcher.resolve("GitLab", "gitlab") == ("GitLab", "gitlab")
    assert matcher.said() == ["Gitlab → GitLab (gitlab)"]


SPELLINGS = [
    ("GitLab", "gitlab"),
    ("Gitlab", "git-lab"),
    ("Git Lab", "somewhere"),
    ("Facebook", "facebook"),
    ("페이스북", "fb"),
    ("Meta", "meta"),
    ("New Co", "new-co"),
    ("new co", "newco"),
    ("Organisation 1", "organisation-1"),
    ("Unknown", "organisation-2"),
] + [(f"Organisation {n}", f"organisation-{n}") for n in range(3, 12)]


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(SPELLINGS), max_size=14))
def test_reading_slugs_one_by_one_matches_as_reading_them_all(known_organisations, spellings):
    from cases.exchange.organisations import OrganisationMatcher

    lazy, eager = OrganisationMatcher(), OrganisationMatcher()
    eager.load()
    for name, slug in spellings:
        assert lazy.resolve(name, slug) == eager.resolve(name, slug), (name, slug)
    assert lazy.said() == eager.said()
