"""The conversation sidebar over a real store: list, full-text filter, open, rename, delete,
export; untrusted titles drawn literally."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult
from textual.message import Message as TextualMessage
from textual.widgets import Input

from tui_chat.core.models import Conversation, Message, Role
from tui_chat.core.store import Store
from tui_chat.ui.screens.confirm import ConfirmScreen, TextPromptScreen
from tui_chat.ui.widgets.conversation_list import ConversationList

HINDI = "नमस्ते! मुझे दिल्ली की यात्रा के बारे में बताइए।"
NASTY_TITLE = "[bold red]x[/] \x1b]0;pwned\x07[@click=app.quit]y[/] x[/]"


def seed(store: Store) -> dict[str, str]:
    start = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
    ids: dict[str, str] = {}
    rows = [("trip", "Trip planning", HINDI), ("python", "Python help", "How do I sort a list?"),
            ("nasty", NASTY_TITLE, "hello")]
    for index, (key, title, text) in enumerate(rows):
        when = start + timedelta(hours=index)
        conversation = store.create_conversation(
            Conversation(title=title, created=when, updated=when))
        store.add_message(Message(conversation_id=conversation.id, role=Role.USER,
                                  content=text, created=when))
        ids[key] = conversation.id
    return ids


class Host(App[None]):
    def __init__(self, store: Store, export_dir: Path) -> None:
        super().__init__()
        self.store = store
        self.export_dir = export_dir
        self.posted: list[TextualMessage] = []

    def compose(self) -> ComposeResult:
        yield ConversationList(self.store, export_dir=self.export_dir,
                               local_time=lambda moment: moment.astimezone(UTC))

    def on_conversation_list_conversation_chosen(self, m: ConversationList.ConversationChosen
                                                 ) -> None:
        self.posted.append(m)

    def on_conversation_list_conversation_renamed(self, m: ConversationList.ConversationRenamed
                                                  ) -> None:
        self.posted.append(m)

    def on_conversation_list_conversation_deleted(self, m: ConversationList.ConversationDeleted
                                                  ) -> None:
        self.posted.append(m)

    def on_conversation_list_conversation_exported(
            self, m: ConversationList.ConversationExported) -> None:
        self.posted.append(m)

    def on_conversation_list_new_conversation_requested(
            self, m: ConversationList.NewConversationRequested) -> None:
        self.posted.append(m)


async def until(pilot: Any, predicate: Callable[[], bool]) -> None:
    for _ in range(300):
        if predicate():
            return
        await asyncio.sleep(0.01)
        await pilot.pause()
    raise AssertionError("condition not reached in time")


def shown(sidebar: ConversationList) -> list[str]:
    return [str(option.prompt) for option in sidebar.option_list.options]


async def test_newest_first_and_titles_literal(store: Store, tmp_path: Path) -> None:
    ids = seed(store)
    app = Host(store, tmp_path)
    async with app.run_test(size=(60, 30)) as pilot:
        sidebar = app.query_one(ConversationList)
        await pilot.pause()
        ordered = [option.id for option in sidebar.option_list.options]
        assert ordered == [ids["nasty"], ids["python"], ids["trip"]]
        first = shown(sidebar)[0]
        assert first.startswith("  [bold red]x[/] ]0;pwned[@cli")  # literal; cut to fit
        assert "\x1b" not in "".join(shown(sidebar))
        assert re.search(r"\n  [A-Z][a-z]{2} \d\d \d\d:\d\d · 1 msgs$", first)
        assert app.is_running


async def test_filter_finds_a_hindi_message_by_full_text(store: Store, tmp_path: Path) -> None:
    ids = seed(store)
    app = Host(store, tmp_path)
    async with app.run_test(size=(60, 30)) as pilot:
        sidebar = app.query_one(ConversationList)
        sidebar.query_one("#conversation-filter", Input).value = "दिल्ली"
        await until(pilot, lambda: sidebar.search_done)
        assert [option.id for option in sidebar.option_list.options] == [ids["trip"]]
        prompt = sidebar.option_list.options[0].prompt
        text = str(prompt)
        assert "Trip planning" in text and "दिल्ली" in text
        start = text.index("दिल्ली")
        styles = [span.style for span in prompt.spans  # type: ignore[union-attr]
                  if span.start <= start < span.end]
        assert "bold reverse" in styles  # the match is highlighted by span, not markup
        await pilot.press("down")  # from the filter to the list
        assert sidebar.option_list.has_focus
        await pilot.press("enter")  # open it
        await pilot.pause()
    [chosen] = app.posted
    assert isinstance(chosen, ConversationList.ConversationChosen)
    assert chosen.conversation_id == ids["trip"] and chosen.message_id is not None


async def test_filter_by_title_and_nothing_matches(store: Store, tmp_path: Path) -> None:
    ids = seed(store)
    app = Host(store, tmp_path)
    async with app.run_test(size=(60, 30)) as pilot:
        sidebar = app.query_one(ConversationList)
        field = sidebar.query_one("#conversation-filter", Input)
        field.value = "PYTHON"
        await until(pilot, lambda: sidebar.search_done)
        assert [option.id for option in sidebar.option_list.options] == [ids["python"]]
        field.value = "zzzz nothing"
        await until(pilot, lambda: sidebar.search_done)
        assert sidebar.option_list.option_count == 0
        assert "Nothing matches." in str(sidebar.query_one("#conversation-status").render())


async def test_rename_and_new(store: Store, tmp_path: Path) -> None:
    ids = seed(store)
    app = Host(store, tmp_path)
    async with app.run_test(size=(60, 30)) as pilot:
        sidebar = app.query_one(ConversationList)
        sidebar.option_list.focus()
        sidebar.option_list.highlighted = 1  # "Python help"
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, TextPromptScreen))
        app.screen.query_one("#answer", Input).value = "Sorting in Python"
        await pilot.press("enter")
        await until(pilot, lambda: len(app.posted) == 1)
        await pilot.press("n")
        await pilot.pause()
    assert store.get_conversation(ids["python"]).title == "Sorting in Python"
    renamed, new = app.posted
    assert isinstance(renamed, ConversationList.ConversationRenamed)
    assert renamed.title == "Sorting in Python"
    assert isinstance(new, ConversationList.NewConversationRequested)


async def test_delete_asks_first(store: Store, tmp_path: Path) -> None:
    ids = seed(store)
    app = Host(store, tmp_path)
    async with app.run_test(size=(60, 30)) as pilot:
        sidebar = app.query_one(ConversationList)
        sidebar.option_list.focus()
        sidebar.option_list.highlighted = 2  # "Trip planning"
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        await pilot.pause()
        assert store.count_conversations() == 3
        await pilot.press("delete")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await until(pilot, lambda: len(app.posted) == 1)
        assert ids["trip"] not in [option.id for option in sidebar.option_list.options]
    assert store.count_conversations() == 2
    [deleted] = app.posted
    assert isinstance(deleted, ConversationList.ConversationDeleted)
    assert deleted.conversation_id == ids["trip"]


async def test_export_to_markdown_never_overwrites(store: Store, tmp_path: Path) -> None:
    ids = seed(store)
    app = Host(store, tmp_path / "exports")
    async with app.run_test(size=(60, 30)) as pilot:
        sidebar = app.query_one(ConversationList)
        sidebar.option_list.focus()
        sidebar.option_list.highlighted = 2
        for _ in range(2):
            await pilot.press("e")
            await until(pilot, lambda: isinstance(app.screen, TextPromptScreen))
            await pilot.press("enter")
            await until(pilot, lambda: not isinstance(app.screen, TextPromptScreen))
            await pilot.pause()
        await until(pilot, lambda: len(app.posted) == 2)
    first, second = (m.path for m in app.posted)  # type: ignore[attr-defined]
    assert first == tmp_path / "exports" / f"trip-planning-{ids['trip'][:8]}.md"
    assert second != first and second.parent == first.parent
    body = first.read_text(encoding="utf-8")
    assert body.startswith("# Trip planning") and HINDI in body
    assert second.read_text(encoding="utf-8") == body


async def test_long_lists_draw_the_newest_and_say_so(store: Store, tmp_path: Path,
                                                     monkeypatch: Any) -> None:
    from tui_chat.ui.widgets import conversation_list

    monkeypatch.setattr(conversation_list, "MAX_SHOWN", 2)
    ids = seed(store)
    app = Host(store, tmp_path)
    async with app.run_test(size=(60, 30)) as pilot:
        sidebar = app.query_one(ConversationList)
        await pilot.pause()
        assert [o.id for o in sidebar.option_list.options] == [ids["nasty"], ids["python"]]
        status = str(sidebar.query_one("#conversation-status").render())
        assert status == "3 conversations; the newest 2 shown, search for the others"
        sidebar.query_one("#conversation-filter", Input).value = "trip"
        await until(pilot, lambda: sidebar.search_done)
        assert [o.id for o in sidebar.option_list.options] == [ids["trip"]]
