"""Import and prime, in a worker thread after start-up, what the first reply would otherwise
load on the event loop: the HTTP stack (kept off the start-up path), the code highlighter
(about 80 modules: loaded on the event loop, they stall key presses during the first streamed
reply; benchmarks/bench_ui_stream.py measures key presses while a reply streams) and the
validators of the records the first exchange validates or dumps (none is built before the
first frame: see core.models; the first one built loads pydantic's plugin machinery too)."""

from __future__ import annotations

import importlib
import io
import sys

from tui_chat.ui import gc_policy

_MODULES = ("tui_chat.core.client", "tui_chat.core.model_catalog", "tui_chat.ui.widgets.reply_view",
            "tui_chat.ui.widgets.markdown_render",
            "anyio._backends._asyncio", "h11", "httpcore", "certifi", "concurrent.futures")
_SAMPLE = "Warm **up** `code`:\n\n```python\nprint('hi')\n```\n\n- item\n"


SWITCH_INTERVAL = 0.0005
"""Seconds this thread may hold the GIL while the event loop waits for it (Python's default
is 0.005). The warm-up starts with the first frame, when the user types the first keys, and
each step of the loop's that echoes a key (a read, a callback, a frame) waits for the GIL
once: at the default, up to 5 ms each, a first key was echoed tenths of a second late."""


def warm_up() -> None:
    """Best effort: any failure here only means the first reply loads it instead."""
    default = sys.getswitchinterval()
    sys.setswitchinterval(min(default, SWITCH_INTERVAL))
    try:
        _warm_up()
    finally:
        sys.setswitchinterval(default)


def _warm_up() -> None:
    for name in _MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            continue
    from rich.console import Console
    from rich.markdown import Markdown

    console = Console(file=io.StringIO(), width=80, color_system="truecolor")
    for theme in ("monokai", "friendly"):
        console.print(Markdown(_SAMPLE, code_theme=theme))
    from tui_chat.ui import colour_roles

    colour_roles.prime()  # the theme in use's code colours (monokai's or friendly's, adjusted)
    build_validators()
    from tui_chat.core.tokens import estimate_tokens

    estimate_tokens("é")  # compiles the patterns of the scripts other than ASCII (core.tokens)
    gc_policy.after_warm_up()


def build_validators() -> None:
    """Build, now, the validators a first exchange would build on the event loop (and import
    pydantic with the first: the records import none, see core.records)."""
    from tui_chat.core import config, models, records

    for model in (models.Parameters, models.Conversation, models.Message, models.Usage,
                  models.ChatMessage, models.ModelInfo, config.Timeouts, config.Settings):
        records.adapter(model)
