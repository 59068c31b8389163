from .catalogue import (
    CASE_ID_RE,
    SLUG_RE,
    Case,
    CaseQuerySet,
    CaseRelation,
    CaseStep,
    CaseTerm,
    Source,
)
from .contributions import Suggestion
from .editorial import (
    CaseMerge,
    CaseTransition,
    CaseVersion,
    OrganisationRedirect,
    TermRedirect,
)
from .open_data import BulkBuild, BulkMember, PublishedRecord
from .preferences import EditorPreference
from .public import ContentVersion, PublicChange
from .reports import ProblemReport
from .review import CaseComment, CasePresence, CommentReply, ReviewClaim
from .scheduling import ScheduledTransition
from .search import SearchEntry
from .taxonomy import LIST_VOCABULARIES, Organisation, Term, Vocabulary
from .uploads import PendingImport
from .words import SearchWord

__all__ = [
    "CASE_ID_RE",
    "LIST_VOCABULARIES",
    "SLUG_RE",
    "BulkBuild",
    "BulkMember",
    "Case",
    "CaseComment",
    "CaseMerge",
    "CasePresence",
    "CaseQuerySet",
    "CaseRelation",
    "CaseStep",
    "CaseTerm",
    "CaseTransition",
    "CaseVersion",
    "CommentReply",
    "ContentVersion",
    "EditorPreference",
    "Organisation",
    "PendingImport",
    "ProblemReport",
    "PublicChange",
    "PublishedRecord",
    "ScheduledTransition",
    "SearchEntry",
    "SearchWord",
    "ReviewClaim",
    "Source",
    "Suggestion",
    "Term",
    "OrganisationRedirect",
    "TermRedirect",
    "Vocabulary",
]
