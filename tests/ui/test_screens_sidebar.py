"""The conversation sidebar over a real store: list, full-text filter, open, rename, delete,
export; untrusted titles drawn literally."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.message import Message as TextualMessage
from textual.widgets import Input

from tests.ui.conftest import AppFactory, conversation, wait_until
from tui_chat.core.models import Conversation, Message, Role
from tui_chat.core.store import Store
from tui_chat.ui.screens.confirm import ConfirmScreen, TextPromptScreen
from tui_chat.ui.widgets import conversation_list
from tui_chat.ui.widgets.conversation_list import ConversationList

NO_TODAY = datetime(2000, 1, 1, tzinfo=UTC)
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
    """The sidebar alone: what it posts is recorded, nothing is done with it."""

    def __init__(self, store: Store, export_dir: Path) -> None:
        super().__init__()
        self.store = store
        self.posted: list[TextualMessage] = []

    def compose(self) -> ComposeResult:
        sidebar = ConversationList(self.store, local_time=lambda moment: moment.astimezone(UTC))
        sidebar.now = lambda: NO_TODAY  # no row is today's: each shows its date
        yield sidebar

    def on_conversation_list_conversation_chosen(self, m: ConversationList.ConversationChosen
                                                 ) -> None:
        self.posted.append(m)

    def on_conversation_list_rename_requested(self, m: ConversationList.RenameRequested
                                              ) -> None:
        self.posted.append(m)

    def on_conversation_list_delete_requested(self, m: ConversationList.DeleteRequested
                                              ) -> None:
        self.posted.append(m)

    def on_conversation_list_export_requested(self, m: ConversationList.ExportRequested
                                              ) -> None:
        self.posted.append(m)

    def on_conversation_list_new_conversation_requested(
            self, m: ConversationList.NewConversationRequested) -> None:
        self.posted.append(m)


async def until(pilot: Any, predicate: Callable[[], bool]) -> None:
    await wait_until(pilot, predicate)  # a state; its bound is for a broken build only


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
        assert " ".join(first.split()).startswith("[bold red]x[/] ]0;pwned[@cli")  # literal
        assert "\x1b" not in "".join(shown(sidebar))
        assert re.search(r"…  [A-Z][a-z]{2} \d\d · 1 msg$", first)  # cut to fit, date, count
        assert re.search(r"^  Python help +[A-Z][a-z]{2} \d\d · 1 msg$", shown(sidebar)[1])
        assert app.is_running


async def test_a_row_is_one_line_or_two_and_shows_more_of_a_long_title(
        store: Store, tmp_path: Path) -> None:
    long = ("Explain the difference between asyncio and threads in Python for a scraper "
            "that fetches many pages")
    store.create_conversation(Conversation(title=long))
    for title in ("Short one", "परीक्षण रिपोर्ट: हिन्दी शीर्षक", "中文标题：边框测试"):
        conversation = store.create_conversation(Conversation(title=title))
        store.add_message(Message(conversation_id=conversation.id, role=Role.USER,
                                  content="hi", provider="sutra", model="sutra-v2"))
    app = Host(store, tmp_path)
    async with app.run_test(size=(60, 30)) as pilot:
        sidebar = app.query_one(ConversationList)
        await pilot.pause()
        width = sidebar.option_list.scrollable_content_region.width
        rows = {option.id: str(option.prompt).split("\n")
                for option in sidebar.option_list.options}
        assert all(1 <= len(lines) <= 2 for lines in rows.values()), rows
        short = next(lines for lines in rows.values() if "Short one" in lines[0])
        assert len(short) == 1 and re.search(r"Short one +[A-Z][a-z]{2} \d\d · 1 msg", short[0])
        wrapped = next(lines for lines in rows.values() if "Explain" in lines[0])
        assert len(wrapped) == 2 and re.search(r"…  [A-Z][a-z]{2} \d\d( · 0 msgs)?$", wrapped[1])
        seen = " ".join(" ".join(wrapped).split())
        assert seen.startswith("Explain the difference between asyncio")
        assert len(seen) > width  # more of it than the one line a row used to give it
        for option in sidebar.option_list.options:  # every line fits: nothing wraps again
            assert all(line.cell_length <= width
                       for line in option.prompt.split("\n"))  # type: ignore[union-attr]


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
        # The title drawn plain a moment ago is drawn again with its match marked.
        prompt = sidebar.option_list.options[0].prompt
        assert [(span.start, span.end) for span in prompt.spans  # type: ignore[union-attr]
                if span.style == "bold reverse"] == [(2, 8)]
        field.value = "zzzz nothing"
        await until(pilot, lambda: sidebar.search_done)
        assert sidebar.option_list.option_count == 0
        assert "Nothing matches." in str(sidebar.query_one("#conversation-status").render())


async def test_the_sidebar_only_posts_what_its_keys_ask_for(store: Store,
                                                             tmp_path: Path) -> None:
    ids = seed(store)
    app = Host(store, tmp_path)
    async with app.run_test(size=(60, 30)) as pilot:
        sidebar = app.query_one(ConversationList)
        sidebar.option_list.focus()
        sidebar.option_list.highlighted = 1  # "Python help"
        await pilot.press("r", "d", "e", "n")
        await until(pilot, lambda: len(app.posted) == 4)
        assert not isinstance(app.screen, ConfirmScreen | TextPromptScreen)  # no dialog here
    rename, delete, export, new = app.posted
    for asked, kind in ((rename, ConversationList.RenameRequested),
                        (delete, ConversationList.DeleteRequested),
                        (export, ConversationList.ExportRequested)):
        assert isinstance(asked, kind)
        assert (asked.conversation_id, asked.title) == (ids["python"], "Python help")
    assert isinstance(new, ConversationList.NewConversationRequested)
    assert store.count_conversations() == 3  # nothing was changed by the widget


async def open_sidebar_on(pilot: Any, row: int) -> ConversationList:
    await pilot.press("ctrl+b")
    screen = conversation(pilot.app)
    await until(pilot, lambda: screen.sidebar is not None
                and screen.sidebar.option_list.option_count > row)
    sidebar = screen.sidebar
    assert sidebar is not None
    sidebar.option_list.highlighted = row
    return sidebar


async def test_rename_asks_for_the_title_then_the_screen_saves_it(
        make_app: AppFactory, store: Store) -> None:
    ids = seed(store)
    app = make_app(conversation=ids["python"])
    async with app.run_test(size=(120, 30)) as pilot:
        await open_sidebar_on(pilot, 1)  # "Python help"
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, TextPromptScreen))
        app.screen.query_one("#answer", Input).value = "Sorting in Python"
        await pilot.press("enter")
        await until(pilot, lambda: "Sorting in Python" in str(
            conversation(app).query_one("#title-bar").render()))
    assert store.get_conversation(ids["python"]).title == "Sorting in Python"


async def test_delete_asks_first_and_the_open_conversation_is_replaced(
        make_app: AppFactory, store: Store) -> None:
    ids = seed(store)
    app = make_app(conversation=ids["trip"])
    async with app.run_test(size=(120, 30)) as pilot:
        screen = conversation(app)
        sidebar = await open_sidebar_on(pilot, 2)  # "Trip planning", the one on screen
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        await until(pilot, lambda: app.screen is screen)
        assert store.count_conversations() == 3
        await pilot.press("delete")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await until(pilot, lambda: ids["trip"] not in
                    [option.id for option in sidebar.option_list.options])
        assert not screen.workspace.session.is_saved  # a new, empty conversation
        assert not screen.message_list.messages
    assert store.count_conversations() == 2


async def test_export_to_markdown_never_overwrites(make_app: AppFactory, store: Store,
                                                   tmp_path: Path) -> None:
    ids = seed(store)
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        conversation(app).sidebar_actions.export_dir = tmp_path / "exports"
        await open_sidebar_on(pilot, 2)
        for count in (1, 2):
            await pilot.press("e")
            await until(pilot, lambda: isinstance(app.screen, TextPromptScreen))
            await pilot.press("enter")
            await until(pilot, lambda n=count: len(list_exports(tmp_path)) == n)  # type: ignore[misc]
        written = list_exports(tmp_path)
    first = tmp_path / "exports" / f"trip-planning-{ids['trip'][:8]}.md"
    assert first.name in written and len(written) == 2
    (second,) = [tmp_path / "exports" / name for name in written if name != first.name]
    body = first.read_text(encoding="utf-8")
    assert body.startswith("# Trip planning") and HINDI in body
    assert second.read_text(encoding="utf-8") == body
    assert first.stat().st_mode & 0o777 == 0o600


def list_exports(tmp_path: Path) -> list[str]:
    folder = tmp_path / "exports"
    return sorted(p.name for p in folder.glob("*.md")) if folder.exists() else []


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


async def test_the_mark_follows_the_conversation_on_screen(make_app: AppFactory,
                                                           store: Store) -> None:
    ids = seed(store)
    app = make_app(conversation=ids["python"])
    async with app.run_test(size=(120, 30)) as pilot:
        sidebar = await open_sidebar_on(pilot, 0)

        def marked() -> list[str | None]:
            return [o.id for o in sidebar.option_list.options if str(o.prompt).startswith("●")]

        assert marked() == [ids["python"]]
        await pilot.press("ctrl+n")
        await until(pilot, lambda: marked() == [])
        sidebar.option_list.focus()
        sidebar.option_list.highlighted = 2  # "Trip planning"
        await pilot.press("enter")
        await until(pilot, lambda: marked() == [ids["trip"]])


async def test_the_search_count_counts_conversations_not_hits(store: Store, tmp_path: Path
                                                              ) -> None:
    from tests.ui.conftest import wait_until

    ids = []
    for index in range(4):  # 320 matching messages: more than one page of hits
        chat = Conversation(title=f"chat {index}")
        store.import_conversation(chat, [Message(conversation_id=chat.id, role=Role.USER,
                                                 content=f"zebra {n}") for n in range(80)])
        ids.append(chat.id)
    app = Host(store, tmp_path)
    async with app.run_test(size=(60, 30)) as pilot:
        sidebar = app.query_one(ConversationList)
        sidebar.query_one("#conversation-filter", Input).value = "zebra"
        await wait_until(pilot, lambda: sidebar.search_done)
        status = str(sidebar.query_one("#conversation-status").render())
        assert status == "4 matching"
        assert [o.id for o in sidebar.option_list.options] == ids[::-1]


async def test_counts_are_read_for_the_rows_drawn_and_again_after_a_reload(
        store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conversation_list, "MAX_SHOWN", 2)
    ids = []
    for index, title in enumerate(("Alpha", "Beta", "Gamma", "Delta")):  # 1 to 4 messages
        created = store.create_conversation(Conversation(title=title))
        for k in range(index + 1):
            store.add_message(Message(conversation_id=created.id, role=Role.USER,
                                      content=f"m{k}"))
        ids.append(created.id)
    asked: list[list[str]] = []
    count = store.message_counts

    def recorded(conversation_ids: list[str]) -> dict[str, int]:
        asked.append(list(conversation_ids))
        return count(conversation_ids)

    monkeypatch.setattr(store, "message_counts", recorded)

    def counts(sidebar: ConversationList) -> list[tuple[str, str]]:
        rows = [re.fullmatch(r"  (\w+) +\w+ \d\d · (\d+) msgs?", row) for row in shown(sidebar)]
        return [(row.group(1), row.group(2)) if row else ("?", "?") for row in rows]

    app = Host(store, tmp_path)
    async with app.run_test(size=(60, 30)) as pilot:
        sidebar = app.query_one(ConversationList)
        await pilot.pause()
        assert counts(sidebar) == [("Delta", "4"), ("Gamma", "3")]
        assert asked == [[ids[3], ids[2]]]  # the rows drawn, not the whole list
        sidebar.query_one("#conversation-filter", Input).value = "alpha"
        await until(pilot, lambda: sidebar.search_done)
        assert counts(sidebar) == [("Alpha", "1")]
        assert asked[1:] == [[ids[0]]]  # counted once, however often drawn
        store.add_message(Message(conversation_id=ids[0], role=Role.USER, content="again"))
        sidebar.reload()
        await until(pilot, lambda: sidebar.search_done and counts(sidebar) != [("Alpha", "1")])
        assert counts(sidebar) == [("Alpha", "2")]


async def test_today_shows_the_time_every_row_its_count_and_snippets_are_plain(
        store: Store, tmp_path: Path) -> None:
    """Issue 25: rows easy to scan. Today's rows say the time, every row (however long its
    title) its message count, and a search hit's snippet reads as text, not Markdown."""
    now = datetime(2026, 11, 20, 15, 30, tzinfo=UTC)
    long = "A very long title about asyncio and threads that needs both of its two lines here"
    for title, when, text in (
            ("Yesterday's", now - timedelta(days=1), "hello"),
            (long, now - timedelta(days=3), "hello"),
            ("Today's", now - timedelta(hours=2, minutes=5),
             "## Setup\nUse **pip** and see [the docs](https://example.com/docs) for `venv`.")):
        created = store.create_conversation(Conversation(title=title, created=when,
                                                         updated=when))
        for _ in range(12):
            store.add_message(Message(conversation_id=created.id, role=Role.USER,
                                      content=text, created=when))
        store.update_conversation(store.get_conversation(created.id).model_copy(
            update={"updated": when}))
    app = Host(store, tmp_path)
    async with app.run_test(size=(60, 30)) as pilot:
        sidebar = app.query_one(ConversationList)
        sidebar.now = lambda: now
        sidebar.reload()
        await pilot.pause()
        rows = shown(sidebar)
        assert re.fullmatch(r"  Today's +13:25 · 12 msgs", rows[0]), rows
        assert re.fullmatch(r"  Yesterday's +Nov 19 · 12 msgs", rows[1]), rows
        assert re.search(r"…  Nov 17 · 12 msgs$", rows[2]), rows
        sidebar.query_one("#conversation-filter", Input).value = "docs"
        await until(pilot, lambda: sidebar.search_done)
        snippet = shown(sidebar)[0].split("\n")[-1].strip()
        assert snippet.endswith("and see the docs for venv."), repr(snippet)
        assert not any(mark in snippet for mark in ("#", "**", "](", "`")), snippet
