"""Switching branches in the app, headless at 120×40: a conversation whose active path has
1,000 messages (benchmarks/textgen.py's history text), with two branch points:

- at its last reply, a second reply (what regenerate leaves): ←/→ there;
- at its tenth message, a reply with another branch of 10 messages below it: switching there
  replaces the 990 messages below the branch point with 10, and back.

Each figure: from the key press (sent as the terminal driver delivers it, to the focused
message list with the message selected) to the first frame painted (ui_harness) showing the
other alternative in the selected message's place and the new path below it (the message
list holding the whole new path). Target: ≤ 50 ms each. ROUNDS of each per app, RUNS fresh
apps; medians. Run: `python -m benchmarks ui_branches`.
"""

from __future__ import annotations

import asyncio
import random
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.common import Figure, figure, info, machine_reference, median, report, timer
from benchmarks.textgen import history_text
from benchmarks.ui_harness import FrameClock, running_app, send_key
from tui_chat.core.models import Conversation, Message, Role
from tui_chat.core.store import Store
from tui_chat.ui.screens.conversation import ConversationScreen
from tui_chat.ui.widgets.conversation_list import ConversationList

RUNS = 3
ROUNDS = 5
PATH = 1_000
DEEP_AT = 9  # the tenth message (an assistant reply) has a sibling with its own branch
OTHER_BRANCH = 10


def build(path: Path) -> tuple[str, list[str], list[str]]:
    """The conversation; (its id, the ids of the two alternatives at the last reply, at the
    tenth message)."""
    rng = random.Random(11)
    with Store.open(path) as store:
        chat = store.create_conversation(Conversation(title="Branched", provider="chutes",
                                                      model="bench/1"))
        ids: list[str] = []
        for index in range(PATH):
            user, answer = history_text(rng, index // 2)
            role = Role.USER if index % 2 == 0 else Role.ASSISTANT
            message = store.add_message(Message(
                conversation_id=chat.id, role=role, content=user if role is Role.USER
                else answer, provider="chutes" if role is Role.ASSISTANT else None,
                model="bench/1" if role is Role.ASSISTANT else None))
            ids.append(message.id)
        _, answer = history_text(rng, 10_000)

        def reply(parent: str, text: str) -> str:
            return store.add_message(Message(
                conversation_id=chat.id, role=Role.ASSISTANT, content=text, provider="chutes",
                model="bench/1", parent_id=parent), activate=False).id

        last = reply(ids[-2], answer)
        deep = reply(ids[DEEP_AT - 1], answer)
        parent = deep
        for index in range(OTHER_BRANCH):
            user, answer = history_text(rng, 20_000 + index)
            role = Role.USER if index % 2 == 0 else Role.ASSISTANT
            parent = store.add_message(Message(
                conversation_id=chat.id, role=role, content=user if role is Role.USER
                else answer, parent_id=parent), activate=False).id
        store.activate(ids[-1])
    return chat.id, [ids[-1], last], [ids[DEEP_AT], deep]


def shows(screen: ConversationScreen, index: int, message_id: str, total: int) -> Any:
    messages = screen.message_list

    def check() -> bool:
        view = messages._view_at(index)
        return (len(messages.messages) == total and view is not None and view.is_mounted
                and view.message.id == message_id and view.position is not None)
    return check


async def switch_rounds(url: str, folder: Path, store_path: Path, chat_id: str,
                        alternatives: list[str], index: int, totals: list[int]
                        ) -> list[float]:
    async with running_app(url, folder, store_path=store_path) as (app, pilot, screen):
        clock = FrameClock(app)
        messages = screen.message_list
        loaded = clock.when(lambda: len(messages.messages) == PATH)
        screen.post_message(ConversationList.ConversationChosen(chat_id))
        await asyncio.wait_for(loaded, 60)
        await messages.reveal(alternatives[0])
        messages.focus()
        await pilot.pause()
        times: list[float] = []
        for _ in range(ROUNDS):
            for key, target, total in (("right", alternatives[1], totals[1]),
                                       ("left", alternatives[0], totals[0])):
                await pilot.pause(0.1)
                seen = clock.when(shows(screen, index, target, total))
                began = timer()
                send_key(app, key)
                times.append(await asyncio.wait_for(seen, 30) - began)
        return times


def run() -> dict[str, Figure]:
    reference = machine_reference()
    with tempfile.TemporaryDirectory(prefix="tui-chat-bench-") as name:
        folder = Path(name)
        store_path = folder / "branches.sqlite3"
        chat_id, at_end, deep = build(store_path)
        url = "http://127.0.0.1:9/v1"  # nothing is sent
        end_runs, deep_runs = [], []
        for _ in range(RUNS):
            end_runs.append(asyncio.run(switch_rounds(url, folder, store_path, chat_id, at_end,
                                                      PATH - 1, [PATH, PATH])))
            deep_runs.append(asyncio.run(switch_rounds(
                url, folder, store_path, chat_id, deep, DEEP_AT,
                [PATH, DEEP_AT + 1 + OTHER_BRANCH])))
    for label, runs in (("at the end", end_runs), ("at message 10", deep_runs)):
        print(f"  {label}: {[[round(v * 1000) for v in r] for r in runs]} ms", flush=True)
    return {
        "ui.branches_machine_reference_s": info(reference, "s"),
        "ui.switch_branch_at_end_ms": figure(median([1000 * median(r) for r in end_runs]),
                                             50, "ms"),
        "ui.switch_branch_deep_ms": figure(median([1000 * median(r) for r in deep_runs]),
                                           50, "ms"),
    }


if __name__ == "__main__":
    report("ui_branches", run())
