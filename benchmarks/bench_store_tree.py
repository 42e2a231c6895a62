"""Conversation trees in the store: paging the active path, switching branches and adding a
sibling reply on a 10,000-message conversation, and migrating a store from the schema before
trees.

The store holds 300 conversations × 50 messages beside one conversation of 10,000 messages
(one path, with a two-message branch at message 10) and one of 2,000.

Targets: the last page (50 messages) of the 10,000-message path ≤ 5 ms, and ≤ 1.5 × the same
page of the 2,000-message one (the cost follows the page, not the conversation); a page from
the middle ≤ 5 ms; the siblings' positions of a page ≤ 5 ms; switching to the short branch
and back to the 10,000-message one ≤ 50 ms; adding a sibling reply at the end of it (what
regenerate does) ≤ 50 ms. For reference: the whole 10,000-message path, and the migration
of a copy of the store in the schema before trees. Medians of several runs. Run:
`python -m benchmarks store_tree`.
"""

from __future__ import annotations

import random
import shutil
import sqlite3
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from benchmarks.bench_store import _messages, _text
from benchmarks.common import Figure, figure, info, machine_reference, median, report, timer
from tui_chat.core.models import Conversation, Message, Role
from tui_chat.core.store import Store

FILLER = 300
HUGE = 10_000
BIG = 2_000
PAGE = 50


def generate(store: Store) -> tuple[str, str, str]:
    """Returns the ids of the 10,000- and 2,000-message conversations, and of the branch's
    first message."""
    rng = random.Random(7)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for index in range(FILLER):
        when = start + timedelta(minutes=index)
        conversation = Conversation(title=_text(rng, 5), created=when, updated=when)
        store.import_conversation(conversation, _messages(rng, conversation.id, 50, when))
    ids = []
    for count in (HUGE, BIG):
        conversation = Conversation(title=f"{count} messages")
        store.import_conversation(conversation, _messages(rng, conversation.id, count, start))
        store.get_messages(conversation.id, limit=1)  # linked into one path on first read
        ids.append(conversation.id)
    tenth = store.get_messages(ids[0])[9]
    branch = store.add_message(Message(conversation_id=ids[0], parent_id=tenth.parent_id,
                                       role=tenth.role, content="another way"),
                               activate=False)
    store.add_message(Message(conversation_id=ids[0], parent_id=branch.id,
                              role=Role.ASSISTANT, content="and its reply"), activate=False)
    return ids[0], ids[1], branch.id


def _median_ms(action: Callable[[], object], runs: int) -> float:
    action()
    times = []
    for _ in range(runs):
        began = timer()
        action()
        times.append((timer() - began) * 1000)
    return median(times)


def _switch(store: Store, branch: str, huge: str) -> Callable[[], object]:
    long_branch = store.siblings(branch).ids[0]

    def there_and_back() -> None:
        store.activate(branch)
        store.activate(long_branch)
        assert len(store.get_messages(huge, limit=PAGE)) == PAGE

    return there_and_back


def _regenerate(store: Store, huge: str) -> Callable[[], object]:
    prompt = store.get_messages(huge, limit=2)[0]

    def add_sibling() -> None:
        store.add_message(Message(conversation_id=huge, parent_id=prompt.id,
                                  role=Role.ASSISTANT, content="again"))

    return add_sibling


def _migration_s(path: Path, folder: Path) -> tuple[float, int]:
    """Seconds to open a copy of the store taken back to schema 3, before trees (its columns
    dropped)."""
    old = folder / "schema3.sqlite3"
    shutil.copy(path, old)
    conn = sqlite3.connect(old)
    conn.executescript("""
        DROP INDEX messages_children;
        DROP INDEX messages_links;
        ALTER TABLE messages DROP COLUMN parent_id;
        ALTER TABLE messages DROP COLUMN active_child_id;
        ALTER TABLE messages DROP COLUMN partial_in_context;
        ALTER TABLE conversations DROP COLUMN active_root_id;
        ALTER TABLE conversations DROP COLUMN active_leaf_id;
        ALTER TABLE conversations DROP COLUMN forked_from;
        ALTER TABLE conversations DROP COLUMN forked_from_message;
        PRAGMA user_version = 3;
    """)
    count = int(conn.execute("SELECT count(*) FROM messages").fetchone()[0])
    conn.close()
    began = timer()
    Store.open(old).close()
    return timer() - began, count


def measure(store: Store, huge: str, big: str, branch: str, folder: Path) -> dict[str, Figure]:
    reference = machine_reference()
    page_huge = _median_ms(lambda: store.get_messages(huge, limit=PAGE), 30)
    page_big = _median_ms(lambda: store.get_messages(big, limit=PAGE), 30)
    middle = store.get_messages(huge)[HUGE // 2].id
    page_middle = _median_ms(lambda: store.get_messages(huge, limit=PAGE, before_id=middle), 30)
    whole = _median_ms(lambda: store.get_messages(huge), 5)
    ids = [m.id for m in store.get_messages(huge, limit=PAGE)]
    positions = _median_ms(lambda: store.positions(huge, ids), 30)
    switch = _median_ms(_switch(store, branch, huge), 10)
    regenerate = _median_ms(_regenerate(store, huge), 10)
    migrate_s, migrated = _migration_s(store.path, folder)
    return {
        "tree.page_of_10000_ms": figure(page_huge, 5, "ms"),
        "tree.page_of_2000_ms": info(page_big, "ms"),
        "tree.page_10000_over_2000_ratio": figure(page_huge / page_big, 1.5, "x"),
        "tree.page_middle_of_10000_ms": figure(page_middle, 5, "ms"),
        "tree.positions_of_a_page_ms": figure(positions, 5, "ms"),
        "tree.switch_branch_and_back_10000_ms": figure(switch, 50, "ms"),
        "tree.add_sibling_reply_at_10000_ms": figure(regenerate, 50, "ms"),
        "tree.whole_path_of_10000_ms": info(whole, "ms"),
        f"tree.migrate_{migrated}_messages_s": info(migrate_s, "s"),
        "tree.machine_reference_s": info(reference, "s"),
    }


def run() -> dict[str, Figure]:
    with tempfile.TemporaryDirectory(prefix="tui-chat-bench-") as name:
        folder = Path(name)
        with Store.open(folder / "tree.sqlite3") as store:
            began = timer()
            huge, big, branch = generate(store)
            print(f"generated {FILLER * 50 + HUGE + BIG + 2} messages in "
                  f"{timer() - began:.1f} s", flush=True)
            return measure(store, huge, big, branch, folder)


if __name__ == "__main__":
    report("store_tree", run())
