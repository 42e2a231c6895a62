"""Snippets read as text (issue 25): Markdown's markup is left out, code is kept as written."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tui_chat.core.models import Conversation, Message, Role
from tui_chat.core.plain_markdown import plain_markdown
from tui_chat.core.store import Store


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "store.sqlite3") as opened:
        yield opened


def test_markup_is_left_out_and_code_kept() -> None:
    text = ("## Setup\nUse **pip** and *venv*: [the docs](https://x.y/z), `pip install .`\n"
            "```python\ndef __init__(self): return 2 * 3\n```\n- one\n  1. two\n> ~~old~~\n"
            "| a | b |\n|---|:-:|\n| 1 | 2 |\n---\nsnake_case and 2 * 3")
    assert plain_markdown(text).splitlines() == [
        "Setup", "Use pip and venv: the docs, pip install .",
        "def __init__(self): return 2 * 3", "one", "two", "old", "a  b", "1  2",
        "snake_case and 2 * 3"]


def test_a_search_snippet_is_plain_text(store: Store) -> None:
    conversation = store.create_conversation(Conversation(title="t"))
    store.add_message(Message(conversation_id=conversation.id, role=Role.ASSISTANT,
                              content="# Title\nSee **the docs** at [this page](https://e.x)."))
    hit = store.search("docs")[0]
    assert hit.snippet == "Title See the docs at this page."
    assert [hit.snippet[a:b] for a, b in hit.spans] == ["docs"]
