from django.urls import path, register_converter

from cases.api.docs import api_docs
from cases.public import check, feeds, organisations, reports, suggest, views
from cases.rules import CASE_ID_PATTERN


class CaseIdConverter:
    regex = CASE_ID_PATTERN  # the rules' id: a URL takes exactly what an id may be

    def to_python(self, value):
        return value

    def to_url(self, value):
        return value


register_converter(CaseIdConverter, "case_id")

app_name = "cases"
urlpatterns = [
    path("", views.case_list, name="home"),
    path("cases/", views.case_list, name="list"),
    path("cases.json", views.case_list_json, name="list-json"),
    path("cases/<case_id:public_id>/", views.case_detail, name="detail"),
    path("cases/<case_id:public_id>.json", views.case_detail_json, name="detail-json"),
    path("cases/<case_id:public_id>/report/", reports.case_report, name="report"),
    path(
        "cases/<case_id:public_id>/report/thanks/",
        reports.case_report_thanks,
        name="report-thanks",
    ),
    path("organisations/", organisations.organisation_index, name="organisations"),
    path("organisations/<str:slug>/", organisations.organisation_detail, name="organisation"),
    path("check.md", check.check_markdown, name="check-md"),
    path("graph/", views.graph, name="graph"),
    path("graph.json", views.graph_json, name="graph-json"),
    path("feed.atom", feeds.LatestCasesFeed(), name="feed"),
    path("preview/<int:pk>/", views.case_preview, name="preview"),
    path("api/", api_docs, name="api-docs"),
    path("suggest/", suggest.suggest, name="suggest"),
    path("suggest/thanks/", suggest.suggest_thanks, name="suggest-thanks"),
]
