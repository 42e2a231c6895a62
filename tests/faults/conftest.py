"""The Pilot fixtures of tests/ui, for the app-side fault tests (issue 6)."""

from tests.ui.conftest import make_app, store  # noqa: F401  (fixtures re-exported)
