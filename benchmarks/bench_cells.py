"""Measuring text in cells: Rich's `cell_len` with Rich's own table, with tui-chat's table
(tui_chat/ui/cells.py: the same function, another table), and the `wcwidth` package's
`wcswidth` (its C extension where built), uncached and behind the same kind of cache.

`cell_len` runs for every segment of every frame. The figures are per call, over a mix of
English, Hindi, Tamil, Chinese and emoji strings of 4 to 80 characters: "first" measures each
string once (cold caches), "again" measures them again (what a frame mostly does).
Target: tui-chat's table costs no more than 1.2 × Rich's own, both cold and cached.
Run: `python -m benchmarks.bench_cells`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import lru_cache

import rich._unicode_data
import rich.cells

from benchmarks.common import Figure, figure, info, median, report, timer
from tui_chat.ui import cells

_VOCABULARY = ("the reply model stream token answer terminal नमस्ते दुनिया परीक्षण हिन्दी क्षत्रिय "
         "வணக்கம் தமிழ் মাতৃভাষা 你好 世界 模型 👍 🇮🇳 👨\u200d👩\u200d👧 ❤️")
WORDS = _VOCABULARY.split()
STRINGS = 4_000


def _strings(seed: int) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 12)))
            for _ in range(STRINGS)]


def _per_call(measure: Callable[[str], int], strings: list[str],
              reset: Callable[[], None]) -> tuple[float, float]:
    """Microseconds a call: the first pass over `strings` (after `reset`), then a second."""
    reset()
    start = timer()
    for text in strings:
        measure(text)
    middle = timer()
    for text in strings:
        measure(text)
    end = timer()
    return (middle - start) / len(strings) * 1e6, (end - middle) / len(strings) * 1e6


def _medians(runs: list[tuple[float, float]]) -> tuple[float, float]:
    return median([first for first, _ in runs]), median([again for _, again in runs])


def _clear_rich() -> None:
    rich.cells.get_character_cell_size.cache_clear()
    rich.cells.cached_cell_len.cache_clear()


def run() -> dict[str, Figure]:
    import wcwidth

    strings = _strings(7)
    theirs, ours = [], []
    for _ in range(7):  # alternated, so that a slow minute weighs on both alike
        rich.cells.__dict__["load_cell_table"] = rich._unicode_data.load  # Rich's own table
        theirs.append(_per_call(rich.cells.cell_len, strings, _clear_rich))
        cells.install(cells.CellModel(spacing_marks=False))  # forces a fresh install
        cells.install()
        ours.append(_per_call(rich.cells.cell_len, strings, _clear_rich))
    rich_first, rich_again = _medians(theirs)
    ours_first, ours_again = _medians(ours)

    cached_wcswidth = lru_cache(4096)(wcwidth.wcswidth)
    plain_first, _ = _medians([_per_call(wcwidth.wcswidth, strings, lambda: None)
                               for _ in range(7)])
    cached_first, cached_again = _medians([_per_call(cached_wcswidth, strings,
                                                     cached_wcswidth.cache_clear)
                                           for _ in range(7)])
    return {
        "cells.rich_table_first_us": info(rich_first, "us"),
        "cells.rich_table_again_us": info(rich_again, "us"),
        "cells.our_table_first_us": info(ours_first, "us"),
        "cells.our_table_again_us": info(ours_again, "us"),
        "cells.first_ratio": figure(ours_first / rich_first, 1.2, "x"),
        "cells.again_ratio": figure(ours_again / rich_again, 1.2, "x"),
        "cells.wcswidth_us": info(plain_first, "us"),
        "cells.wcswidth_cached_first_us": info(cached_first, "us"),
        "cells.wcswidth_cached_again_us": info(cached_again, "us"),
        "cells.wcwidth_c_extension": info(float(bool(wcwidth.HAS_C_EXTENSION)), ""),
    }


if __name__ == "__main__":
    report("cells", run())
