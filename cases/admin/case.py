"""The case editor: drafting, translating, the review workflow, history."""

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.http import HttpResponseNotAllowed, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.text import Truncator
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from modeltranslation.admin import TranslationAdmin, TranslationStackedInline

from cases.caching import public_content_changed
from cases.editorial import history
from cases.editorial import transitions as workflow
from cases.editorial.translation_state import TRACKED_FIELDS, stale_fields, update_translation_state
from cases.exchange.validation import title_problem
from cases.models import Case, CaseRelation, CaseStep, CaseTerm, CaseVersion, Source
from cases.search.text import refresh_search_text

from .filters import QueueFilter, TranslationFilter

Status = Case.Status


class CaseTermInline(admin.TabularInline):
    model = CaseTerm
    extra = 0
    autocomplete_fields = ["term"]
    ordering = ["position"]
    verbose_name = gettext_lazy("term")
    verbose_name_plural = gettext_lazy("Terms (cause is chosen above)")


class CaseStepInline(TranslationStackedInline):
    model = CaseStep
    extra = 0
    ordering = ["kind", "position"]
    fields = ["kind", "position", "text"]


class SourceInline(admin.TabularInline):
    model = Source
    extra = 0
    ordering = ["position"]


class RelatedCaseInline(admin.TabularInline):
    model = CaseRelation
    fk_name = "from_case"
    extra = 0
    autocomplete_fields = ["to_case"]
    verbose_name = gettext_lazy("related case")
    verbose_name_plural = gettext_lazy("related cases")


class CaseForm(forms.ModelForm):
    # The edit_version the editor started from: a save against an older one is refused.
    seen_version = forms.IntegerField(widget=forms.HiddenInput, required=False)

    class Meta:
        model = Case
        fields = "__all__"  # noqa: DJ007 - the admin narrows this to its fieldsets

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["seen_version"].initial = self.instance.edit_version

    def clean(self):
        cleaned = super().clean()
        message = title_problem(cleaned.get("title_en") or "", cleaned.get("title_ko") or "")
        if message:
            raise forms.ValidationError(message)
        if self.instance.pk:
            # Locks the row until this save ends, so two saves cannot both pass.
            current = (
                Case.objects.select_for_update()
                .filter(pk=self.instance.pk)
                .values_list("edit_version", flat=True)
                .first()
            )
            if current is not None and cleaned.get("seen_version") != current:
                raise forms.ValidationError(
                    _(
                        "Someone else saved this case while you were editing it, so your "
                        "save was refused to keep their work. Your text is still in this "
                        "form: copy what you need, open the case again, and re-apply it."
                    ),
                    code="edit_conflict",
                )
        public_id = cleaned.get("public_id")
        if public_id and not self.instance.draft_of_id:
            clash = Case.objects.live().filter(public_id=public_id).exclude(pk=self.instance.pk)
            if clash.exists():
                self.add_error("public_id", _("Another case already has this id."))
        return cleaned


@admin.register(Case)
class CaseAdmin(TranslationAdmin):
    form = CaseForm
    change_form_template = "admin/cases/case/change_form.html"
    list_display = [
        "public_id",
        "title_column",
        "org",
        "status_column",
        "languages_column",
        "reviewed_column",
        "modified",
    ]
    list_display_links = ["public_id", "title_column"]
    list_filter = [
        "status",
        QueueFilter,
        TranslationFilter,
        "org",
        ("terms", admin.RelatedOnlyFieldListFilter),
        "severity",
    ]
    search_fields = ["public_id", "title_en", "title_ko", "search_text"]
    autocomplete_fields = ["org", "root_cause", "recurrence_of"]
    list_select_related = ["org", "draft_of"]
    inlines = [CaseTermInline, CaseStepInline, SourceInline, RelatedCaseInline]
    actions = ["submit_selected", "approve_selected"]
    readonly_fields = ["status", "published_at", "reviewed_by", "reviewed_at", "updated_at"]
    # English and Korean side by side, a row per text, so a translator sees both at once.
    fieldsets = [
        (None, {"fields": ["public_id", "org", "date", "date_kind", "severity", "seen_version"]}),
        (
            gettext_lazy("Story (English | Korean)"),
            {
                "fields": [
                    ("title_en", "title_ko"),
                    ("summary_en", "summary_ko"),
                    ("symptoms_text_en", "symptoms_text_ko"),
                    ("trigger_en", "trigger_ko"),
                    ("detection_en", "detection_ko"),
                    ("lessons_en", "lessons_ko"),
                ],
                "classes": ["side-by-side"],
            },
        ),
        (
            gettext_lazy("Cause and impact"),
            {
                "fields": [
                    "root_cause",
                    ("impact_scope_en", "impact_scope_ko"),
                    ("impact_users_en", "impact_users_ko"),
                    ("impact_region_en", "impact_region_ko"),
                    "detected_after",
                    "resolved_after",
                ],
                "classes": ["side-by-side"],
            },
        ),
        (
            gettext_lazy("Links and provenance"),
            {"fields": ["recurrence_of", "docs", "source_url", "written_by"]},
        ),
        (
            gettext_lazy("Review"),
            {"fields": ["status", "published_at", "reviewed_by", "reviewed_at", "updated_at"]},
        ),
    ]

    class Media:
        css = {"all": ["admin/side_by_side.css"]}

    # --- columns ------------------------------------------------------------------

    @admin.display(description=gettext_lazy("title"), ordering="title_en")
    def title_column(self, case):
        return Truncator(case.title_en or case.title_ko).chars(90)

    @admin.display(description=gettext_lazy("status"), ordering="status")
    def status_column(self, case):
        label = case.get_status_display()
        if case.draft_of_id:
            return format_html("{} <em>({})</em>", label, _("pending revision of a published case"))
        if case.has_pending_revision:
            return format_html("{} <strong>({})</strong>", label, _("has unpublished changes"))
        return label

    def get_queryset(self, request):
        pending = Case.objects.filter(draft_of=OuterRef("pk"))
        return super().get_queryset(request).annotate(has_pending_revision=Exists(pending))

    @admin.display(description=gettext_lazy("languages"))
    def languages_column(self, case):
        english = "EN ✗" if case.en_missing else "EN ✓"
        korean = "KO ✗" if case.ko_missing else ("KO ⚠ stale" if case.ko_stale else "KO ✓")
        return f"{english} · {korean}"

    @admin.display(description=gettext_lazy("reviewed"), boolean=True)
    def reviewed_column(self, case):
        return bool(case.reviewed_at)

    # --- who may do what -----------------------------------------------------------

    def has_change_permission(self, request, obj=None):
        if not super().has_change_permission(request, obj):
            return False
        return obj is None or workflow.can_edit(request.user, obj)

    def has_delete_permission(self, request, obj=None):
        # Deleting loses a public address; only superusers may, and the history stays.
        return request.user.is_superuser

    def delete_model(self, request, obj):
        super().delete_model(request, obj)
        public_content_changed()

    def delete_queryset(self, request, queryset):
        super().delete_queryset(request, queryset)
        public_content_changed()

    def get_readonly_fields(self, request, obj=None):
        fields = list(super().get_readonly_fields(request, obj))
        if obj is not None and obj.draft_of_id:
            fields.append("public_id")  # a pending revision keeps its case's id
        return fields

    # --- saving ----------------------------------------------------------------------

    def save_model(self, request, obj, form, change):
        if change:
            history.ensure_first_version(obj, user=request.user)
        else:
            obj.created_by = request.user
            obj.status = Status.DRAFT
        obj.last_edited_by = request.user
        obj.edit_version += 1
        obj.updated_at = timezone.now()
        korean_changed = {field for field in TRACKED_FIELDS if f"{field}_ko" in form.changed_data}
        update_translation_state(obj, korean_changed=korean_changed)
        super().save_model(request, obj, form, change)

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        case = form.instance
        refresh_search_text(Case.objects.filter(pk=case.pk))
        history.snapshot(case, user=request.user, reason=_("saved") if change else _("created"))

    # --- the workflow panel and its views --------------------------------------------

    def get_urls(self):
        def view(route, func, name):
            return path(route, self.admin_site.admin_view(func), name=f"cases_case_{name}")

        return [
            view("<int:pk>/transition/<str:action>/", self.transition_view, "transition"),
            view("<int:pk>/revise/", self.revise_view, "revise"),
            view("<int:pk>/confirm-translation/", self.confirm_translation_view, "confirm"),
            view("<int:pk>/versions/", self.versions_view, "versions"),
            view("<int:pk>/versions/compare/", self.compare_view, "compare"),
            view("<int:pk>/versions/<int:number>/restore/", self.restore_view, "restore"),
        ] + super().get_urls()

    def change_view(self, request, object_id, form_url="", extra_context=None):
        case = self.get_object(request, object_id)
        extra = extra_context or {}
        if case is not None:
            root = case.root
            copy = Case.objects.filter(draft_of=case).first() if not case.draft_of_id else None
            extra.update(
                {
                    "case": case,
                    "root_case": root,
                    "working_copy": copy,
                    "transitions": workflow.available_transitions(request.user, case),
                    "timeline": root.transitions.select_related("user").order_by("-at"),
                    "can_revise": case.status == Status.PUBLISHED
                    and not case.draft_of_id
                    and request.user.has_perm("cases.change_case"),
                    "stale_fields": stale_fields(case),
                }
            )
        return super().change_view(request, object_id, form_url, extra)

    def change_url(self, case):
        return reverse("admin:cases_case_change", args=[case.pk])

    def transition_view(self, request, pk, action):
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        case = get_object_or_404(Case, pk=pk)
        functions = {
            "submit": workflow.case_submit,
            "approve": workflow.case_approve,
            "request_changes": workflow.case_request_changes,
            "withdraw": workflow.case_withdraw,
            "reopen": workflow.case_reopen,
        }
        if action not in functions:
            raise PermissionDenied
        try:
            result = functions[action](
                case=case, user=request.user, note=request.POST.get("note", "")
            )
        except workflow.WorkflowError as error:
            self.message_user(request, str(error), messages.ERROR)
            return HttpResponseRedirect(self.change_url(case))
        self.message_user(
            request,
            _("%(id)s: %(action)s done; the case is now %(status)s.")
            % {
                "id": result.public_id,
                "action": workflow.TRANSITIONS[action].label,
                "status": result.get_status_display().lower(),
            },
            messages.SUCCESS,
        )
        return HttpResponseRedirect(self.change_url(result))

    def revise_view(self, request, pk):
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        case = get_object_or_404(Case, pk=pk)
        try:
            copy = workflow.case_start_revision(case=case, user=request.user)
        except workflow.WorkflowError as error:
            self.message_user(request, str(error), messages.ERROR)
            return HttpResponseRedirect(self.change_url(case))
        self.message_user(
            request,
            _(
                "You are editing a pending revision. The public page keeps the published "
                "text until a reviewer approves this revision."
            ),
            messages.INFO,
        )
        return HttpResponseRedirect(self.change_url(copy))

    def confirm_translation_view(self, request, pk):
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        case = get_object_or_404(Case, pk=pk)
        if not self.has_change_permission(request, case):
            raise PermissionDenied
        with transaction.atomic():
            update_translation_state(case, confirm=True)
            case.edit_version += 1
            case.save(
                update_fields=[
                    "translation_basis",
                    "ko_stale",
                    "ko_missing",
                    "en_missing",
                    "edit_version",
                    "modified",
                ]
            )
        self.message_user(request, _("The Korean text is marked as current."), messages.SUCCESS)
        return HttpResponseRedirect(self.change_url(case))

    def versions_context(self, request, case, **extra):
        root = case.root
        return {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "case": case,
            "title": _("History of %(id)s") % {"id": root.public_id},
            "versions": CaseVersion.objects.filter(public_id=root.public_id)
            .select_related("saved_by")
            .order_by("-number"),
            "can_restore": self.has_change_permission(request, case)
            or (case.status == Status.PUBLISHED and request.user.has_perm("cases.change_case")),
            **extra,
        }

    def versions_view(self, request, pk):
        case = get_object_or_404(Case, pk=pk)
        if not self.has_view_permission(request, case):
            raise PermissionDenied
        return TemplateResponse(
            request, "admin/cases/case/versions.html", self.versions_context(request, case)
        )

    def compare_view(self, request, pk):
        case = get_object_or_404(Case, pk=pk)
        if not self.has_view_permission(request, case):
            raise PermissionDenied
        root = case.root
        versions = CaseVersion.objects.filter(public_id=root.public_id)
        try:
            older = versions.get(number=int(request.GET.get("a", "")))
            newer = versions.get(number=int(request.GET.get("b", "")))
        except (ValueError, CaseVersion.DoesNotExist):
            self.message_user(request, _("Choose two versions to compare."), messages.ERROR)
            return HttpResponseRedirect(reverse("admin:cases_case_versions", args=[case.pk]))
        if older.number > newer.number:
            older, newer = newer, older
        context = self.versions_context(
            request, case, older=older, newer=newer, changes=history.compare(older, newer)
        )
        return TemplateResponse(request, "admin/cases/case/compare.html", context)

    def restore_view(self, request, pk, number):
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        case = get_object_or_404(Case, pk=pk)
        version = get_object_or_404(CaseVersion, public_id=case.root.public_id, number=number)
        try:
            target = history.case_restore(case=case, version=version, user=request.user)
        except workflow.WorkflowError as error:
            self.message_user(request, str(error), messages.ERROR)
            return HttpResponseRedirect(reverse("admin:cases_case_versions", args=[case.pk]))
        self.message_user(
            request, _("Version %(n)s restored.") % {"n": version.number}, messages.SUCCESS
        )
        return HttpResponseRedirect(self.change_url(target))

    # --- bulk actions on the list --------------------------------------------------

    def run_in_bulk(self, request, queryset, function, done_message):
        done, refused = [], []
        for case in queryset:
            try:
                function(case=case, user=request.user)
                done.append(case.public_id)
            except workflow.WorkflowError as error:
                refused.append(f"{case.public_id}: {error}")
        if done:
            self.message_user(request, done_message % {"ids": ", ".join(done)}, messages.SUCCESS)
        for line in refused:
            self.message_user(request, line, messages.WARNING)

    @admin.action(description=gettext_lazy("Submit selected cases for review"))
    def submit_selected(self, request, queryset):
        self.run_in_bulk(request, queryset, workflow.case_submit, _("Submitted: %(ids)s"))

    @admin.action(
        description=gettext_lazy("Approve and publish selected cases"),
        permissions=["review"],
    )
    def approve_selected(self, request, queryset):
        self.run_in_bulk(request, queryset, workflow.case_approve, _("Published: %(ids)s"))

    def has_review_permission(self, request):
        return request.user.has_perm("cases.review_case")
