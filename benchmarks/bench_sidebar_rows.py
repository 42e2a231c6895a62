"""Drawing the sidebar's rows, and finding grapheme clusters for a selection.

Rows: the prompts of 300 rows (what `ConversationList._draw` builds at each keystroke in the
filter, MAX_SHOWN of them) in Hindi, English and Chinese, at the default width: the old
two-line row (title, then a dim line of details) against `title_lines` (one line, two for a
long title, the details right-aligned), its cache cleared each time (every row new, as for a
new filter). Alternated, so that a slow minute weighs on both alike.
Target: the new rows cost no more than 2 × the old.

Clusters: `wcwidth.iter_graphemes` against the `regex` module's `\\X` (when installed) over a
200-character mixed line, per line (a selection's first paint of a row).
Run: `python -m benchmarks sidebar_rows`.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable

from textual.content import Content

from benchmarks.common import Figure, figure, info, median, report, timer
from tui_chat.core.text import one_line
from tui_chat.ui import cells
from tui_chat.ui.highlight import highlighted_content
from tui_chat.ui.widgets.conversation_list import _title_lines, title_lines

WIDTH = 33  # the list's cells at the sidebar's width of 36
TITLES = [f"परीक्षण रिपोर्ट {i}: हिन्दी शीर्षक" if i % 3 == 0 else
          f"Explain asyncio and threads in Python, question number {i}" if i % 3 == 1 else
          f"中文标题 {i}：边框测试" for i in range(300)]
LINE = ("flag 🇮🇳 क्षत्रिय 👨‍👩‍👧 end, नमस्ते दुनिया and some English words here " * 3)[:200]


def _old_rows() -> None:
    for title in TITLES:
        Content.assemble(("  ", "bold"),
                         highlighted_content(title, [], style="bold", limit=WIDTH - 2),
                         ("\n  " + one_line("Nov 28 12:30 · 2 msgs · sutra-v2", WIDTH), "dim"))


def _new_rows() -> None:
    _title_lines.cache_clear()
    for title in TITLES:
        title_lines("  ", highlighted_content(title, [], style="bold", limit=200),
                    ("Nov 28", "2 msgs", "sutra-v2"), WIDTH)


def _ms(work: Callable[[], None], times: int = 5) -> float:
    began = timer()
    for _ in range(times):
        work()
    return (timer() - began) / times * 1000


def _us_per_line(work: Callable[[], object], times: int = 500) -> float:
    began = timer()
    for _ in range(times):
        work()
    return (timer() - began) / times * 1e6


def run() -> dict[str, Figure]:
    cells.install()
    old, new = [], []
    for _ in range(7):
        old.append(_ms(_old_rows))
        new.append(_ms(_new_rows))
    figures = {"sidebar.old_rows_ms": info(median(old), "ms"),
               "sidebar.new_rows_ms": info(median(new), "ms"),
               "sidebar.rows_ratio": figure(median(new) / median(old), 2.0, "x")}
    from wcwidth import iter_graphemes

    figures["clusters.wcwidth_us"] = info(median(
        [_us_per_line(lambda: list(iter_graphemes(LINE))) for _ in range(5)]), "us")
    if importlib.util.find_spec("regex") is not None:
        import regex

        figures["clusters.regex_us"] = info(median(
            [_us_per_line(lambda: regex.findall(r"\X", LINE)) for _ in range(5)]), "us")
    return figures


if __name__ == "__main__":
    report("sidebar_rows", run())
