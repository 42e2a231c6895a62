"""Drawing a 1 MB tool result (issue 23: "a tool result of 1 MB is drawn folded without a
frame over 50 ms").

What a frame pays for such a result: its `MessageView` made and drawn at 100 cells (the
finished-message path: `render_message` → `result_rows` → Rich lines), folded (two rows, as
it is first shown) and expanded (`t`: the result cut at 20,000 characters), each from a
cleared line cache. Also the live rows of a call whose arguments stream 1 MB in
10,000 fragments, its rows made again at each (`LiveCalls.add` and `rows`: all of them, the
whole stream, against the same 50 ms). Median of 7 runs of each.
Target: each ≤ 50 ms.
Run: `python -m benchmarks tool_rows`.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console

from benchmarks.common import Figure, figure, median, report, timer
from tui_chat.core.events import ToolCallDelta
from tui_chat.core.models import Message, MessageStatus, Role, ToolRun
from tui_chat.ui.widgets import message_view
from tui_chat.ui.widgets.message_view import MessageView
from tui_chat.ui.widgets.tool_rows import LiveCalls

RESULT = ('{"line": "' + "tool output, " * 80 + '"}\n') * 1000  # about 1 MB, many lines
WIDTH = 100


def _message(number: int) -> Message:
    return Message(id=f"m{number}", conversation_id="c", role=Role.TOOL, tool_call_id="call_0",
                   content=RESULT[:1_000_000], status=MessageStatus.COMPLETE,
                   tool_run=ToolRun(status="ok", name="big__get", server="big", seconds=0.3))


def _drawn(expanded: bool) -> Callable[[int], None]:
    console = Console(width=WIDTH)
    options = console.options.update_width(WIDTH)

    def draw(number: int) -> None:
        message_view.LINES.clear()
        view = MessageView(_message(number))
        view.show_reasoning = expanded
        view.update(view._renderable())
        view.cached.prepare(console, options)

    return draw


FRAGMENT = 100


def _live(number: int) -> None:
    """Per fragment of 100 characters, what `LiveCalls.add` does but the widget's update."""
    live = LiveCalls()
    live._show = lambda: None  # type: ignore[method-assign]  # unmounted: no update
    live.add(ToolCallDelta(index=0, id="call_0", name="big__put", arguments=""))
    arguments = RESULT[:1_000_000]
    for start in range(0, len(arguments), FRAGMENT):
        live.add(ToolCallDelta(index=0, id=None, name=None,
                               arguments=arguments[start:start + FRAGMENT]))
        live.rows()


def _ms(work: Callable[[int], None]) -> float:
    times = []
    for number in range(7):
        began = timer()
        work(number)
        times.append((timer() - began) * 1000)
    return median(times)


def run() -> dict[str, Figure]:
    return {"tool_rows.folded_1mb_ms": figure(_ms(_drawn(False)), 50, "ms"),
            "tool_rows.expanded_1mb_ms": figure(_ms(_drawn(True)), 50, "ms"),
            "tool_rows.live_fragment_us": figure(
                _ms(_live) * 1000 / (len(RESULT[:1_000_000]) / FRAGMENT), 100, "us")}


if __name__ == "__main__":
    report("tool_rows", run())
