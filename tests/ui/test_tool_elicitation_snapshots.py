"""The pictures of the forms a tool server asks for: every kind of field, with a hostile
title drawn as characters, and a bad answer's sentence; and URL mode's page."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from tests.ui.test_screens_snapshots import Host, no_blink
from tests.ui.test_tool_elicitation import SCHEMA
from tui_chat.core.mcp.elicitation import ElicitRequest, form_fields
from tui_chat.ui.screens.elicitation import ElicitFormScreen, ElicitUrlScreen


def test_elicitation_form_snapshot(snap_compare: Any) -> None:
    fields = form_fields(SCHEMA)
    assert isinstance(fields, list)
    request = ElicitRequest("trips", "Where to, and for how long?", SCHEMA, None)

    async def refused(pilot: Pilot[Any]) -> None:
        await no_blink(pilot)
        await pilot.press("ctrl+s")  # the required field is empty: its sentence shows
        await pilot.pause()

    app = Host(lambda: ElicitFormScreen(request, fields))
    assert snap_compare(app, terminal_size=(100, 40), run_before=refused)


def test_elicitation_url_snapshot(snap_compare: Any) -> None:
    request = ElicitRequest("github", "Sign in to let the tool read your repositories.",
                            None, "https://github.com/login/oauth/authorize?client_id=abc")
    app = Host(lambda: ElicitUrlScreen(request))
    assert snap_compare(app, terminal_size=(100, 24), run_before=no_blink)
