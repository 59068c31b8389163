"""The search tests read the public pages' small library (tests/public/conftest.py)."""

from tests.public.conftest import library, terms  # noqa: F401
