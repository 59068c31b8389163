from django.contrib import admin
from modeltranslation.admin import TabbedTranslationAdmin, TranslationTabularInline

from .models import Case, CaseStep, Organisation, Source, Term


@admin.register(Organisation)
class OrganisationAdmin(admin.ModelAdmin):
    list_display = ["name", "slug"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}


@admin.register(Term)
class TermAdmin(TabbedTranslationAdmin):
    list_display = ["label", "slug", "vocabulary"]
    list_filter = ["vocabulary"]
    search_fields = ["slug", "label_en", "label_ko", "aliases_en", "aliases_ko"]


class SourceInline(admin.TabularInline):
    model = Source
    extra = 0


class CaseStepInline(TranslationTabularInline):
    model = CaseStep
    extra = 0


@admin.register(Case)
class CaseAdmin(TabbedTranslationAdmin):
    list_display = ["public_id", "title", "org", "date", "status"]
    list_filter = ["status", "severity", "org"]
    search_fields = ["public_id", "title_en", "title_ko"]
    autocomplete_fields = ["org", "root_cause", "recurrence_of"]
    inlines = [SourceInline, CaseStepInline]
