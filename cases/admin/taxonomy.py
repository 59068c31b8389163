"""Organisations and the taxonomy: labels, aliases, case counts, merging terms. Every write
goes through cases.editorial.names, which says who may change a name the public sees."""

from django import forms
from django.contrib import admin, messages
from django.db.models import Count
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from modeltranslation.admin import TranslationAdmin

from cases.editorial.names import (
    may_change_name,
    name_delete,
    name_save,
    organisation_merge,
    term_accept,
    term_merge,
)
from cases.editorial.rights import is_reviewer
from cases.exchange.taxonomy import TaxonomyError
from cases.models import Organisation, Term


class PublicNameAdmin:
    """Names and labels show on public pages: reviewers change those the public sees."""

    def has_change_permission(self, request, obj=None):
        if not super().has_change_permission(request, obj):
            return False
        return obj is None or may_change_name(request.user, obj)

    def save_model(self, request, obj, form, change):
        name_save(obj=obj, user=request.user)

    def delete_model(self, request, obj):
        name_delete(obj=obj, user=request.user)


class LinkLinesField(forms.Field):
    """A list of links, one a line; whether each is a link is the model's validator's to say."""

    widget = forms.Textarea(attrs={"rows": 3, "spellcheck": "false"})

    def __init__(self, *, encoder=None, decoder=None, **kwargs):
        # The model's JSONField offers these, which lines of text do not need.
        super().__init__(**kwargs)

    def prepare_value(self, value):
        return "\n".join(value) if isinstance(value, list) else value

    def to_python(self, value):
        return [line.strip() for line in str(value or "").splitlines() if line.strip()]

    def has_changed(self, initial, data):
        return self.to_python(data) != list(initial or [])


class OrganisationForm(forms.ModelForm):
    class Meta:
        model = Organisation
        fields = ["name", "name_ko", "slug", "aliases_en", "aliases_ko", "links"]
        field_classes = {"links": LinkLinesField}
        help_texts = {
            "links": gettext_lazy(
                "One address a line: its website, Wikipedia article or status page (http or https)."
            )
        }


@admin.register(Organisation)
class OrganisationAdmin(PublicNameAdmin, TranslationAdmin):
    form = OrganisationForm
    fields = ["name", "name_ko", "slug", "aliases", "links"]
    list_display = ["name", "name_ko", "slug", "case_count"]
    # Aliases too: an editor looking for Meta may type 페이스북 (so may the case form's picker).
    search_fields = ["name", "name_ko", "slug", "aliases_en", "aliases_ko"]
    prepopulated_fields = {"slug": ["name"]}
    actions = ["merge_organisations"]

    def get_queryset(self, request):
        # An aggregate drops Meta.ordering; autocomplete pages need an order.
        return super().get_queryset(request).annotate(case_count=Count("cases")).order_by("name")

    @admin.display(description=gettext_lazy("cases"), ordering="case_count")
    def case_count(self, org):
        return org.case_count

    def has_merge_permission(self, request):
        return request.user.has_perm("cases.merge_organisation")

    @admin.action(
        description=gettext_lazy("Merge selected organisations into one"), permissions=["merge"]
    )
    def merge_organisations(self, request, queryset):
        organisations = list(queryset.order_by("name"))
        if len(organisations) < 2:
            self.message_user(
                request, _("Choose two or more organisations to merge."), messages.ERROR
            )
            return None
        survivor_pk = request.POST.get("survivor")
        if not survivor_pk:
            return TemplateResponse(
                request,
                "admin/cases/organisation/merge.html",
                {
                    **self.admin_site.each_context(request),
                    "opts": self.opts,
                    "title": _("Merge organisations"),
                    "organisations": organisations,
                    "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
                },
            )
        survivor = next((org for org in organisations if str(org.pk) == survivor_pk), None)
        if survivor is None:
            self.message_user(request, _("Choose the organisation to keep."), messages.ERROR)
            return None
        others = [org for org in organisations if org != survivor]
        try:
            moved = organisation_merge(survivor=survivor, others=others)
        except TaxonomyError as error:
            self.message_user(request, str(error), messages.ERROR)
            return None
        # The record of the merge: who, when, which slugs now lead to the survivor.
        self.log_change(
            request,
            survivor,
            _("Merged %(others)s into it; %(count)s case(s) moved.")
            % {"others": ", ".join(f"{org.name} ({org.slug})" for org in others), "count": moved},
        )
        self.message_user(
            request,
            _("Merged into “%(name)s”; %(count)s case(s) moved. The old slugs redirect.")
            % {"name": survivor.name, "count": moved},
            messages.SUCCESS,
        )
        return None


@admin.register(Term)
class TermAdmin(PublicNameAdmin, TranslationAdmin):
    list_display = ["label", "slug", "vocabulary", "reviewed", "case_count"]
    # "Reviewed: No" lists the terms imports hold until a reviewer accepts or merges them.
    list_filter = ["reviewed", "vocabulary"]
    search_fields = ["slug", "label_en", "label_ko", "aliases_en", "aliases_ko"]
    ordering = ["vocabulary", "slug"]
    actions = ["accept_terms", "merge_terms"]

    def get_readonly_fields(self, request, obj=None):
        # Only a term still held for review has the box, and only a reviewer ticks it: a
        # form never unticks one (a reviewed term leaves the public by a merge or deletion).
        fields = list(super().get_readonly_fields(request, obj))
        if obj is None or obj.reviewed or not is_reviewer(request.user):
            fields.append("reviewed")
        return fields

    def changelist_view(self, request, extra_context=None):
        extra_context = {
            "unreviewed_count": Term.objects.unreviewed().count(),
            **(extra_context or {}),
        }
        return super().changelist_view(request, extra_context)

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(
                case_count=Count("case_terms", distinct=True) + Count("caused_cases", distinct=True)
            )
        )

    @admin.display(description=gettext_lazy("cases"), ordering="case_count")
    def case_count(self, term):
        return term.case_count

    def has_delete_permission(self, request, obj=None):
        return request.user.is_superuser

    def has_merge_permission(self, request):
        return request.user.has_perm("cases.merge_term")

    def has_accept_permission(self, request):
        return is_reviewer(request.user)

    @admin.action(
        description=gettext_lazy("Accept selected terms: show them on the public pages"),
        permissions=["accept"],
    )
    def accept_terms(self, request, queryset):
        accepted = term_accept(terms=list(queryset), user=request.user)
        for term in accepted:
            self.log_change(request, term, [{"changed": {"fields": ["reviewed"]}}])
        self.message_user(
            request,
            ngettext(
                "%(count)s term accepted: the public sees it from now on.",
                "%(count)s terms accepted: the public sees them from now on.",
                len(accepted),
            )
            % {"count": len(accepted)},
            messages.SUCCESS if accepted else messages.WARNING,
        )

    @admin.action(description=gettext_lazy("Merge selected terms into one"), permissions=["merge"])
    def merge_terms(self, request, queryset):
        terms = list(queryset.order_by("vocabulary", "slug"))
        if len({term.vocabulary for term in terms}) != 1 or len(terms) < 2:
            self.message_user(
                request, _("Choose two or more terms of one vocabulary to merge."), messages.ERROR
            )
            return None
        survivor_pk = request.POST.get("survivor")
        if survivor_pk:
            survivor = next((t for t in terms if str(t.pk) == survivor_pk), None)
            if survivor is None:
                self.message_user(request, _("Choose the term to keep."), messages.ERROR)
                return None
            try:
                moved = term_merge(survivor=survivor, others=[t for t in terms if t != survivor])
            except TaxonomyError as error:
                self.message_user(request, str(error), messages.ERROR)
                return None
            self.message_user(
                request,
                _("Merged into “%(label)s”; %(count)s case(s) moved. The old slugs redirect.")
                % {"label": survivor.label, "count": moved},
                messages.SUCCESS,
            )
            return None
        return TemplateResponse(
            request,
            "admin/cases/term/merge.html",
            {
                **self.admin_site.each_context(request),
                "opts": self.opts,
                "title": _("Merge terms"),
                "terms": terms,
                "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
            },
        )
