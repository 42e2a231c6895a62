"""Every code block can be copied: numbered [n] in the view; in message mode `y` copies the
last at once, and a number typed right after copies that block instead."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.ui.conftest import (
    AppFactory,
    conversation,
    record_notifications,
    rendered_text,
    wait_idle,
    wait_until,
)
from tui_chat.ui.widgets.code_blocks import code_blocks, count_code_blocks
from tui_chat.ui.widgets.message_view import MessageView

REPLY = ("First:\n\n```sh\nls -l\n```\n\nThen, in a list:\n\n- item\n\n  ```python\n"
         "  print(1)\n  ```\n\nAnd indented:\n\n    x = 2\n\nDone.")


def test_code_blocks_in_order() -> None:
    assert code_blocks(REPLY) == ["ls -l\n", "print(1)\n", "x = 2\n"]
    assert code_blocks("no code here") == []


async def test_y_copies_the_last_block_and_a_digit_right_after_picks_one(
        make_app: AppFactory, chutes_server: FakeProvider,
        monkeypatch: pytest.MonkeyPatch) -> None:
    chutes_server.script(Reply(stream_of([REPLY[:40], REPLY[40:]])))
    app = make_app()
    copied: list[str] = []
    monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
    notes = record_notifications(app)
    async with app.run_test(size=(100, 40), notifications=True) as pilot:
        await pilot.press("q", "enter")
        await wait_idle(pilot)
        shown = rendered_text(conversation(app).query(MessageView)[-1])
        assert [label for label in ("[1]", "[2]", "[3]") if label in shown] == [
            "[1]", "[2]", "[3]"] and "[4]" not in shown
        await pilot.press("ctrl+o", "y")
        assert copied == ["x = 2\n"]
        assert notes[-1][1] == ("Code block 3 of 3 (the last) copied; press 1–3 now to copy "
                                "another instead.")
        await pilot.press("1")
        assert copied[-1] == "ls -l\n" and notes[-1][1] == ("Code block 1 of 3 copied to the "
                                                            "clipboard.")
        await pilot.press("2")  # another digit: that block instead
        assert copied[-1] == "print(1)\n"
        await pilot.press("7")
        assert notes[-1] == ("warning", "That message has 3 code blocks: press 1–3.")
        await pilot.press("c", "1")  # after another key, a digit is nothing
        assert copied == ["x = 2\n", "ls -l\n", "print(1)\n", REPLY]


async def test_past_nine_blocks_a_number_is_typed_digit_by_digit(
        make_app: AppFactory, chutes_server: FakeProvider,
        monkeypatch: pytest.MonkeyPatch) -> None:
    many = "\n\n".join(f"```\nblock {n}\n```" for n in range(1, 13))
    chutes_server.script(Reply(stream_of([many])))
    app = make_app()
    copied: list[str] = []
    monkeypatch.setattr(app, "copy_to_clipboard", copied.append)
    notes = record_notifications(app)
    async with app.run_test(size=(100, 40), notifications=True) as pilot:

        async def press(key: str, block: int) -> None:
            count = len(copied)
            await pilot.press(key)
            await wait_until(pilot, lambda: len(copied) > count)
            assert copied[-1] == f"block {block}\n"

        await pilot.press("q", "enter")
        await wait_idle(pilot)
        await pilot.press("ctrl+o")
        await press("y", 12)
        assert "press 1–12 now" in notes[-1][1]
        await press("1", 1)  # block 1 at once; a digit after it can still make 10–12
        await press("0", 10)
        await press("3", 3)  # 103 cannot be: a new number
        await press("1", 1)
        await press("2", 12)
        await wait_until(pilot, lambda: notes[-1][1] == "Code block 12 of 12 copied to the "
                         "clipboard.")
        await pilot.press("0")
        await wait_until(pilot, lambda: notes[-1] == (
            "warning", "That message has 12 code blocks: press 1–12."))
        assert len(copied) == 6


_LINES = ["```py", "```", "~~~", "````", "  ```", "    indented", "\tcode", "> quoted",
          "> ```", "- item", "  - nested", "1. first", "text with `code`", "``` a ` b", "",
          "para", "- ```", "    ```", "***", "| a | b |", "|---|---|"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_LINES), max_size=14))
def test_code_blocks_counted_fast_are_the_blocks_the_parser_finds(lines: list[str]) -> None:
    """The live reply counts each piece's code blocks by its fences when it can: always the
    count of the parser Rich's Markdown draws with."""
    markdown = "\n".join(lines)
    assert count_code_blocks(markdown) == len(code_blocks(markdown))
