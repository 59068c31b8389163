from .case import CaseAdmin
from .taxonomy import OrganisationAdmin, TermAdmin

__all__ = ["CaseAdmin", "OrganisationAdmin", "TermAdmin"]
