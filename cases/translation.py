from modeltranslation.translator import TranslationOptions, register

from .models import Case, CaseStep, Organisation, Term


@register(Term)
class TermTranslationOptions(TranslationOptions):
    fields = ("label", "description", "aliases", "question")


@register(Organisation)
class OrganisationTranslationOptions(TranslationOptions):
    fields = ("aliases",)


@register(Case)
class CaseTranslationOptions(TranslationOptions):
    fields = (
        "title",
        "summary",
        "trigger",
        "detection",
        "lessons",
        "symptoms_text",
        "impact_scope",
        "impact_users",
        "impact_region",
    )


@register(CaseStep)
class CaseStepTranslationOptions(TranslationOptions):
    fields = ("text",)
