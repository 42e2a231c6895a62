"""`Exchange`: what one Enter (or Ctrl+R, or a comparison) asks the conversation's worker to
run; chosen by the controller, run by the view's worker through it."""

from __future__ import annotations

from typing import Literal

from msgspec import Struct

from tui_chat.core.models import Attachment


class Exchange(Struct, frozen=True):
    """What the worker should do: send a prompt, regenerate, edit and resend, compare, or
    continue a reply (`message_id`) as a new branch."""

    kind: Literal["send", "regenerate", "edit", "compare", "continue"]
    text: str = ""
    message_id: str | None = None
    continue_partial: bool = False
    """Send the reply cut off by a failure as context (the user chose to continue from it)."""
    attachments: tuple[Attachment, ...] = ()
