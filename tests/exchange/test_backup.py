"""backup_library and restore_library: a restored backup gives back the same public site."""

import datetime
import io
import json

import pytest
from django.core.cache import cache
from django.core.management import CommandError, call_command
from django.utils import timezone

from cases.editorial import transitions as workflow
from cases.editorial.combining import case_combine
from cases.editorial.names import organisation_merge, term_merge
from cases.models import Case, CaseRelation, Organisation, Term, Vocabulary
from tests.factories import (
    CaseFactory,
    CaseStepFactory,
    OrganisationFactory,
    SourceFactory,
    TermFactory,
    UserFactory,
)
from tests.library import database_fingerprint, empty_the_library, public_site

pytestmark = pytest.mark.django_db
Status = Case.Status
NOW = timezone.now().replace(microsecond=123456)


def days_ago(days):
    return NOW - datetime.timedelta(days=days)


@pytest.fixture
def library():
    """Published, draft, in-review and withdrawn cases, a pending revision, related cases,
    terms relabelled as an editor does in the admin, and publication dates out of id order."""
    cause = TermFactory(vocabulary=Vocabulary.ROOT_CAUSE, slug="software-bug")
    dns = TermFactory(vocabulary=Vocabulary.COMPONENT, slug="dns")
    cache_term = TermFactory(vocabulary=Vocabulary.COMPONENT, slug="cache")
    outage = TermFactory(vocabulary=Vocabulary.SYMPTOM, slug="service-unavailable")
    TermFactory(vocabulary=Vocabulary.DOMAIN, slug="unused-domain")  # on no case at all
    dns.label_en, dns.label_ko = "Name resolution", "이름 해석"
    dns.description_en, dns.aliases_en = "Resolving names.", "CoreDNS\nresolver"
    dns.save()

    first = CaseFactory(
        public_id="IL-0001",
        published_at=days_ago(3),
        root_cause=cause,
        with_terms=[dns, outage],
        updated_at=days_ago(1),
    )
    second = CaseFactory(
        public_id="IL-0002", published_at=days_ago(30), with_terms=[cache_term, outage]
    )
    third = CaseFactory(
        public_id="IL-0003", published_at=days_ago(10), root_cause=cause, recurrence_of=second
    )
    CaseRelation.objects.create(from_case=first, to_case=second)
    SourceFactory(case=first)
    CaseStepFactory(case=third)
    CaseFactory(public_id="IL-0004", status=Status.DRAFT, published_at=None, with_terms=[dns])
    CaseFactory(public_id="IL-0005", status=Status.IN_REVIEW, published_at=None)
    CaseFactory(public_id="IL-0006", status=Status.WITHDRAWN, published_at=days_ago(60))
    copy = workflow.case_start_revision(case=first, user=UserFactory(role="editor"))
    copy.title_en = "A pending revision the public has not seen"
    copy.save()


def public_pages(client):
    """public_site (lists, facets, published cases, graph) plus what else a reader can reach:
    every case's page and JSON by status (410 withdrawn, 404 unpublished), feeds, sitemap."""
    site = public_site(client)
    cache.clear()
    public_ids = Case.objects.live().order_by("public_id").values_list("public_id", flat=True)
    for language in ("en", "ko"):
        for public_id in public_ids:
            for suffix in ("/", ".json"):
                response = client.get(f"/{language}/cases/{public_id}{suffix}")
                site[f"{language} {public_id}{suffix}"] = (
                    response.status_code,
                    response.content.decode(),
                )
        site[f"{language} feed"] = client.get(f"/{language}/feed.atom").content.decode()
    site["sitemap"] = client.get("/sitemap.xml").content.decode()
    return site


def utc(moment):
    return moment.isoformat().replace("+00:00", "Z")


def back_up(directory, *args):
    call_command("backup_library", str(directory), *args, stdout=io.StringIO())


def restore(directory):
    out, err = io.StringIO(), io.StringIO()
    call_command("restore_library", str(directory), stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def states(directory):
    return [json.loads(line) for line in (directory / "state.jsonl").read_text().splitlines()]


def assert_same_site(restored, original):
    assert restored.keys() == original.keys()
    for key in original:
        assert restored[key] == original[key], key


def test_a_restored_backup_gives_the_same_public_site(client, library, tmp_path):
    original = public_pages(client)
    assert original["en IL-0006/"][0] == 410 and original["en IL-0004/"][0] == 404
    assert original["ko IL-0005.json"][0] == 404
    assert "Name resolution" in original["en list"] and "이름 해석" in original["ko list"]
    assert original["en feed"].index("IL-0001") < original["en feed"].index("IL-0003")

    back_up(tmp_path / "backup")
    empty_the_library()
    assert not Case.objects.exists() and not Term.objects.exists()
    output, _ = restore(tmp_path / "backup")
    assert "Restored 6 case(s)" in output

    assert_same_site(public_pages(client), original)
    assert not Case.objects.exclude(draft_of=None).exists()  # pending revisions are left out
    assert Term.objects.filter(slug="unused-domain").exists()
    dns = Term.objects.get(slug="dns")
    assert (dns.description_en, dns.alias_list("en")) == (
        "Resolving names.",
        ["CoreDNS", "resolver"],
    )


def test_organisations_and_their_aliases_come_back_from_a_backup(library, tmp_path):
    org = Case.objects.live().get(public_id="IL-0001").org
    org.aliases_en, org.aliases_ko = "Facebook\nMeta Platforms", "메타\n페이스북"
    org.name_ko, org.links = "허깅페이스", ["https://huggingface.co/"]
    org.save()
    OrganisationFactory(slug="kakao", name="Kakao", aliases_ko="카카오")  # on no case
    back_up(tmp_path / "backup")
    taxonomy = json.loads((tmp_path / "backup" / "taxonomy.json").read_text())
    assert {
        "slug": org.slug,
        "name": org.name,
        "name_ko": "허깅페이스",
        "aliases": {"en": ["Facebook", "Meta Platforms"], "ko": ["메타", "페이스북"]},
        "links": ["https://huggingface.co/"],
    } in taxonomy["organisations"]
    kakao = {"en": [], "ko": ["카카오"]}
    assert {"slug": "kakao", "name": "Kakao", "name_ko": "", "aliases": kakao, "links": []} in (
        taxonomy["organisations"]
    )

    empty_the_library()
    restore(tmp_path / "backup")

    restored = Organisation.objects.get(slug=org.slug)
    assert restored.name == org.name
    assert restored.alias_list("en") == ["Facebook", "Meta Platforms"]
    assert restored.alias_list("ko") == ["메타", "페이스북"]
    assert (restored.name_ko, restored.links) == ("허깅페이스", ["https://huggingface.co/"])
    assert Organisation.objects.get(slug="kakao").alias_list("ko") == ["카카오"]


def test_a_restore_puts_back_the_aliases_an_editor_changed_since(library, tmp_path):
    org = Case.objects.live().get(public_id="IL-0001").org
    org.name, org.aliases_ko = "Meta", "메타"
    org.save()
    back_up(tmp_path / "backup")
    Organisation.objects.filter(pk=org.pk).update(aliases_ko="페북", name="Renamed")
    restore(tmp_path / "backup")
    org.refresh_from_db()
    assert (org.name, org.alias_list("ko")) == ("Meta", ["메타"])


def test_the_backup_holds_each_file(library, tmp_path):
    back_up(tmp_path / "backup")
    call_command("export_cases", "--output", str(tmp_path / "export.jsonl"), stderr=io.StringIO())
    backup = tmp_path / "backup"
    assert sorted(path.name for path in backup.iterdir()) == [
        "cases.jsonl",
        "state.jsonl",
        "taxonomy.json",
    ]
    assert (backup / "cases.jsonl").read_bytes() == (tmp_path / "export.jsonl").read_bytes()
    assert states(backup)[:2] == [
        {"id": "IL-0001", "status": "published", "published_at": utc(days_ago(3))},
        {"id": "IL-0002", "status": "published", "published_at": utc(days_ago(30))},
    ]
    assert [state["status"] for state in states(backup)[2:]] == [
        "published",
        "draft",
        "in_review",
        "withdrawn",
    ]
    taxonomy = json.loads((backup / "taxonomy.json").read_text())
    assert {"slug": "dns"}.items() <= taxonomy["component"][1].items()
    assert taxonomy["component"][1]["label"] == {"en": "Name resolution", "ko": "이름 해석"}


def test_a_backup_does_not_overwrite_a_directory_unless_forced(library, tmp_path):
    (tmp_path / "notes.txt").write_text("keep me")
    with pytest.raises(CommandError, match="not empty"):
        back_up(tmp_path)
    assert [path.name for path in tmp_path.iterdir()] == ["notes.txt"]
    back_up(tmp_path, "--force")
    assert len(states(tmp_path)) == 6


def test_a_restore_over_the_library_puts_back_the_backed_up_state(client, library, tmp_path):
    original = public_pages(client)
    back_up(tmp_path / "backup")
    Case.objects.filter(public_id="IL-0004").update(status=Status.PUBLISHED, published_at=NOW)
    Case.objects.filter(public_id="IL-0001").update(status=Status.WITHDRAWN, title_en="Edited")
    Case.objects.filter(public_id="IL-0002").update(published_at=NOW)
    Term.objects.filter(slug="dns").update(label_en="Renamed again")

    restore(tmp_path / "backup")

    assert_same_site(public_pages(client), original)


def test_a_case_merged_into_another_still_leads_there_after_a_restore(client, library, tmp_path):
    reviewer = UserFactory(username="rita", role="reviewer")
    duplicate = CaseFactory(public_id="IL-0007", published_at=days_ago(2))
    case_combine(absorbed=duplicate, survivor=Case.objects.get(public_id="IL-0002"), user=reviewer)
    original = public_pages(client)
    assert original["ko IL-0007/"][0] == 301
    back_up(tmp_path / "backup")
    assert states(tmp_path / "backup")[-1]["merged_into"] == "IL-0002"
    empty_the_library()
    restore(tmp_path / "backup")
    assert_same_site(public_pages(client), original)
    assert client.get("/ko/cases/IL-0007/")["Location"] == "/ko/cases/IL-0002/"


def state(public_id, status, published_at=None, **more):
    return json.dumps({"id": public_id, "status": status, "published_at": published_at, **more})


# name: (line number to replace, or the next one to add a line; the line; the problem)
BAD_STATES = {
    "unknown id": (7, state("IL-9999", "draft"), "IL-9999 is not in cases.jsonl"),
    "twice": (7, state("IL-0001", "draft"), "IL-0001 appears twice (first on line 1)"),
    "bad status": (4, state("IL-0004", "live"), "status: 'live' is not one of draft,"),
    "bad datetime": (
        2,
        state("IL-0002", "published", "2024-13-01T00:00:00Z"),
        "published_at: '2024-13-01T00:00:00Z' is not an ISO 8601 date and time",
    ),
    "no time zone": (
        2,
        state("IL-0002", "published", "2024-01-01T00:00:00"),
        "published_at: '2024-01-01T00:00:00' is not an ISO 8601 date and time with a time zone",
    ),
    "published undated": (
        2,
        state("IL-0002", "published"),
        "published_at: a published case needs its publication date",
    ),
    "unknown field": (2, state("IL-0002", "draft", x=1), "x: unknown field"),
    "not json": (7, "{oops", "invalid JSON"),
    "merged into an unknown case": (
        6,
        state("IL-0006", "withdrawn", "2024-01-01T00:00:00Z", merged_into="IL-9999"),
        "merged_into: IL-9999 is not in cases.jsonl",
    ),
    "merged yet published": (
        2,
        state("IL-0002", "published", "2024-01-01T00:00:00Z", merged_into="IL-0001"),
        "merged_into: only a withdrawn case was merged into another",
    ),
    "merged into itself": (
        6,
        state("IL-0006", "withdrawn", None, merged_into="IL-0006"),
        "merged_into: 'IL-0006' is not another case's id",
    ),
}


@pytest.mark.parametrize("into", ["the library", "an empty database"])
@pytest.mark.parametrize("name", BAD_STATES)
def test_a_bad_state_file_restores_nothing(library, tmp_path, name, into):
    number, line, problem = BAD_STATES[name]
    backup = tmp_path / "backup"
    back_up(backup)
    lines = (backup / "state.jsonl").read_text().splitlines()
    lines[number - 1 : number] = [line]
    (backup / "state.jsonl").write_text("\n".join(lines) + "\n")
    if into == "an empty database":
        empty_the_library()
    before = database_fingerprint()

    errors = io.StringIO()
    with pytest.raises(CommandError, match="Nothing was restored: 1 problem"):
        call_command("restore_library", str(backup), stdout=io.StringIO(), stderr=errors)
    assert errors.getvalue().startswith(f"{backup / 'state.jsonl'}: line {number}: {problem}")
    assert database_fingerprint() == before


def test_a_restore_names_every_bad_line_and_every_case_without_a_state(library, tmp_path):
    backup = tmp_path / "backup"
    back_up(backup)
    lines = (backup / "state.jsonl").read_text().splitlines()
    lines[2] = '{"id": "IL-0003", "status": "gone", "published_at": null}'
    del lines[4]
    (backup / "state.jsonl").write_text("\n".join(lines) + "\n")
    errors = io.StringIO()
    with pytest.raises(CommandError, match="2 problem"):
        call_command("restore_library", str(backup), stdout=io.StringIO(), stderr=errors)
    assert errors.getvalue().splitlines() == [
        f"{backup / 'state.jsonl'}: line 3: status: 'gone' is not one of draft, in_review, "
        "changes_requested, published, withdrawn",
        f"{backup / 'state.jsonl'}: IL-0005 has no line",
    ]


def test_a_restore_reports_the_taxonomy_and_the_states_together(library, tmp_path):
    backup = tmp_path / "backup"
    back_up(backup)
    (backup / "taxonomy.json").write_text('{"colour": []}')
    (backup / "state.jsonl").write_text("")
    errors = io.StringIO()
    with pytest.raises(CommandError, match="Nothing was restored: 7 problem"):
        call_command("restore_library", str(backup), stdout=io.StringIO(), stderr=errors)
    assert errors.getvalue().splitlines()[:2] == [
        f"{backup / 'taxonomy.json'}: colour: unknown vocabulary",
        f"{backup / 'state.jsonl'}: IL-0001 has no line",
    ]


def test_a_restore_with_a_bad_case_restores_nothing(library, tmp_path):
    backup = tmp_path / "backup"
    back_up(backup)
    cases = (backup / "cases.jsonl").read_text().splitlines()
    cases[5] = cases[5].replace('"severity": "unknown"', '"severity": "dire"')
    (backup / "cases.jsonl").write_text("\n".join(cases) + "\n")
    Term.objects.filter(slug="dns").update(label_en="Changed since the backup")
    before = database_fingerprint()
    with pytest.raises(CommandError, match="Nothing was restored: 1 problem"):
        restore(backup)
    assert database_fingerprint() == before  # the taxonomy, loaded first, is undone too


def test_merged_terms_and_organisations_old_slugs_still_lead_on_after_a_restore(
    client, library, tmp_path
):
    cache_term, dns = Term.objects.get(slug="cache"), Term.objects.get(slug="dns")
    term_merge(survivor=dns, others=[cache_term])
    first, second = (Case.objects.live().get(public_id=id) for id in ("IL-0001", "IL-0002"))
    organisation_merge(survivor=first.org, others=[second.org])
    old_org = second.org.slug
    back_up(tmp_path / "backup")
    empty_the_library()
    restore(tmp_path / "backup")
    term_page = client.get("/en/cases/", {"component": "cache"})
    assert term_page.status_code == 301 and "component=dns" in term_page["Location"]
    org_page = client.get(f"/en/organisations/{old_org}/")
    assert org_page.status_code == 301
    assert org_page["Location"].endswith(f"/en/organisations/{first.org.slug}/")
