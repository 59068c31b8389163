"""The case form as an editor fills it: a proposed id, durations typed as people write
them, documentation links one to an input with each problem beside its link, and sections
that fold except where a problem is."""

import datetime

import pytest
from django.http import QueryDict
from django.urls import reverse

from cases.admin.forms import LinkListField
from cases.editorial.ids import propose_case_id
from cases.exchange.serialize import case_to_exchange
from cases.models import Case, CaseTransition, CaseVersion
from tests.admin_forms import add_inline_row, change_form_data, form_errors
from tests.factories import CaseFactory, OrganisationFactory, SourceFactory, UserFactory

pytestmark = pytest.mark.django_db
ADD_URL = reverse("admin:cases_case_add")


@pytest.fixture
def editor(client):
    user = UserFactory(username="eddie", role="editor")
    client.force_login(user)
    return user


def change_url(case):
    return reverse("admin:cases_case_change", args=[case.pk])


def new_case_data(page, organisation, **changes):
    """A new case's POST data: what the add form showed, with a case's fields filled."""
    return change_form_data(
        page,
        org=str(organisation.pk),
        date="2025-03-01",
        title_en="Queue backlog stalled deploys",
        title_ko="큐 적체로 배포가 멈췄다",
        **changes,
    )


# --- the proposed id ----------------------------------------------------------------


def test_an_empty_library_proposes_il_0001():
    assert propose_case_id() == "IL-0001"


def test_the_id_after_the_highest_is_proposed():
    for public_id in ("IL-0003", "IL-1015", "IL-0999"):
        CaseFactory(public_id=public_id)
    assert propose_case_id() == "IL-1016"


def test_ids_are_compared_as_numbers_not_as_text():
    CaseFactory(public_id="IL-9999")
    CaseFactory(public_id="IL-10000")
    assert propose_case_id() == "IL-10001"


def test_a_pending_revisions_copy_counts():
    live = CaseFactory(public_id="IL-0005")
    CaseFactory(public_id="IL-2000", draft_of=live, status=Case.Status.DRAFT)
    assert propose_case_id() == "IL-2001"


def test_a_deleted_cases_id_is_passed_over_and_oddities_are_ignored():
    # A deleted case's history is kept under its id: a new case must not take it over.
    CaseFactory(public_id="IL-0010")
    for public_id in ("IL-0011", "IL-0012", "IL-0013x", "IL-0013 ", "il-0013", "IL-13"):
        CaseVersion.objects.create(public_id=public_id, number=1, data={})
    assert propose_case_id() == "IL-0013"
    CaseTransition.objects.create(public_id="IL-0013", from_status="draft", to_status="in_review")
    assert propose_case_id() == "IL-0014"


def test_a_long_run_of_deleted_ids_is_passed_over():
    for number in range(1, 46):
        CaseVersion.objects.create(public_id=f"IL-{number:04d}", number=1, data={})
    assert propose_case_id() == "IL-0046"


def test_the_add_form_offers_the_proposed_id(client, editor):
    CaseFactory(public_id="IL-1015")
    response = client.get(ADD_URL)
    assert response.context["adminform"].form["public_id"].value() == "IL-1016"
    assert 'value="IL-1016"' in response.content.decode()


def test_two_editors_offered_one_id_the_second_is_told_and_keeps_the_text(client, editor):
    organisation = OrganisationFactory()
    CaseFactory(public_id="IL-1015")
    first_page, second_page = client.get(ADD_URL), client.get(ADD_URL)
    assert client.post(ADD_URL, new_case_data(first_page, organisation)).status_code == 302
    response = client.post(
        ADD_URL, new_case_data(second_page, organisation, summary_en="My own summary.")
    )
    assert response.status_code == 200
    assert form_errors(response)["public_id"] == ["Another case already has this id."]
    html = response.content.decode()
    assert "My own summary." in html and 'value="IL-1016"' in html
    assert Case.objects.filter(public_id="IL-1016").count() == 1


# --- durations ------------------------------------------------------------------------


def test_durations_typed_as_people_write_them_are_saved_and_exported_in_iso(client, editor):
    organisation = OrganisationFactory()
    data = new_case_data(
        client.get(ADD_URL), organisation, detected_after="3h 15m", resolved_after="PT45M"
    )
    assert client.post(ADD_URL, data).status_code == 302
    case = Case.objects.get(public_id="IL-0001")
    assert case.detected_after == datetime.timedelta(hours=3, minutes=15)
    exchange = case_to_exchange(Case.objects.for_exchange().get(pk=case.pk))
    assert exchange["timeline"] == {"detected_after": "PT3H15M", "resolved_after": "PT45M"}
    form = client.get(change_url(case)).context["adminform"].form
    assert (form["detected_after"].value(), form["resolved_after"].value()) == ("3h 15m", "45m")


def test_a_duration_that_is_none_is_named_and_kept(client, editor):
    case = CaseFactory(created_by=editor, status=Case.Status.DRAFT, published_at=None)
    data = change_form_data(client.get(change_url(case)), detected_after="3 hours-ish")
    response = client.post(change_url(case), data)
    assert form_errors(response)["detected_after"] == [
        "'3 hours-ish' is not a duration such as 3h 15m, PT3H15M or 03:15:00"
    ]
    assert 'value="3 hours-ish"' in response.content.decode()


# --- documentation links -----------------------------------------------------------------


def test_the_links_field_reads_the_inputs_in_order_without_the_empty_ones():
    field = LinkListField(required=False)
    data = QueryDict(mutable=True)
    data.setlist("docs", ["https://b.example/", "", "  https://a.example/ ", ""])
    value = field.widget.value_from_datadict(data, {}, "docs")
    assert field.clean(value) == ["https://b.example/", "https://a.example/"]
    assert field.clean(field.widget.value_from_datadict(QueryDict(), {}, "docs")) == []


def test_the_links_widget_shows_each_link_and_spare_inputs():
    html = LinkListField().widget.render("docs", ["https://a.example/", "https://b.example/"])
    assert html.count('type="url"') == 4  # two links and two empty inputs, for no script
    assert html.index("https://a.example/") < html.index("https://b.example/")
    assert 'name="docs"' in html and 'value=""' in html


def test_links_are_saved_in_their_order(client, editor):
    case = CaseFactory(created_by=editor, status=Case.Status.DRAFT, published_at=None)
    data = change_form_data(client.get(change_url(case)))
    data["docs"] = ["https://b.example/doc", "", "https://a.example/doc"]
    assert client.post(change_url(case), data).status_code == 302
    case.refresh_from_db()
    assert case.docs == ["https://b.example/doc", "https://a.example/doc"]
    html = client.get(change_url(case)).content.decode()
    assert 'value="https://b.example/doc"' in html


def test_each_bad_link_is_named_beside_its_input(client, editor):
    case = CaseFactory(created_by=editor, status=Case.Status.DRAFT, published_at=None)
    data = change_form_data(client.get(change_url(case)))
    data["docs"] = ["https://ok.example/", "", "javascript:alert(1)", "https://a b/", ""]
    response = client.post(change_url(case), data)
    assert response.status_code == 200
    assert form_errors(response)["docs"] == [
        "link 2: only http and https links are allowed",
        "link 3: 'https://a b/' is not a valid link",
    ]
    widget = response.context["adminform"].form["docs"]
    html = str(widget)
    second = html.index('value="javascript:alert(1)"')
    third = html.index('value="https://a b/"')
    message = html.index("only http and https links are allowed")
    assert second < message < third  # beside the second link, before the third
    assert html.count('aria-invalid="true"') == 2
    case.refresh_from_db()
    assert case.docs == []


# --- sections that fold ----------------------------------------------------------------


def fieldsets(response):
    return {str(fieldset.name): fieldset for fieldset in response.context["adminform"]}


def inline(response, prefix):
    (found,) = [i for i in response.context["inline_admin_formsets"] if i.formset.prefix == prefix]
    return found


def test_sections_fold_and_open_where_a_problem_is(client, editor):
    case = CaseFactory(created_by=editor, status=Case.Status.DRAFT, published_at=None)
    page = client.get(change_url(case))
    assert fieldsets(page)["Cause and impact"].is_collapsible
    assert inline(page, "outgoing_relations").is_collapsible
    data = change_form_data(page, impact_users_ko="u" * 5_001)
    add_inline_row(data, "outgoing_relations", to_case=case.pk, position=0)
    response = client.post(change_url(case), data)
    assert "impact_users_ko" in form_errors(response)
    assert not fieldsets(response)["Cause and impact"].is_collapsible
    assert fieldsets(response)["Links and provenance"].is_collapsible
    assert not inline(response, "outgoing_relations").is_collapsible


def starts_open(section):
    return section.is_collapsible and "start-open" in section.classes


def test_a_new_case_opens_its_story_and_folds_the_rest(client, editor):
    page = client.get(ADD_URL)
    sections = fieldsets(page)
    assert "Review" not in sections  # a new case has no review metadata
    assert starts_open(sections["Story (English | Korean)"])
    for name in ("Cause and impact", "Links and provenance"):
        assert sections[name].is_collapsible and not starts_open(sections[name]), name
    for group in page.context["inline_admin_formsets"]:
        assert group.is_collapsible and "start-open" not in group.classes


def test_sections_holding_something_start_open(client, editor):
    case = CaseFactory(
        created_by=editor,
        status=Case.Status.DRAFT,
        published_at=None,
        docs=["https://example.org/doc"],
    )
    SourceFactory(case=case)
    page = client.get(change_url(case))
    sections = fieldsets(page)
    assert starts_open(sections["Links and provenance"])
    assert not starts_open(sections["Cause and impact"])  # nothing in it yet
    assert not starts_open(sections["Review"])  # shown only, never open by itself
    assert "start-open" in inline(page, "sources").classes
    assert "start-open" not in inline(page, "steps").classes


def test_impact_values_get_short_inputs(client, editor):
    form = client.get(ADD_URL).context["adminform"].form
    for name in ("impact_scope_en", "impact_users_ko", "impact_region_en"):
        assert int(form.fields[name].widget.attrs["rows"]) <= 2, name
    assert int(form.fields["summary_en"].widget.attrs["rows"]) <= 4
