import datetime

import factory
from django.utils import timezone

from cases.models import Case, CaseStep, CaseTerm, Organisation, Source, Term, Vocabulary


class OrganisationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Organisation
        django_get_or_create = ["slug"]

    name = factory.Sequence(lambda n: f"Organisation {n}")
    slug = factory.Sequence(lambda n: f"organisation-{n}")


class TermFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Term
        django_get_or_create = ["vocabulary", "slug"]

    vocabulary = Vocabulary.COMPONENT
    slug = factory.Sequence(lambda n: f"term-{n}")
    label_en = factory.LazyAttribute(lambda term: Term.label_from_slug(term.slug))
    label_ko = factory.Sequence(lambda n: f"용어 {n}")


class CaseFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Case
        skip_postgeneration_save = True

    public_id = factory.Sequence(lambda n: f"IL-{n + 1:04d}")
    org = factory.SubFactory(OrganisationFactory)
    # A day each, never in the future (which the validator refuses), however many are made.
    date = factory.Sequence(lambda n: datetime.date(2000, 1, 1) + datetime.timedelta(days=n % 9000))
    title_en = factory.Sequence(lambda n: f"Case number {n} failed")
    title_ko = factory.Sequence(lambda n: f"사례 {n} 장애")
    summary_en = "Something failed."
    summary_ko = "무언가 실패했다."
    status = Case.Status.PUBLISHED
    published_at = factory.LazyFunction(timezone.now)

    @factory.post_generation
    def with_terms(case, create, terms, **kwargs):
        for position, term in enumerate(terms or []):
            CaseTerm.objects.create(case=case, term=term, position=position)


class SourceFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Source

    case = factory.SubFactory(CaseFactory)
    url = factory.Sequence(lambda n: f"https://example.org/postmortem/{n}")
    kind = "postmortem"


class CaseStepFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = CaseStep

    case = factory.SubFactory(CaseFactory)
    kind = CaseStep.Kind.REMEDIATION
    position = factory.Sequence(int)
    text_en = "Rolled back."
    text_ko = "되돌렸다."


class UserFactory(factory.django.DjangoModelFactory):
    """A staff account; `role` is "editor", "reviewer" or None (no group)."""

    class Meta:
        model = "auth.User"
        django_get_or_create = ["username"]
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    is_staff = True
    password = factory.django.Password("pw")

    @factory.post_generation
    def role(user, create, role, **kwargs):
        from cases.editorial.roles import ROLES, ensure_groups

        if role:
            # A flushed test database loses the groups the migration made; mend them.
            user.groups.add(ensure_groups()[ROLES[role]])
