"""The taxonomy file's organisations: load_taxonomy creates them and fills in their aliases,
export writes them back, and a bad entry is refused whole. (Terms: test_bundled.py.)"""

import io
import json

import pytest
from django.core.management import CommandError, call_command

from cases.exchange.taxonomy import TaxonomyError, export_taxonomy, load_taxonomy, parse_taxonomy
from cases.models import Case, Organisation, Term, Vocabulary
from cases.search.text import refresh_search_text
from tests.factories import CaseFactory, OrganisationFactory, TermFactory
from tests.library import database_fingerprint

pytestmark = pytest.mark.django_db

META = {
    "slug": "meta",
    "name": "Meta",
    "aliases": {"en": ["Facebook", "Meta Platforms"], "ko": ["메타", "페이스북"]},
}
KAKAO = {"slug": "kakao", "name": "Kakao", "aliases": {"ko": ["카카오"]}}


def load(write_json, document, *args):
    """Run load_taxonomy on the document; return what it printed."""
    out = io.StringIO()
    call_command("load_taxonomy", str(write_json("taxonomy.json", document)), *args, stdout=out)
    return out.getvalue()


def aliases(slug):
    org = Organisation.objects.get(slug=slug)
    return {language: org.alias_list(language) for language in ("en", "ko")}


def test_loading_creates_organisations_with_their_names_and_aliases(write_json):
    output = load(write_json, {"organisations": [META, KAKAO]})
    assert "organisations: created 2, updated 0, unchanged 0" in output
    assert Organisation.objects.get(slug="meta").name == "Meta"
    assert aliases("meta") == {"en": ["Facebook", "Meta Platforms"], "ko": ["메타", "페이스북"]}
    assert aliases("kakao") == {"en": [], "ko": ["카카오"]}


def test_an_organisation_an_import_created_gets_its_aliases_and_keeps_its_name(
    seed_case, write_json
):
    seed_case["org"], seed_case["org_slug"] = "Facebook, Inc.", "meta"
    call_command("import_cases", str(write_json("c.json", seed_case)), stdout=io.StringIO())

    output = load(write_json, {"organisations": [META]})

    assert "organisations: created 0, updated 1, unchanged 0" in output
    org = Organisation.objects.get(slug="meta")
    assert org.name == "Facebook, Inc."  # an import's name is a real name: only --force renames
    assert org.alias_list("ko") == ["메타", "페이스북"]
    assert Case.objects.get().org == org


def test_the_importer_reuses_the_organisation_the_taxonomy_created(seed_case, write_json):
    load(write_json, {"organisations": [META]})
    seed_case["org"], seed_case["org_slug"] = "Meta", "meta"
    call_command("import_cases", str(write_json("c.json", seed_case)), stdout=io.StringIO())
    assert Organisation.objects.count() == 1
    assert Case.objects.get().org.alias_list("ko") == ["메타", "페이스북"]


def test_loading_again_keeps_editors_aliases_and_force_overwrites_them(write_json):
    load(write_json, {"organisations": [META]})
    org = Organisation.objects.get(slug="meta")
    org.name, org.aliases_ko = "Meta (Facebook)", "페북"
    org.save()

    assert "unchanged 1" in load(write_json, {"organisations": [META]})
    org.refresh_from_db()
    assert (org.name, org.alias_list("ko")) == ("Meta (Facebook)", ["페북"])

    load(write_json, {"organisations": [META]}, "--force")
    org.refresh_from_db()
    assert (org.name, org.alias_list("ko")) == ("Meta", ["메타", "페이스북"])


def test_loading_fills_in_aliases_an_editor_left_empty(write_json):
    OrganisationFactory(slug="kakao", name="Kakao Corp.", aliases_en="KakaoTalk")
    load(write_json, {"organisations": [KAKAO]})
    assert aliases("kakao") == {"en": ["KakaoTalk"], "ko": ["카카오"]}


def test_a_forced_rename_reaches_the_search_text_of_the_organisations_cases(write_json):
    case = CaseFactory(org=OrganisationFactory(slug="meta", name="Facebook"))
    refresh_search_text(Case.objects.all())
    case.refresh_from_db()
    assert "facebook" in case.search_text.split()
    load(write_json, {"organisations": [META]}, "--force")
    case.refresh_from_db()
    assert "facebook" not in case.search_text.split()


def test_an_organisation_named_in_two_files_is_created_once(write_json):
    first = write_json("first.json", {"organisations": [{"slug": "kakao", "name": "Kakao"}]})
    second = write_json("second.json", {"organisations": [KAKAO]})
    call_command("load_taxonomy", str(first), str(second), stdout=io.StringIO())
    assert Organisation.objects.filter(slug="kakao").count() == 1
    assert aliases("kakao")["ko"] == ["카카오"]


def test_a_file_without_organisations_still_loads(write_json):
    # Backups made before organisations were in the file have only vocabularies.
    output = load(write_json, {"component": [{"slug": "dns", "label": {"en": "DNS"}}]})
    assert "organisations: created 0" in output
    assert parse_taxonomy(json.dumps({"component": []})).organisations == []


def test_export_writes_what_load_reads(write_json):
    OrganisationFactory(
        slug="gitlab",
        name="GitLab",
        name_ko="깃랩",
        aliases_ko="깃 랩",
        aliases_en="",
        links=["https://about.gitlab.com/"],
    )
    OrganisationFactory(slug="acme", name="Acme")  # on no case, with no aliases
    term = TermFactory(vocabulary=Vocabulary.COMPONENT, slug="cache", label_en="Cache")
    term.aliases_ko = "레디스"
    term.save()
    document = export_taxonomy()
    assert document["organisations"] == [
        {
            "slug": "acme",
            "name": "Acme",
            "name_ko": "",
            "aliases": {"en": [], "ko": []},
            "links": [],
        },
        {
            "slug": "gitlab",
            "name": "GitLab",
            "name_ko": "깃랩",
            "aliases": {"en": [], "ko": ["깃 랩"]},
            "links": ["https://about.gitlab.com/"],
        },
    ]

    Organisation.objects.all().delete()
    Term.objects.all().delete()
    taxonomy = parse_taxonomy(json.dumps(document, ensure_ascii=False))
    load_taxonomy(taxonomy.terms, organisations=taxonomy.organisations)
    assert export_taxonomy() == document


# name: (the "organisations" value, the one problem it has)
BAD_ORGANISATIONS = {
    "not a list": ({"slug": "meta"}, "organisations: must be a list of organisations"),
    "not an object": (["meta"], "organisations[0]: must be an object"),
    "bad slug": ([META | {"slug": "Meta Inc"}], "organisations[0].slug: 'Meta Inc' is not a slug"),
    "no slug": ([{"name": "Meta"}], "organisations[0].slug: None is not a slug"),
    "twice": ([META, KAKAO, META], "organisations[2].slug: 'meta' appears twice (first at [0])"),
    "no name": ([{"slug": "meta"}], "organisations[0].name: a name is required"),
    "blank name": ([META | {"name": "  "}], "organisations[0].name: a name is required"),
    "name not text": ([META | {"name": ["Meta"]}], "organisations[0].name: must be a string"),
    "long name": ([META | {"name": "M" * 201}], "organisations[0].name: at most 200 characters"),
    "unknown field": ([META | {"label": "Meta"}], "organisations[0].label: unknown field"),
    "aliases a list": (
        [META | {"aliases": ["Facebook"]}],
        "organisations[0].aliases: must be an object with en and ko",
    ),
    "other language": (
        [META | {"aliases": {"ja": ["メタ"]}}],
        "organisations[0].aliases: must be an object with en and ko",
    ),
    "alias a string": (
        [META | {"aliases": {"ko": "메타"}}],
        "organisations[0].aliases.ko: must be a list of strings",
    ),
    "alias a number": (
        [META | {"aliases": {"en": ["Facebook", 7]}}],
        "organisations[0].aliases.en: must be a list of strings",
    ),
    "alias of two lines": (
        [META | {"aliases": {"en": ["Facebook\nInstagram"]}}],
        "organisations[0].aliases.en[0]: must be one line",
    ),
}


@pytest.mark.parametrize("name", BAD_ORGANISATIONS)
def test_a_bad_organisation_loads_nothing(write_json, name):
    organisations, problem = BAD_ORGANISATIONS[name]
    OrganisationFactory(slug="meta", name="Meta")
    path = write_json(
        "taxonomy.json",
        {"component": [{"slug": "dns", "label": {"en": "DNS"}}], "organisations": organisations},
    )
    before = database_fingerprint()
    errors = io.StringIO()
    with pytest.raises(CommandError, match="Nothing was loaded"):
        call_command("load_taxonomy", str(path), stdout=io.StringIO(), stderr=errors)
    assert errors.getvalue().splitlines() == [f"{path}: {problem}"]
    assert database_fingerprint() == before


def test_every_bad_organisation_is_named_with_the_terms_problems(write_json):
    path = write_json(
        "taxonomy.json",
        {
            "component": [{"slug": "dns"}],
            "organisations": [{"slug": "meta"}, META | {"aliases": {"ko": "메타"}}],
        },
    )
    errors = io.StringIO()
    with pytest.raises(CommandError):
        call_command("load_taxonomy", str(path), stdout=io.StringIO(), stderr=errors)
    assert errors.getvalue().splitlines() == [
        f"{path}: component[0].label.en: an English label is required",
        f"{path}: organisations[0].name: a name is required",
        f"{path}: organisations[1].slug: 'meta' appears twice (first at [0])",
    ]
    assert not Term.objects.exists() and not Organisation.objects.exists()


def test_a_term_alias_of_two_lines_is_refused_too(write_json):
    path = write_json(
        "taxonomy.json",
        {"component": [{"slug": "cache", "label": {"en": "Cache"}, "aliases": {"en": ["a\nb"]}}]},
    )
    errors = io.StringIO()
    with pytest.raises(CommandError):
        call_command("load_taxonomy", str(path), stdout=io.StringIO(), stderr=errors)
    assert errors.getvalue().strip() == f"{path}: component[0].aliases.en[0]: must be one line"


def test_an_organisations_korean_name_and_links_must_be_well_formed():
    from cases.exchange.taxonomy import TaxonomyError

    bad = {
        "organisations": [
            {"slug": "meta", "name": "Meta", "name_ko": ["메타"], "links": ["javascript:x"]}
        ]
    }
    with pytest.raises(TaxonomyError) as refused:
        parse_taxonomy(json.dumps(bad))
    said = "\n".join(refused.value.problems)
    assert "organisations[0].name_ko: must be a string of one line" in said
    assert "organisations[0].links[0]:" in said


@pytest.mark.parametrize(
    ("document", "problem"),
    [
        (
            {"component": [{"slug": "dns", "label": {"en": "DNS"}, "former_slugs": "bind"}]},
            "component[0].former_slugs: must be a list of slugs",
        ),
        (
            {
                "component": [
                    {"slug": "dns", "label": {"en": "DNS"}, "former_slugs": ["cache"]},
                    {"slug": "cache", "label": {"en": "Cache"}},
                ]
            },
            "component: 'cache' is a former slug of 'dns' and a slug of its own",
        ),
        (
            {
                "organisations": [
                    {"slug": "meta", "name": "Meta", "former_slugs": ["facebook"]},
                    {"slug": "fb", "name": "FB", "former_slugs": ["facebook"]},
                ]
            },
            "organisations: 'facebook' is a former slug twice",
        ),
    ],
)
def test_former_slugs_lead_to_one_place(document, problem):
    with pytest.raises(TaxonomyError) as refused:
        parse_taxonomy(json.dumps(document))
    assert any(problem in text for text in refused.value.problems), refused.value.problems


def test_former_slugs_load_and_export(client):
    document = {
        "component": [{"slug": "dns", "label": {"en": "DNS"}, "former_slugs": ["name-service"]}],
        "organisations": [{"slug": "meta", "name": "Meta", "former_slugs": ["facebook"]}],
    }
    taxonomy = parse_taxonomy(json.dumps(document))
    load_taxonomy(
        taxonomy.terms,
        organisations=taxonomy.organisations,
        term_redirects=taxonomy.term_redirects,
        organisation_redirects=taxonomy.organisation_redirects,
    )
    exported = export_taxonomy()
    assert exported["component"][0]["former_slugs"] == ["name-service"]
    assert exported["organisations"][0]["former_slugs"] == ["facebook"]
