"""The warm-up loads the HTTP stack and the highlighter off the event loop."""

from __future__ import annotations

import subprocess
import sys


def test_warm_up_imports_what_the_first_reply_needs() -> None:
    code = ("import sys; from tui_chat.ui.warmup import warm_up; warm_up(); "
            "print(all(m in sys.modules for m in ('httpcore', 'h11', 'pygments.lexers')))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, timeout=60)
    assert result.stdout.strip() == "True"


def test_warm_up_builds_the_validators_a_first_exchange_needs() -> None:
    code = ("from tui_chat.core import models, records, tokens\n"
            "from tui_chat.ui.warmup import warm_up\n"
            "print(records.built(models.Message)); warm_up()\n"
            "print(records.built(models.Message), records.built(models.Parameters),"
            " tokens._script_patterns.cache_info().currsize > 0)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, timeout=60)
    assert result.stdout.split() == ["False", "True", "True", "True"]


def test_warm_up_hands_the_gil_back_quickly_and_restores_the_interval() -> None:
    """While it runs, the event loop waits at most SWITCH_INTERVAL for the GIL (the first keys
    a user types are echoed while it runs); afterwards Python's interval is as it was."""
    code = ("import sys; from tui_chat.ui import warmup\n"
            "seen = []\n"
            "warmup._warm_up = lambda: seen.append(sys.getswitchinterval())\n"
            "before = sys.getswitchinterval(); warmup.warm_up()\n"
            "print(seen == [warmup.SWITCH_INTERVAL], sys.getswitchinterval() == before)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, timeout=60)
    assert result.stdout.split() == ["True", "True"]
