"""The Textual app: a thin layer over tui_chat.core. Importing it makes Rich and Textual
measure text with the terminal's cell widths (`cells.install`), before anything is measured,
and sets Textual's frame rate (FRAME_RATE), before Textual is imported."""

import os

FRAME_RATE = 120
"""Frames a second at most. A key typed within a frame's time of the last frame waits for
the next one: at Textual's 60, while a reply streams (a frame at every growth) a typed letter
showed 12 ms after the key in the median, 22-26 ms at the 95th percentile; at 120, 2 ms and
15-19 ms (benchmarks/bench_ui_stream.py), with the same CPU at 100 chunks/s (frames come
from what changes, far below the cap). TEXTUAL_FPS, when the user sets it, wins."""
os.environ.setdefault("TEXTUAL_FPS", str(FRAME_RATE))

from tui_chat.ui import cells  # noqa: E402  (after the frame rate: it imports Rich only)

cells.install()
