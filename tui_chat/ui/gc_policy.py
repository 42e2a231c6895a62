"""When the app tells Python's garbage collector to stop looking at what it already holds.

A full (generation 2) collection visits every container object the process tracks, and the
event loop stands still while it runs: key presses and frames wait. After start-up that is
Textual, Rich, the app's widgets and, once the warm-up thread is done, Markdown, pygments
and httpx: hundreds of thousands of objects that live as long as the process, visited again
by every full collection during a streamed reply (`ui.full_gc_longest_ms` in
benchmarks/bench_ui_stream.py).

`gc.freeze()` moves every object tracked at that moment into a permanent generation that
collections skip. Frozen objects are still freed by reference counting; only a reference
cycle among them is never reclaimed. So the app freezes at the moments when what exists is
what stays:

- after the first frame (start-up's objects: modules, classes, the first screen);
- after the warm-up thread has imported and primed what the first reply needs;
- after a conversation is shown (its messages and mounted views live while it is shown).

A conversation left behind would then be cyclic garbage that no collection sees (its
widgets refer to their parents and back). So when another conversation is shown, once its
first frame is painted, everything is unfrozen, collected in full, and frozen again: one
full collection at a moment the user has just chosen to change what is on screen, instead
of one in the middle of the next reply. The other freezes first run a young collection
(generations 0 and 1: cheap, only recent objects) so that recent garbage is not frozen with
the survivors.

Frozen or not: `gc.get_objects()` lists only the collectable generations.
"""

from __future__ import annotations

import gc


def freeze_survivors() -> None:
    """Collect the young generations, then freeze everything that survived."""
    gc.collect(1)
    gc.freeze()


def after_start_up() -> None:
    """The first frame is painted: start-up's objects stay for the life of the process."""
    freeze_survivors()


def after_warm_up() -> None:
    """The warm-up thread has loaded what the first reply needs (ui/warmup.py)."""
    freeze_survivors()


def after_conversation_changed() -> None:
    """Another conversation is shown (or a new one begun): reclaim the one that went, and
    freeze the one shown, with everything else that survives."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
