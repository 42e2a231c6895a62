"""The rows of tool calls and results (widgets/tool_rows.py): a 1 MB result folded to two
rows and, expanded, cut with a marker; untrusted names, arguments and results drawn as the
characters they are; "tools are not enabled" only when the calls were not answered."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text
from textual.app import App, ComposeResult

from tui_chat.core.models import Message, MessageStatus, Role, ToolCall, ToolRun
from tui_chat.ui.widgets.message_view import MessageView, render_message
from tui_chat.ui.widgets.tool_rows import (
    SHOWN_CHARS,
    LiveCalls,
    ResultSummary,
    call_rows,
    result_rows,
    running_row,
)

HOSTILE = "[bold]x[/] \x1b]0;owned\x07\x1b[2J [@click=app.quit]q[/]"


def tool_message(content: str, **kwargs: object) -> Message:
    return Message(conversation_id="c", role=Role.TOOL, tool_call_id="call_k",
                   content=content, status=kwargs.pop("status", MessageStatus.COMPLETE),
                   tool_run=ToolRun(status="ok", name="time__get_current_time",
                                    server="time", seconds=0.2), **kwargs)  # type: ignore[arg-type]


def reply_with_calls(arguments: str = '{"timezone": "Asia/Kolkata"}') -> Message:
    return Message(conversation_id="c", role=Role.ASSISTANT, content="",
                   status=MessageStatus.COMPLETE,
                   tool_calls=[ToolCall(id="call_k", name="time__get_current_time",
                                        arguments=arguments)])


def plain(rows: list[object]) -> str:
    return "\n".join(row.plain for row in rows if isinstance(row, Text | ResultSummary))


def test_a_megabyte_result_is_folded_to_two_short_rows() -> None:
    rows = result_rows(tool_message("y" * 1_000_000), expanded=False)
    text = plain(rows)
    assert len(rows) == 2 and len(text) < 300
    assert text.startswith("▶ 🔧 time.get_current_time · 0.2 s · ok")


def test_expanded_a_megabyte_result_is_cut_with_a_marker() -> None:
    rows = result_rows(tool_message("y" * 1_000_000), expanded=True)
    text = plain(rows)
    assert len(text) < SHOWN_CHARS + 200
    assert text.endswith(f"… {1_000_000 - SHOWN_CHARS:,} more characters not shown")


def test_a_megabyte_result_view_is_short() -> None:
    view = MessageView(tool_message("y" * 1_000_000))
    console = Console(width=100)
    view.cached.prepare(console, console.options.update_width(100))
    assert len(view.cached.lines) <= 3


def test_hostile_result_and_arguments_are_characters() -> None:
    text = plain(result_rows(tool_message(HOSTILE), expanded=True))
    assert "[bold]x[/]" in text and "[@click=app.quit]q[/]" in text and "\x1b" not in text
    calls = plain(call_rows(reply_with_calls(HOSTILE), run=True, expanded=True))
    assert "[bold]x[/]" in calls and "\x1b" not in calls and "\x07" not in calls


def test_an_interrupted_call_says_so() -> None:
    message = tool_message("", status=MessageStatus.STREAMING)
    assert plain(result_rows(message, expanded=False)).endswith("interrupted before its result")


def test_calls_say_not_enabled_only_when_they_were_not_answered() -> None:
    reply = reply_with_calls()
    answered = plain(call_rows(reply, run=True, expanded=False))
    assert answered.startswith("▶ The model called a tool (time__get_current_time).")
    assert '🔧 time__get_current_time {"timezone": "Asia/Kolkata"}' in answered
    assert "not enabled" in plain(call_rows(reply, run=False, expanded=False))
    expanded = plain(call_rows(reply, run=True, expanded=True))
    assert '"timezone": "Asia/Kolkata"' in expanded and expanded.startswith("▼")


def test_a_tool_message_has_no_author_line() -> None:
    console = Console(width=100, record=True)
    console.print(render_message(tool_message("12:00")))
    assert "assistant" not in console.export_text()


def test_live_calls_keep_the_start_of_streaming_arguments_and_their_length() -> None:
    from tui_chat.core.events import ToolCallDelta
    from tui_chat.ui.widgets.tool_rows import LiveCalls

    live = LiveCalls()
    live._show = lambda: None  # type: ignore[method-assign]  # not mounted
    live.add(ToolCallDelta(index=0, id="call_0", name="big__", arguments=""))
    live.add(ToolCallDelta(index=0, id=None, name="put", arguments=""))
    for _ in range(10_000):
        live.add(ToolCallDelta(index=0, id=None, name=None, arguments="[b]x\x1b"))
    live.add(ToolCallDelta(index=1, id="call_1", name="time__now", arguments="{}"))
    _, start, length = live.calls[0]
    assert len(start) <= 400 and length == 50_000
    rows = live.rows().plain.split("\n")
    assert rows[0].startswith("🔧 big__put [b]x[b]x") and rows[0].endswith("(50,000 characters)")
    assert "\x1b" not in rows[0]
    assert rows[1] == "🔧 time__now {}"


def test_the_running_row_names_server_dot_tool_and_its_time() -> None:
    assert running_row("time__get_current_time", "time", 1.23).plain == (
        "🔧 running time.get_current_time… 1.2 s · Esc cancels")
    assert running_row("odd\x1b[2J[/]", None, 0).plain == (
        "🔧 running odd[2J[/]… 0.0 s · Esc cancels")


async def test_the_running_row_counts_the_time_while_the_call_runs() -> None:
    now = [100.0]
    live = LiveCalls(clock=lambda: now[0])

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield live

    async with Host().run_test() as pilot:
        live.run("time__get_current_time", "time")

        async def shows(text: str) -> None:
            for _ in range(500):
                if text in str(live.content):
                    return
                await pilot.pause()
            raise AssertionError(f"{text!r} never shown: {live.content!r}")

        await shows("🔧 running time.get_current_time… 0.0 s · Esc cancels")
        now[0] = 101.25  # nothing else happens: the widget's own timer redraws it
        await shows("🔧 running time.get_current_time… 1.2 s · Esc cancels")
        now[0] = 163.0
        await shows("… 63.0 s · Esc cancels")


def test_call_rows_keep_to_the_reading_width() -> None:
    """Issue 25: with `reading_width = 60` the result row wrapped at 60 while the call row
    under the reply ran 71 columns (and the expanded calls the whole width)."""
    console = Console(width=120, record=True)
    reply = reply_with_calls('{"timezone": "Asia/Kolkata", "format": "' + "x" * 200 + '"}')
    for run in (True, False):
        for expanded in (True, False):
            with console.capture() as capture:
                console.print(render_message(reply, reading_width=60, calls_run=run,
                                             show_reasoning=expanded))
            lines = capture.get().splitlines()
            assert any("time__get_current_time" in line for line in lines) or not run
            assert max(Text(line.rstrip()).cell_len for line in lines) <= 60, (run, expanded)


def drawn(renderable: object, width: int) -> list[str]:
    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return console.export_text().rstrip("\n").split("\n")


def test_the_folded_row_names_the_call_and_its_arguments_as_the_issue_shows() -> None:
    rows = result_rows(tool_message("{}"), expanded=False,
                       arguments='{"timezone":"Asia/Kolkata"}')
    assert drawn(rows[0], 120) == [
        '▶ 🔧 time.get_current_time {"timezone": "Asia/Kolkata"} · 0.2 s · ok '
        "(t shows the result)"]


def test_long_arguments_are_cut_to_fit_and_the_status_still_shows() -> None:
    arguments = '{"query": "' + "word " * 200 + '"}'
    for width in (40, 60, 100):
        (line,) = drawn(result_rows(tool_message("{}"), expanded=False,
                                    arguments=arguments)[0], width)
        assert len(line) <= width and line.endswith(("· 0.2 s · ok", "(t shows the result)"))
        assert "· 0.2 s · ok" in line and ("…" in line or width < 50)  # 40: no room


def test_hostile_arguments_in_the_row_are_characters() -> None:
    row = result_rows(tool_message("{}"), expanded=False, arguments=HOSTILE)[0]
    (line,) = drawn(row, 200)
    assert "[bold]x[/]" in line and "\x1b" not in line and "\x07" not in line


def test_expanded_the_row_shows_the_arguments_whole() -> None:
    rows = result_rows(tool_message("the time"), expanded=True,
                       arguments='{"timezone": "Asia/Kolkata"}')
    assert '"timezone": "Asia/Kolkata"' in plain(rows) and "the time" in plain(rows)


def test_expanded_the_arguments_and_the_result_are_labelled_and_set_apart() -> None:
    """Unfolded, the arguments and the result are two labelled blocks, each line indented
    under its label: two JSON objects one after the other read as one otherwise."""
    rows = result_rows(tool_message('{\n  "hour": 9\n}'), expanded=True,
                       arguments='{"timezone": "Asia/Kolkata"}')
    assert plain(rows).splitlines()[1:] == [
        "  arguments:", "    {", '      "timezone": "Asia/Kolkata"', "    }",
        "  result:", "    {", '      "hour": 9', "    }"]
    [marker] = [line for line in plain(result_rows(tool_message("y" * 30_000), expanded=True,
                                                   arguments="{}")).splitlines()
                if "more characters" in line]
    assert marker.startswith("    … ")


def test_expanded_calls_keep_their_arguments_indented_under_each_name() -> None:
    rows = call_rows(reply_with_calls('{"timezone": "Asia/Kolkata"}'), run=True, expanded=True)
    assert plain(rows).splitlines()[1:] == [
        "  🔧 time__get_current_time", "    {", '      "timezone": "Asia/Kolkata"', "    }"]


def test_the_message_list_finds_each_results_arguments_by_its_reply() -> None:
    from tui_chat.core.tool_turns import call_arguments

    first, second = reply_with_calls('{"a": 1}'), reply_with_calls('{"b": 2}')
    one, two = tool_message("1"), tool_message("2")  # both answer "call_k"
    found = call_arguments([first, one, second, two])
    assert found == {one.id: '{"a": 1}', two.id: '{"b": 2}'}


def test_the_running_row_shows_the_servers_progress_and_its_message() -> None:
    from tui_chat.core.tool_exchange import RunProgress

    progress = RunProgress()
    row = running_row("everything__longRunningOperation", "everything", 1.2, progress)
    assert row.plain == "🔧 running everything.longRunningOperation… 1.2 s · Esc cancels"
    progress.update(3, 10, "Step 3 of 10 " + HOSTILE)
    row = running_row("everything__longRunningOperation", "everything", 1.2, progress)
    first, second = row.plain.split("\n")
    assert first == "🔧 running everything.longRunningOperation… 3/10 · 1.2 s · Esc cancels"
    assert second.strip().startswith("Step 3 of 10 [bold]x[/]") and "\x1b" not in second
