"""The case editor: drafting, translating, the review workflow, history."""

from django.contrib import admin, messages
from django.contrib.admin.utils import construct_change_message
from django.db.models import Exists, OuterRef
from django.http import HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html
from django.utils.text import Truncator
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from modeltranslation.admin import TranslationAdmin, TranslationStackedInline

from cases.editorial import drafts
from cases.editorial import transitions as workflow
from cases.editorial.rights import WorkflowError
from cases.models import Case, CaseRelation, CaseStep, CaseTerm, Source

from .case_form import CaseFormLayout
from .case_views import CaseEditorialViews
from .combine_views import CaseCombineViews
from .exchange_views import CaseExchangeViews
from .filters import DuplicatesFilter, OpenCommentsFilter, QueueFilter, TranslationFilter
from .forms import CaseForm
from .markdown_preview import MarkdownPreviewMixin
from .merge_views import CaseMergeViews
from .problem_reports import CaseProblemReportViews
from .review_views import ReviewDeskViews
from .scheduling_views import CaseSchedulingViews

Status = Case.Status


class CaseTermInline(admin.TabularInline):
    model = CaseTerm
    extra = 0
    autocomplete_fields = ["term"]
    ordering = ["position"]
    classes = ["collapse"]
    verbose_name = gettext_lazy("term")
    verbose_name_plural = gettext_lazy("Terms (cause is chosen above)")

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("term")  # each row's label


class CaseStepInline(TranslationStackedInline):
    model = CaseStep
    extra = 0
    ordering = ["kind", "position"]
    # A step's English and Korean side by side, as the case's own texts.
    fieldsets = [
        (
            None,
            {"fields": [("kind", "position"), ("text_en", "text_ko")], "classes": ["side-by-side"]},
        )
    ]
    classes = ["collapse"]


class SourceInline(admin.TabularInline):
    model = Source
    extra = 0
    ordering = ["position"]
    classes = ["collapse", "sources"]


class RelatedCaseInline(admin.TabularInline):
    model = CaseRelation
    fk_name = "from_case"
    extra = 0
    autocomplete_fields = ["to_case"]
    classes = ["collapse"]
    verbose_name = gettext_lazy("related case")
    verbose_name_plural = gettext_lazy("related cases")


@admin.register(Case)
class CaseAdmin(
    CaseMergeViews,  # first: a conflicting save shows the merge page, not the form
    CaseFormLayout,
    CaseCombineViews,
    CaseExchangeViews,
    CaseSchedulingViews,
    CaseEditorialViews,
    ReviewDeskViews,  # after CaseEditorialViews: it turns the timeline into its entries
    CaseProblemReportViews,  # after ReviewDeskViews: it adds readers' reports to them
    MarkdownPreviewMixin,
    TranslationAdmin,
):
    form = CaseForm
    change_form_template = "admin/cases/case/change_form.html"
    list_display = [
        "public_id",
        "title_column",
        "org",
        "status_column",
        "languages_column",
        "reviewed_column",
        "review_column",
        "modified",
    ]
    list_display_links = ["public_id", "title_column"]
    list_filter = [
        "status",
        QueueFilter,
        OpenCommentsFilter,
        TranslationFilter,
        DuplicatesFilter,
        "org",
        ("terms", admin.RelatedOnlyFieldListFilter),
        "severity",
    ]
    search_fields = ["public_id", "title_en", "title_ko", "search_text"]
    autocomplete_fields = ["org", "root_cause", "recurrence_of"]
    list_select_related = ["org", "draft_of"]
    inlines = [CaseTermInline, CaseStepInline, SourceInline, RelatedCaseInline]
    actions = ["submit_selected", "approve_selected", "export_selected"]
    readonly_fields = ["status", "published_at", "reviewed_by", "reviewed_at", "updated_at"]
    # English and Korean side by side, a row per text, so a translator sees both at once.
    # Every named section folds; the story starts open, and so does any section holding
    # something or a problem (CaseFormLayout).
    fieldsets = [
        (
            None,
            {
                "fields": [
                    ("public_id", "org"),
                    ("date", "date_kind", "severity"),
                    "seen_version",
                    "opened_as",
                ],
                "classes": ["basics"],
            },
        ),
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
                "classes": ["collapse", "start-open", "side-by-side"],
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
                    ("detected_after", "resolved_after"),
                ],
                "classes": ["collapse", "side-by-side"],
            },
        ),
        (
            gettext_lazy("Links and provenance"),
            {
                "fields": ["recurrence_of", "docs", "source_url", "licence", "written_by"],
                "classes": ["collapse"],
            },
        ),
        (
            gettext_lazy("Review"),
            {
                "fields": ["status", "published_at", "reviewed_by", "reviewed_at", "updated_at"],
                "classes": ["collapse"],
            },
        ),
    ]

    class Media:
        css = {"all": ["admin/side_by_side.css"]}
        js = ["admin/js/case-form.js", "admin/js/unsaved-changes.js"]

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
        drafts.case_delete(case=obj, user=request.user)

    def delete_queryset(self, request, queryset):
        for case in queryset:
            drafts.case_delete(case=case, user=request.user)

    def get_readonly_fields(self, request, obj=None):
        fields = list(super().get_readonly_fields(request, obj))
        if obj is not None and obj.draft_of_id:
            fields.append("public_id")  # a pending revision keeps its case's id
        return fields

    # --- saving: the whole case through the validator and the editorial save -----------

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        # The form reads its inlines when it validates (CaseForm.clean): they are this
        # request's, made just before it (_create_formsets).
        return type(form.__name__, (form,), {"request": request})

    def _create_formsets(self, request, obj, change):
        formsets, inlines = super()._create_formsets(request, obj, change)
        request.case_formsets = formsets
        return formsets, inlines

    def save_model(self, request, obj, form, change):
        try:
            drafts.case_save(
                case=obj,
                data=form.exchange_case,
                user=request.user,
                seen_version=form.cleaned_data.get("seen_version"),
            )
        except WorkflowError as refused:  # a race the form could not see: the same id, say
            request.case_save_refused = refused

    def save_related(self, request, form, formsets, change):
        """Nothing more to save: case_save wrote the inlines' rows with the case."""

    def construct_change_message(self, request, form, formsets, add=False):
        message = construct_change_message(form, [], add)
        inlines = [str(formset.model._meta.verbose_name_plural) for formset in formsets]
        changed = [name for name, fs in zip(inlines, formsets, strict=True) if fs.has_changed()]
        if changed and not add:
            message.append({"changed": {"fields": changed}})
        return message

    def log_addition(self, request, obj, message):
        if not getattr(request, "case_save_refused", None):
            return super().log_addition(request, obj, message)
        return None

    def log_change(self, request, obj, message):
        if not getattr(request, "case_save_refused", None):
            return super().log_change(request, obj, message)
        return None

    def response_add(self, request, obj, post_url_continue=None):
        if refused := getattr(request, "case_save_refused", None):
            self.message_user(request, str(refused), messages.ERROR)
            return HttpResponseRedirect(reverse("admin:cases_case_add"))
        return super().response_add(request, obj, post_url_continue)

    def response_change(self, request, obj):
        if refused := getattr(request, "case_save_refused", None):
            self.message_user(request, str(refused), messages.ERROR)
            return HttpResponseRedirect(self.change_url(obj))
        return super().response_change(request, obj)

    # --- bulk actions on the list --------------------------------------------------

    def run_in_bulk(self, request, queryset, function, done_message):
        done, refused = [], []
        for case in queryset:
            try:
                function(case=case, user=request.user)
                done.append(case.public_id)
            except WorkflowError as error:
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
