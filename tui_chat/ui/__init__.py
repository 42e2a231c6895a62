"""The Textual app: a thin layer over tui_chat.core. Importing it makes Rich and Textual
measure text with the terminal's cell widths (`cells.install`), before anything is measured,
and sets Textual's frame rate (FRAME_RATE), before Textual is imported."""

import os

FRAME_RATE = 240
"""Frames a second at most. A key typed within a frame's time of the last frame waits for
the next one: while a reply streams at full speed (a frame at every growth) a typed letter
showed 12 ms after the key in the median at Textual's 60, 2 ms at 120 and 240, and 22-26,
20 and 12-16 ms at the 95th percentile (benchmarks/bench_ui_stream.py, keyloop runs). Frames
come from what changes, far below the cap: the CPU at 100 chunks/s, idle with the cursor
blinking (0.4 %) and with the pointer sweeping the footer's keys (31 %) measured the same at
60, 120 and 240. Animations keep Textual's own 60. TEXTUAL_FPS, when the user sets it, wins."""
os.environ.setdefault("TEXTUAL_FPS", str(FRAME_RATE))

from tui_chat.ui import cells  # noqa: E402  (after the frame rate: it imports Rich only)

cells.install()
