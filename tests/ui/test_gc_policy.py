"""The app's garbage-collection policy (tui_chat/ui/gc_policy.py): what start-up, the warm-up
and a conversation shown built is frozen (full collections skip it), and a conversation left
behind is still reclaimed."""

from __future__ import annotations

import gc
import sys
import weakref

import pytest

from tests.ui.conftest import AppFactory, conversation, wait_until
from tui_chat.core.models import Conversation, Message, Role
from tui_chat.core.store import Store
from tui_chat.ui import gc_policy
from tui_chat.ui.widgets.message_view import MessageView


def frozen(thing: object) -> bool:
    """Tracked by the collector, yet in none of its collectable generations."""
    return gc.is_tracked(thing) and all(item is not thing for item in gc.get_objects())


def saved(store: Store, title: str) -> Conversation:
    chat = store.create_conversation(Conversation(title=title))
    store.add_message(Message(conversation_id=chat.id, role=Role.USER, content=f"{title} asked"))
    return chat


async def test_start_up_and_the_warm_up_are_frozen(make_app: AppFactory) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert gc.get_freeze_count() > 0
        assert frozen(conversation(app))  # built at start-up
        assert frozen(sys.modules["rich.markdown"].__dict__)  # imported by the warm-up


async def test_opening_a_conversation_freezes_it_and_reclaims_the_one_left(
        make_app: AppFactory, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gc_policy, "IDLE_BEFORE_RECLAIM", 0.05)
    first, second = saved(store, "first"), saved(store, "second")
    app = make_app(conversation=first.id)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert frozen(screen.query_one(MessageView))
        await screen.sidebar_actions.open(second.id, None)
        view = screen.query_one(MessageView)
        assert view.message.content == "second asked"
        await wait_until(pilot, lambda: not gc_policy.reclaim_is_due())  # nothing streams
        assert frozen(view)


class Cycle:
    def __init__(self) -> None:
        self.me = self


def test_a_conversation_left_is_reclaimed_though_it_was_frozen() -> None:
    """What the conversation shown held (widgets refer to their parents and back) becomes
    garbage only a full collection finds: it must not stay frozen for good."""
    gc_policy.after_start_up()
    gc_policy.reclaim()
    left = Cycle()
    gone = weakref.ref(left)
    gc.collect()  # the one shown, frozen by a full collection
    assert frozen(left)
    del left  # the user opened another conversation
    gc_policy.after_conversation_changed()
    assert gc_policy.reclaim_is_due()
    gc_policy.reclaim()  # what the screen runs when nothing streams
    assert gone() is None
    assert not gc_policy.reclaim_is_due()


def test_what_survives_a_full_collection_is_frozen() -> None:
    gc_policy.after_start_up()
    survivor = Cycle()
    assert not frozen(survivor)
    gc.collect()
    assert frozen(survivor)


def test_a_reclaim_is_due_once_the_frozen_generation_has_grown() -> None:
    gc_policy.reclaim()
    assert not gc_policy.reclaim_is_due()
    kept = [Cycle() for _ in range(gc.get_freeze_count() * gc_policy.RECLAIM_GROWTH)]
    gc.freeze()
    assert gc_policy.reclaim_is_due()
    del kept
    gc_policy.reclaim()
    assert not gc_policy.reclaim_is_due()


def test_a_reclaim_postponed_by_a_streaming_reply_is_overdue_at_its_end() -> None:
    gc_policy.reclaim()
    gc_policy.after_conversation_changed()
    assert gc_policy.reclaim_is_due() and not gc_policy.reclaim_is_overdue()
    gc_policy.postpone()
    assert gc_policy.reclaim_is_overdue()
    gc_policy.reclaim()
    assert not gc_policy.reclaim_is_overdue()


def test_a_start_up_with_collections_paused_resumes_them_and_freezes_what_it_built() -> None:
    """The command line pauses collections while the app starts (tui_chat/cli.py): the first
    frame resumes them, with start-up's objects frozen, not collected (they were never
    promoted: a collection then would be one pass over all of them)."""
    gc.disable()
    try:
        built = Cycle()
        gc_policy.after_start_up()
        assert gc.isenabled()
        assert frozen(built)
    finally:
        gc.enable()


def test_a_count_in_a_reclaim_sees_frozen_objects_and_no_callback_runs() -> None:
    class Thing:
        pass

    kept = Thing()
    gc.freeze()
    assert frozen(kept)
    calls: list[str] = []
    gc.callbacks.append(lambda phase, info: calls.append(phase))
    counted = gc_policy.reclaim_counting(
        lambda: sum(1 for item in gc.get_objects() if isinstance(item, Thing)))
    assert counted == 1 and not calls
    assert frozen(kept)  # frozen again after the count
    assert not gc_policy.reclaim_is_due()


async def test_the_end_of_a_reply_does_not_count_the_frozen_objects(
        make_app: AppFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Counting them walks them all (tens of ms after a long reply, on the event loop while
    the reply's end is drawn): whether a reclaim is due is asked once the app is idle, by the
    screen's idle check (a timer), and by nothing else. The test asks who counted, not when:
    on a slow machine the idle check may well have run by the time it looks."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = conversation(app)
        await app.workers.wait_for_complete()
        await pilot.pause()
        callers: list[list[str]] = []
        count = gc.get_freeze_count

        def spy() -> int:
            frame, chain = sys._getframe(1), []
            while frame is not None:
                chain.append(frame.f_code.co_name)
                frame = frame.f_back
            callers.append(chain)
            return count()

        monkeypatch.setattr(gc, "get_freeze_count", spy)
        await pilot.press("x", "enter")
        await wait_until(pilot, lambda: bool(screen.query(MessageView))
                         and screen.query(MessageView)[-1].message.role == Role.ASSISTANT
                         and not screen.streaming)
        await pilot.pause()
        assert [chain for chain in callers if "_reclaim_if_idle" not in chain] == []
