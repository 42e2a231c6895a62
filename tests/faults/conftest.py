"""The Pilot fixtures of tests/ui, for the app-side fault tests (issue 6), and the held reply
of the signal tests for the other process tests."""

from tests.faults.test_signals import held_reply  # noqa: F401  (a fixture, re-exported)
from tests.ui.conftest import make_app, store  # noqa: F401  (fixtures re-exported)
