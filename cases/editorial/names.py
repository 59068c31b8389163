"""Public names: organisations' names and slugs, terms' labels, descriptions and aliases.

They show on every public page of every case that uses them, so they are changed only by
reviewers once the public sees them. (Not through review: a name has no pending revision
of its own, and a queue for each label would hold up the cases that wait for it. Every
change is in the admin's log.) An editor may still name what only drafts use, such as a
term or an organisation they have just added for their own case.

Saving or merging refreshes the search text of the cases that use the name, since search
matches names, and bumps the public content's version when the public can see them.
"""

from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext as _

from cases.caching import public_content_changed
from cases.exchange.taxonomy import TaxonomyError
from cases.models import (
    Case,
    CaseTerm,
    Organisation,
    OrganisationRedirect,
    Term,
    TermRedirect,
)
from cases.rules import LANGUAGES
from cases.search.text import refresh_search_text

from .rights import WorkflowError, is_reviewer


def cases_named_by(obj):
    """The cases (every status) whose pages show this organisation or term."""
    if isinstance(obj, Organisation):
        return Case.objects.filter(org=obj)
    return Case.objects.filter(Q(case_terms__term=obj) | Q(root_cause=obj)).distinct()


def is_public_name(obj):
    """Whether the public sees the organisation or term (models: Term.objects.public())."""
    return obj.pk is not None and type(obj).objects.public().filter(pk=obj.pk).exists()


def may_change_name(user, obj):
    return is_reviewer(user) or not is_public_name(obj)


@transaction.atomic
def name_save(*, obj, user):
    """Save an organisation or a term as `user` has changed it. A term held for review
    stays so unless a reviewer marks it reviewed (term_accept says why)."""
    public = False
    if obj.pk is not None:
        stored = type(obj).objects.select_for_update().get(pk=obj.pk)
        public = is_public_name(stored)  # a new name has no cases: nobody sees it yet
        if public and not is_reviewer(user):
            raise WorkflowError(_("Only a reviewer may change a name the public sees."))
        accepting = isinstance(obj, Term) and obj.reviewed and not stored.reviewed
        if accepting and not is_reviewer(user):
            raise WorkflowError(_("Only a reviewer may accept a term."))
    obj.save()
    refresh_search_text(cases_named_by(obj))
    if public or is_public_name(obj):  # seen before, or from now on (an accepted term)
        public_content_changed()
    return obj


@transaction.atomic
def term_accept(*, terms, user):
    """Accept terms an import held for review as they are labelled now: from now on the
    public sees them on the cases that have them, in the facets, filters and graph. A
    reviewer's decision, as every change of a name the public sees is. Returns the terms
    accepted (those of `terms` still waiting)."""
    if not is_reviewer(user):
        raise WorkflowError(_("Only a reviewer may accept a term."))
    waiting = list(
        Term.objects.select_for_update().filter(pk__in=[t.pk for t in terms], reviewed=False)
    )
    if waiting:
        Term.objects.filter(pk__in=[t.pk for t in waiting]).update(reviewed=True)
        public_content_changed()  # every list, facet and case page that has them
    return waiting


@transaction.atomic
def name_delete(*, obj, user):
    if not user.is_superuser:
        raise WorkflowError(_("Only a superuser may delete a name."))
    public = is_public_name(obj)
    obj.delete()
    if public:
        public_content_changed()


@transaction.atomic
def term_merge(*, survivor, others):
    """Merge terms into `survivor`: their cases move to it, their labels become its aliases,
    and their slugs redirect to it. Returns how many cases changed."""
    others = [term for term in others if term.pk != survivor.pk]
    if not others:
        raise TaxonomyError([_("Choose at least one other term to merge.")])
    if any(term.vocabulary != survivor.vocabulary for term in others):
        raise TaxonomyError([_("Only terms of one vocabulary can be merged.")])
    other_ids = [term.pk for term in others]
    affected = set(CaseTerm.objects.filter(term__in=other_ids).values_list("case_id", flat=True))
    affected |= set(Case.objects.filter(root_cause__in=other_ids).values_list("pk", flat=True))

    # A case that has the survivor, or several merged terms, keeps one link at its first place.
    has_survivor = set(CaseTerm.objects.filter(term=survivor).values_list("case_id", flat=True))
    seen = set(has_survivor)
    for link in CaseTerm.objects.filter(term__in=other_ids).order_by("case_id", "position"):
        if link.case_id in seen:
            link.delete()
        else:
            link.term = survivor
            link.save(update_fields=["term"])
            seen.add(link.case_id)
    Case.objects.filter(root_cause__in=other_ids).update(root_cause=survivor)

    own_names = {survivor.label_en, survivor.label_ko}
    for language in LANGUAGES:
        aliases = merged_aliases(survivor, others, language, own_names, name_of=term_label)
        setattr(survivor, f"aliases_{language}", aliases)
    # The name a reviewer chose to keep is reviewed, even one an import held.
    survivor.reviewed = True
    survivor.save()

    TermRedirect.objects.filter(term__in=other_ids).update(term=survivor)
    TermRedirect.objects.bulk_create(
        TermRedirect(vocabulary=term.vocabulary, old_slug=term.slug, term=survivor)
        for term in others
    )
    Term.objects.filter(pk__in=other_ids).delete()
    refresh_search_text(Case.objects.filter(pk__in=affected))
    public_content_changed()
    return len(affected)


def term_label(term, language):
    return getattr(term, f"label_{language}") or ""


def organisation_name(org, language):
    return org.name if language == "en" else org.name_ko


def merged_aliases(survivor, others, language, own_names, *, name_of):
    """The survivor's aliases in `language` with the others' names (`name_of`) and aliases
    added: none twice, none that is one of the survivor's own names (`own_names`)."""
    aliases = survivor.alias_list(language)
    for other in others:
        for name in [name_of(other, language), *other.alias_list(language)]:
            if name and name not in aliases and name not in own_names:
                aliases.append(name)
    return "\n".join(aliases)


@transaction.atomic
def organisation_merge(*, survivor, others):
    """Merge organisations into `survivor`, as terms are merged: their cases (every status,
    pending revisions too) move to it, their names and aliases become its aliases, and their
    slugs redirect to it, on the public site and for imports. Returns how many cases moved."""
    others = [org for org in others if org.pk != survivor.pk]
    if not others:
        raise TaxonomyError([_("Choose at least one other organisation to merge.")])
    other_ids = [org.pk for org in others]
    moved = list(Case.objects.filter(org__in=other_ids).values_list("pk", flat=True))
    # Changed cases' search entries follow their new organisation (a trigger on `org`).
    Case.objects.filter(pk__in=moved).update(org=survivor)

    survivor = Organisation.objects.select_for_update().get(pk=survivor.pk)
    if not survivor.name_ko:
        survivor.name_ko = next((org.name_ko for org in others if org.name_ko), "")
    own_names = {survivor.name, survivor.name_ko}
    for language in LANGUAGES:
        setattr(
            survivor,
            f"aliases_{language}",
            merged_aliases(survivor, others, language, own_names, name_of=organisation_name),
        )
    links = [*survivor.links, *(link for org in others for link in org.links)]
    survivor.links = list(dict.fromkeys(links))
    survivor.save()

    OrganisationRedirect.objects.filter(organisation__in=other_ids).update(organisation=survivor)
    OrganisationRedirect.objects.bulk_create(
        OrganisationRedirect(old_slug=org.slug, old_name=org.name, organisation=survivor)
        for org in others
    )
    Organisation.objects.filter(pk__in=other_ids).delete()
    refresh_search_text(Case.objects.filter(pk__in=moved))
    public_content_changed()
    return len(moved)
