"""When the app tells Python's garbage collector to stop looking at what it already holds.

A full (generation 2) collection visits every container object the process tracks, and the
event loop stands still while it runs: key presses and frames wait. A streamed reply keeps
hundreds of thousands of them (each drawn row is a Strip with its segments, styles and seven
small caches) on top of start-up's (Textual, Rich, pygments, httpx), so without this a full
collection during a long reply visited all of them (`ui.full_gc_longest_ms` in
benchmarks/bench_ui_stream.py).

`gc.freeze()` moves every object tracked at that moment into a permanent generation that
collections skip. Frozen objects are still freed by reference counting; only a reference
cycle among them is never reclaimed. So the app freezes:

- after the first frame and after the warm-up thread (start-up's objects stay for good);
- at the end of every full collection: what survived it is alive, so each full collection
  visits only what was made since the last one. With full collections every FULL_EVERY
  collections of generation 1 (Python's default is 10), that is a few tens of thousands of
  objects, whatever the length of the reply or the conversation.

What dies after it was frozen and is held in a cycle (a Textual widget refers to its parent
and back: the live view of each reply, a conversation left behind) then waits in the frozen
generation. `reclaim()` (unfreeze, collect in full, freeze again) frees it, when it is due
(another conversation was shown, or the frozen generation has grown RECLAIM_GROWTH times
since the last reclaim) and nothing is streaming, IDLE_BEFORE_RECLAIM seconds after a
conversation is shown or a reply ends (ui/screens/conversation.py): not at once, where it
would delay the frames of the conversation just opened and the keys that follow. When a reply
was streaming then, the end of that reply runs it (replies back to back, each in a new
conversation, otherwise piled up 4.7 MB a reply in benchmarks/bench_ui_memory.py).

Frozen or not: `gc.get_objects()` lists only the collectable generations.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import TypeVar

RECLAIM_GROWTH = 2
IDLE_BEFORE_RECLAIM = 5.0
"""Seconds after a reply or a conversation shown, with no reply streaming then, before a due
reclaim runs."""
T = TypeVar("T")

_last_reclaim = {"frozen": 0, "pending": 0, "postponed": 0}

FULL_EVERY = 4
"""Collections of generation 1 between two full ones (Python's default: 10)."""


def freeze_survivors() -> None:
    """Collect the young generations, then freeze everything that survived."""
    gc.collect(1)
    gc.freeze()


def _freeze_after_full_collection(phase: str, info: dict[str, int]) -> None:
    if phase == "stop" and info.get("generation") == 2:
        gc.freeze()


def after_start_up() -> None:
    """The first frame is painted: start-up's objects stay for the life of the process.
    When the command line paused collections for start-up (tui_chat/cli.py), they resume
    here, and what start-up built is frozen as it is: never promoted, it all sits in the
    youngest generation, and collecting it now would be one pass over every object at the
    first frame (start-up's garbage held in cycles waits for the next reclaim)."""
    if gc.isenabled():
        freeze_survivors()
    else:
        gc.freeze()
        gc.enable()
    _last_reclaim["frozen"] = gc.get_freeze_count()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_EVERY)
    if _freeze_after_full_collection not in gc.callbacks:
        gc.callbacks.append(_freeze_after_full_collection)


def after_warm_up() -> None:
    """The warm-up thread has loaded what the first reply needs (ui/warmup.py)."""
    freeze_survivors()
    _last_reclaim["frozen"] = gc.get_freeze_count()


def after_conversation_changed() -> None:
    """Another conversation is shown (or a new one begun): the one that went is to be
    reclaimed (see `reclaim_is_due`), which freezes the one shown (so does any full
    collection before it). Nothing runs here, before the conversation's first frame."""
    _last_reclaim["pending"] = 1


def reclaim() -> None:
    """Unfreeze, collect in full and freeze again: the one long pause, kept for moments when
    nothing waits on the app."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    _last_reclaim["frozen"] = gc.get_freeze_count()
    _last_reclaim["pending"] = 0
    _last_reclaim["postponed"] = 0


def reclaim_counting(count: Callable[[], T]) -> T:
    """`reclaim`, with `count` run while nothing is frozen (gc.get_objects() leaves frozen
    objects out) and no collector callback (this policy's, a benchmark's pause probe) runs:
    for measurements that count live objects."""
    hooks = gc.callbacks[:]
    gc.callbacks.clear()
    try:
        gc.unfreeze()
        gc.collect()
        counted = count()
        gc.freeze()
        _last_reclaim.update(frozen=gc.get_freeze_count(), pending=0, postponed=0)
    finally:
        gc.callbacks.extend(hooks)
    return counted


def postpone() -> None:
    """A due reclaim found a reply streaming: the end of that reply runs it (is_overdue)."""
    _last_reclaim["postponed"] = 1


def reclaim_is_overdue() -> bool:
    """Due, and postponed once already: replies follow each other with no idle moment, so
    the end of a reply runs it rather than let what died frozen pile up."""
    return bool(_last_reclaim["postponed"]) and reclaim_is_due()


def reclaim_is_due() -> bool:
    """Has another conversation been shown, or the frozen generation grown RECLAIM_GROWTH
    times, since the last reclaim? (What died frozen, e.g. the live view of each reply.)
    Counting the frozen objects walks them all (tens of ms after a long reply): ask when
    nothing waits on the app."""
    return bool(_last_reclaim["pending"]) or (
        gc.get_freeze_count() > RECLAIM_GROWTH * max(_last_reclaim["frozen"], 1))
