"""A catalogue imported as a new user would: English only, free-form categories, names
spelled several ways and an incident the library already has (#23). The catalogue is
tests/exchange/imported_catalogue; the library beside it is the bundled one."""

import io
import re

import pytest
from django.core.management import call_command

from cases.models import Case
from tests.exchange.test_bundled import CASES_DIR, TAXONOMY

pytestmark = pytest.mark.django_db
CATALOGUE = CASES_DIR.parents[1] / "tests" / "exchange" / "imported_catalogue"
FREE_FORM_LABELS = ("Outage", "Aws", "Github", "Us east 1", "Config change", "Security")


def run(*args):
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=out)
    return out.getvalue()


@pytest.fixture
def library():
    run("load_taxonomy", str(TAXONOMY))
    run("import_cases", str(CASES_DIR))


@pytest.fixture
def imported(library):
    return run("import_cases", str(CATALOGUE))


def facet_labels(html):
    """The labels of the list's facet values, as a reader sees them."""
    return set(re.findall(r'class="facet-label"[^>]*>([^<]+)<', html))


def test_the_catalogue_imports_whole_despite_two_spellings_of_one_organisation(imported):
    assert Case.objects.filter(public_id__startswith="IL-90").count() == 8
    cloudflare = Case.objects.filter(public_id__in=["IL-9005", "IL-9006"]).values("org__slug")
    assert {row["org__slug"] for row in cloudflare} == {"cloudflare"}
