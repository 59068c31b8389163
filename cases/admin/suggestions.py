"""The triage queue of suggested cases: the new ones first, the oldest of them first.

A suggestion's page shows what the reader sent (their email only to those who may triage),
the cases and earlier suggestions citing the same address or a similar one, and, while it
is new, three forms: accept into a draft, reject with a reason, mark as a duplicate. Each
posts to a view of its own, which calls cases.contributions.suggestions.
"""

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.widgets import AutocompleteSelect
from django.core.exceptions import PermissionDenied
from django.db import models
from django.http import HttpResponseNotAllowed, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.text import Truncator
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from cases.contributions import suggestions as rules
from cases.contributions.suggestion_matches import find_matches
from cases.editorial.drafts import CaseInvalid
from cases.editorial.rights import WorkflowError
from cases.models import Case, Organisation, Suggestion
from cases.rules import MAX_NAME_LENGTH, MAX_SLUG_LENGTH, MAX_TITLE_LENGTH

Status = Suggestion.Status
MAX_REASON_LENGTH = 2_000
WIDE = forms.TextInput(attrs={"class": "vTextField"})


class AcceptForm(forms.Form):
    prefix = "accept"

    org = forms.ModelChoiceField(
        Organisation.objects.all(),
        required=False,
        label=gettext_lazy("Organisation"),
        widget=AutocompleteSelect(Case._meta.get_field("org"), admin.site),
    )
    new_org_name = forms.CharField(
        label=gettext_lazy("or a new organisation"),
        required=False,
        max_length=MAX_NAME_LENGTH,
        widget=WIDE,
    )
    new_org_slug = forms.CharField(
        label=gettext_lazy("its slug"),
        required=False,
        max_length=MAX_SLUG_LENGTH,
        help_text=gettext_lazy("Made from the name if left empty; needed for a name in Hangul."),
    )
    title_en = forms.CharField(
        label=gettext_lazy("Title (English)"),
        required=False,
        max_length=MAX_TITLE_LENGTH,
        widget=WIDE,
    )
    title_ko = forms.CharField(
        label=gettext_lazy("Title (Korean)"),
        required=False,
        max_length=MAX_TITLE_LENGTH,
        widget=WIDE,
    )
    date = forms.DateField(
        label=gettext_lazy("Date"),
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
    )

    # Where the exchange validator's problems are shown.
    PROBLEM_FIELDS = {"org_slug": "new_org_slug", "title.ko": "title_ko", "date": "date"}

    def clean(self):
        cleaned = super().clean()
        org, new_name = cleaned.get("org"), cleaned.get("new_org_name", "").strip()
        if org is None and not new_name:
            self.add_error("org", _("Choose an organisation, or name a new one."))
        elif org is not None and new_name:
            self.add_error("new_org_name", _("Choose an organisation or name a new one, not both."))
        return cleaned

    def show_problems(self, problems):
        for problem in problems:
            if problem.path == "org":
                field = "org" if self.cleaned_data.get("org") else "new_org_name"
            elif problem.path.startswith("title"):
                field = self.PROBLEM_FIELDS.get(problem.path, "title_en")
            else:
                field = self.PROBLEM_FIELDS.get(problem.path)
            self.add_error(field, problem.message if field else str(problem))


class RejectForm(forms.Form):
    prefix = "reject"

    reason = forms.CharField(
        label=gettext_lazy("Reason"),
        max_length=MAX_REASON_LENGTH,
        widget=forms.Textarea(attrs={"rows": 3, "class": "vLargeTextField"}),
        error_messages={"required": gettext_lazy("Say why the suggestion is rejected.")},
    )


class DuplicateForm(forms.Form):
    prefix = "duplicate"

    case = forms.ModelChoiceField(
        Case.objects.live(),
        label=gettext_lazy("Case"),
        widget=AutocompleteSelect(Suggestion._meta.get_field("duplicate_of"), admin.site),
        error_messages={"required": gettext_lazy("Choose the case this suggestion duplicates.")},
    )
    reason = forms.CharField(
        label=gettext_lazy("Note"),
        required=False,
        max_length=MAX_REASON_LENGTH,
        widget=forms.Textarea(attrs={"rows": 2, "class": "vLargeTextField"}),
    )


@admin.register(Suggestion)
class SuggestionAdmin(admin.ModelAdmin):
    list_display = ["sent_at", "short_url", "organisation", "status", "language", "handled_by"]
    list_display_links = ["sent_at", "short_url"]
    list_filter = ["status", "language"]
    list_select_related = ["handled_by"]
    search_fields = ["source_url", "organisation"]
    # The queue: the new ones first, each group oldest first.
    ordering = [
        models.Case(
            models.When(status=Status.NEW, then=models.Value(0)),
            default=models.Value(1),
            output_field=models.IntegerField(),
        ).asc(),
        "sent_at",
        "pk",
    ]

    def has_add_permission(self, request):
        return False  # suggestions come from readers, through the public form

    @admin.display(description=gettext_lazy("source address"), ordering="source_url")
    def short_url(self, suggestion):
        return Truncator(suggestion.source_url).chars(80)

    def get_urls(self):
        triage = self.admin_site.admin_view(self.triage_view)
        steps = [
            path(
                f"<int:pk>/{action}/", triage, {"action": action}, name=f"cases_suggestion_{action}"
            )
            for action in ("accept", "reject", "duplicate")
        ]
        return steps + super().get_urls()

    # --- the suggestion's page ---------------------------------------------------------

    def change_view(self, request, object_id, form_url="", extra_context=None):
        if request.method not in ("GET", "HEAD"):
            return HttpResponseNotAllowed(["GET", "HEAD"])  # each step posts to its own view
        suggestion = self.get_object(request, object_id)
        if suggestion is None:
            return self._get_obj_does_not_exist_redirect(request, self.opts, object_id)
        if not self.has_view_permission(request, suggestion):
            raise PermissionDenied
        return self.triage_page(request, suggestion)

    def triage_page(self, request, suggestion, **forms_given):
        may_triage = self.has_change_permission(request, suggestion)
        forms_shown = {}
        if suggestion.status == Status.NEW and may_triage:
            forms_shown = {
                "accept_form": forms_given.get("accept_form") or self.accept_form(suggestion),
                "reject_form": forms_given.get("reject_form") or RejectForm(),
                "duplicate_form": forms_given.get("duplicate_form") or DuplicateForm(),
            }
        matches = find_matches(suggestion.source_url, exclude_suggestion=suggestion)
        exact = next((m.case for m in matches if m.case and m.kind == "exact"), None)
        if "duplicate_form" in forms_shown and exact and not forms_shown["duplicate_form"].is_bound:
            forms_shown["duplicate_form"] = DuplicateForm(initial={"case": exact})
        media = self.media
        for form in forms_shown.values():
            media += form.media
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "original": suggestion,
            "suggestion": suggestion,
            "title": _("Suggested case #%(n)s") % {"n": suggestion.pk},
            "matches": matches,
            "may_triage": may_triage,
            "media": media,
            **forms_shown,
        }
        status = 400 if any(form.is_bound for form in forms_given.values()) else 200
        return TemplateResponse(
            request, "admin/cases/suggestion/triage.html", context, status=status
        )

    def accept_form(self, suggestion, data=None):
        if data is not None:
            return AcceptForm(data)
        org = rules.suggested_organisation(suggestion)
        return AcceptForm(
            initial={
                "org": org,
                "new_org_name": "" if org else suggestion.organisation,
                "date": suggestion.date,
            }
        )

    # --- the triage steps ---------------------------------------------------------------

    def triage_view(self, request, pk, action):
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        suggestion = get_object_or_404(Suggestion.objects.select_related("handled_by"), pk=pk)
        if not self.has_change_permission(request, suggestion):
            raise PermissionDenied
        if suggestion.status != Status.NEW:
            self.message_user(request, rules.handled_already(suggestion), messages.ERROR)
            return HttpResponseRedirect(self.page_url(suggestion))
        form_class = {"accept": AcceptForm, "reject": RejectForm, "duplicate": DuplicateForm}
        form = form_class[action](request.POST)
        if not form.is_valid():
            return self.triage_page(request, suggestion, **{f"{action}_form": form})
        try:
            done = getattr(self, f"do_{action}")(request, suggestion, form.cleaned_data)
        except CaseInvalid as invalid:
            form.show_problems(invalid.problems)
            return self.triage_page(request, suggestion, **{f"{action}_form": form})
        except WorkflowError as refused:  # handled meanwhile, by someone else
            self.message_user(request, str(refused), messages.ERROR)
            return HttpResponseRedirect(self.page_url(suggestion))
        return done

    def do_accept(self, request, suggestion, data):
        suggestion = rules.suggestion_accept(suggestion=suggestion, user=request.user, **data)
        draft = suggestion.draft
        self.message_user(
            request,
            _("Suggestion #%(n)s accepted: the draft %(id)s has its source filled in.")
            % {"n": suggestion.pk, "id": draft.public_id},
            messages.SUCCESS,
        )
        return HttpResponseRedirect(reverse("admin:cases_case_change", args=[draft.pk]))

    def do_reject(self, request, suggestion, data):
        rules.suggestion_reject(suggestion=suggestion, user=request.user, reason=data["reason"])
        self.message_user(
            request, _("Suggestion #%(n)s rejected.") % {"n": suggestion.pk}, messages.SUCCESS
        )
        return HttpResponseRedirect(reverse("admin:cases_suggestion_changelist"))

    def do_duplicate(self, request, suggestion, data):
        rules.suggestion_mark_duplicate(
            suggestion=suggestion, user=request.user, case=data["case"], reason=data["reason"]
        )
        self.message_user(
            request,
            _("Suggestion #%(n)s marked as a duplicate of %(id)s.")
            % {"n": suggestion.pk, "id": data["case"].public_id},
            messages.SUCCESS,
        )
        return HttpResponseRedirect(reverse("admin:cases_suggestion_changelist"))

    def page_url(self, suggestion):
        return reverse("admin:cases_suggestion_change", args=[suggestion.pk])
