"""A complete reply's advisory note (store schema 8, `Message.note`: usage that made no sense,
dropped) is drawn below it as a dim note, not as an error; literally (it quotes the
provider's text)."""

from __future__ import annotations

from rich.text import Text

from tui_chat.core.models import Message, MessageStatus, Role
from tui_chat.ui.widgets.message_view import message_chrome

NOTE = ('The provider\'s token usage ({"prompt_tokens": "[b]x[/b]\x1b]0;t\x07"}) made no '
        "sense, so this reply has no token counts or cost.")


def test_a_note_is_drawn_as_a_note_not_an_error() -> None:
    message = Message(conversation_id="c", role=Role.ASSISTANT, content="Hello",
                      status=MessageStatus.COMPLETE, note=NOTE)
    _above, below = message_chrome(message)
    texts = [part for part in below if isinstance(part, Text)]
    assert len(texts) == 1
    shown = texts[0]
    assert shown.plain.startswith("ℹ The provider's token usage") and "⚠" not in shown.plain
    assert "[b]x[/b]" in shown.plain and "\x1b" not in shown.plain and "\x07" not in shown.plain
    assert str(shown.style) == "dim"
    assert not any("tc.error" in str(span.style) for span in shown.spans)
