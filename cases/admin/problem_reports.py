"""Problems readers reported, in the admin: the panel of a case's open reports on its page,
where its editors resolve or dismiss each with a note; the reports in the case's timeline;
and the corrections queue, every report of every case, open ones first, oldest first.

A reader's email is shown to those who handle the case's reports (its editors, reviewers)
and to nobody else. The views are thin: cases.contributions.reports decides.
"""

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Case as Choose
from django.db.models import Value, When
from django.http import HttpResponseNotAllowed, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.text import Truncator
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from cases.contributions import reports
from cases.editorial.rights import WorkflowError, display_name
from cases.models import Case, ProblemReport

Status = ProblemReport.Status
PANEL = "#problem-reports"


def queue_url(**filters):
    url = reverse("admin:cases_problemreport_changelist")
    query = "&".join(f"{name}={value}" for name, value in filters.items())
    return f"{url}?{query}" if query else url


class CaseProblemReportViews:
    """Mixed into CaseAdmin after ReviewDeskViews, whose timeline entries it adds to."""

    def get_urls(self):
        view = self.admin_site.admin_view(self.problem_report_view)
        return [
            path(
                "<int:pk>/problem-reports/<int:report_id>/<str:action>/",
                view,
                name="cases_case_problem_report",
            )
        ] + super().get_urls()

    def change_view(self, request, object_id, form_url="", extra_context=None):
        extra = extra_context or {}
        case = extra.get("case")
        if case is not None and isinstance(extra.get("timeline"), list):
            found = reports.reports_of(case)
            entries = [*extra["timeline"], *reports.timeline_entries(found)]
            extra["timeline"] = sorted(entries, key=lambda entry: entry.at, reverse=True)
            can_handle = reports.may_handle(request.user, case.root)
            extra["problem_reports"] = {
                "open": [report for report in found if report.is_open],
                "handled_count": sum(1 for report in found if not report.is_open),
                "can_handle": can_handle,
                "show_email": can_handle,
                "queue_url": queue_url(case=case.root.pk),
            }
        return super().change_view(request, object_id, form_url, extra)

    def problem_report_view(self, request, pk, report_id, action):
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        case = get_object_or_404(Case.objects.select_related("draft_of"), pk=pk)
        if not self.has_view_permission(request, case):
            raise PermissionDenied
        report = get_object_or_404(ProblemReport, pk=report_id, case=case.root.pk)
        steps = {
            "resolve": (reports.report_resolve, _("The report is resolved.")),
            "dismiss": (reports.report_dismiss, _("The report is dismissed.")),
        }
        if action not in steps:
            raise PermissionDenied
        function, done = steps[action]
        try:
            function(report=report, user=request.user, note=request.POST.get("note", ""))
        except WorkflowError as error:
            self.message_user(request, str(error), messages.ERROR)
            return HttpResponseRedirect(self.change_url(case) + f"#problem-report-{report.pk}")
        self.message_user(request, done, messages.SUCCESS)
        return HttpResponseRedirect(self.change_url(case) + PANEL)


class ReportedCaseFilter(admin.SimpleListFilter):
    """The cases that have reports, by their id: one narrow query, however long their
    texts."""

    title = gettext_lazy("case")
    parameter_name = "case"

    def lookups(self, request, model_admin):
        rows = (
            ProblemReport.objects.order_by("case__public_id")
            .values_list("case", "case__public_id")
            .distinct()
        )
        return [(str(pk), public_id) for pk, public_id in rows]

    def queryset(self, request, queryset):
        if self.value():
            try:
                return queryset.filter(case=int(self.value()))
            except ValueError:
                return queryset.none()
        return queryset


@admin.register(ProblemReport)
class ProblemReportAdmin(admin.ModelAdmin):
    """The corrections queue: read here, handled on the case's page (its panel)."""

    list_display = [
        "sent_at",
        "case_column",
        "text_column",
        "status",
        "language",
        "handled_column",
    ]
    list_display_links = ["sent_at"]
    list_filter = ["status", ReportedCaseFilter, "language"]
    search_fields = ["case__public_id", "text"]
    list_per_page = 50
    fields = [
        "case_link",
        "sent_at",
        "language",
        "text",
        "source_url",
        "email",
        "status",
        "resolution_note",
        "resolved_by",
        "resolved_at",
    ]
    readonly_fields = fields

    def get_queryset(self, request):
        # The case's id and title only: a case row is long texts besides.
        return (
            super()
            .get_queryset(request)
            .select_related("case", "resolved_by")
            .defer(*(f"case__{name}" for name in self.case_columns_unread()))
        )

    @staticmethod
    def case_columns_unread():
        kept = {"id", "public_id", "title_en", "title_ko", "status", "draft_of"}
        return [
            field.name
            for field in Case._meta.concrete_fields
            if field.name not in kept and not field.primary_key
        ]

    def get_ordering(self, request):
        """Open reports first, the longest waiting first; then the handled ones."""
        is_open = Choose(When(status=Status.OPEN, then=Value(0)), default=Value(1))
        return [is_open.asc(), "sent_at", "pk"]

    def get_fields(self, request, obj=None):
        fields = list(super().get_fields(request, obj))
        if obj is None or not reports.may_handle(request.user, obj.case):
            fields.remove("email")  # the reader gave it to the case's editors only
        return fields

    # --- who may ----------------------------------------------------------------------

    def has_view_permission(self, request, obj=None):
        # Whoever edits cases reads what readers found wrong with them.
        user = request.user
        return user.is_active and user.is_staff and user.has_perm("cases.change_case")

    def has_module_permission(self, request):
        return self.has_view_permission(request)

    def has_add_permission(self, request):
        return False  # readers send them, from the case's page

    def has_change_permission(self, request, obj=None):
        return False  # handled on the case's page, through the rules

    def has_delete_permission(self, request, obj=None):
        return request.user.is_superuser  # spam that got through

    # --- columns ----------------------------------------------------------------------

    @admin.display(description=gettext_lazy("case"), ordering="case__public_id")
    def case_column(self, report):
        case = report.case
        title = Truncator(case.title_en or case.title_ko).chars(60)
        url = reverse("admin:cases_case_change", args=[case.pk]) + f"#problem-report-{report.pk}"
        return format_html('<a href="{}">{}</a> {}', url, case.public_id, title)

    @admin.display(description=gettext_lazy("what is wrong"))
    def text_column(self, report):
        return Truncator(report.text).chars(120)

    @admin.display(description=gettext_lazy("handled"), ordering="resolved_at")
    def handled_column(self, report):
        if report.is_open:
            return "—"
        who = display_name(report.resolved_by) if report.resolved_by else _("someone")
        return f"{who}, {timezone.localtime(report.resolved_at):%Y-%m-%d %H:%M}"

    @admin.display(description=gettext_lazy("case"))
    def case_link(self, report):
        case = report.case
        url = reverse("admin:cases_case_change", args=[case.pk]) + PANEL
        return format_html(
            '<a href="{}">{}: {}</a> ({})',
            url,
            case.public_id,
            case.title_en or case.title_ko,
            _("resolve or dismiss it on the case's page"),
        )
