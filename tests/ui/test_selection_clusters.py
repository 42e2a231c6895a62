"""A selection snaps to grapheme clusters: a drag that begins or ends inside a Devanagari
conjunct or syllable, an emoji ZWJ sequence or a flag takes the whole cluster, in what is
painted and in what is copied."""

from __future__ import annotations

import pytest
from textual.geometry import Offset, Region
from textual.selection import Selection

from tests.ui.conftest import AppFactory, conversation
from tests.ui.test_selection import drag
from tui_chat.core.models import Conversation, Message, Role
from tui_chat.core.store import Store
from tui_chat.ui.widgets.message_view import MessageView
from tui_chat.ui.widgets.selectable import snap_end, snap_start, snapped

LINE = "flag 🇮🇳 क्षत्रिय 👨‍👩‍👧 end"


@pytest.mark.parametrize(("text", "inside", "cluster"), [
    ("क्षत्रिय", 1, "क्ष"),          # after the consonant, before its virama
    ("क्षत्रिय", 2, "क्ष"),          # after the virama: the conjunct is one cluster
    ("परीक्षण", 2, "री"),            # between a consonant and its vowel sign
    ("👨‍👩‍👧", 3, "👨‍👩‍👧"),               # inside a ZWJ sequence
    ("🇮🇳🇯🇵", 1, "🇮🇳"),               # between the two halves of a flag
    ("e\u0301x", 1, "e\u0301"),      # a combining accent
])
def test_an_offset_inside_a_cluster_moves_out_to_its_edges(text: str, inside: int,
                                                           cluster: str) -> None:
    start, end = snap_start(text, inside), snap_end(text, inside)
    assert text[start:end] == cluster


def test_offsets_on_cluster_edges_and_ascii_stay() -> None:
    assert [snap_start("abc", x) for x in range(4)] == [0, 1, 2, 3]
    assert [snap_end("ab🇮🇳", x) for x in (0, 1, 2, 4)] == [0, 1, 2, 4]


def test_a_selection_over_rows_snaps_its_two_ends() -> None:
    rows = ["x क्षत्रिय", LINE]
    flag = LINE.index("🇮🇳")
    chosen = snapped(Selection(Offset(3, 0), Offset(flag + 1, 1)), rows)
    assert chosen == Selection(Offset(2, 0), Offset(flag + 2, 1))
    assert snapped(Selection(None, None), rows) == Selection(None, None)


def seed(store: Store) -> str:
    chat = store.create_conversation(Conversation(title="Clusters"))
    store.add_message(Message(conversation_id=chat.id, role=Role.USER, content=LINE))
    return chat.id


async def test_a_drag_copies_whole_clusters(make_app: AppFactory, store: Store) -> None:
    app = make_app(conversation=seed(store))
    async with app.run_test(size=(80, 30)) as pilot:
        [view] = conversation(app).query(MessageView)
        copied: list[str | None] = []
        # Cells 6, 9 and 16: the flag's second half, the ष of क्ष, the girl of the family.
        for start, end in [(0, 6), (6, 9), (9, 16), (16, 17)]:
            await drag(pilot, view, (start, 1), view, (end, 1))
            copied.append(app.screen.get_selected_text())
            if start == 6:  # painted whole too: both halves of the flag on the selection
                row = list(view.render_lines(Region(0, 0, *view.size))[1])
                halves = [seg.style.bgcolor for seg in row if seg.style
                          for char in seg.text if char in "🇮🇳"]
                plain = next(seg.style for seg in row if "end" in seg.text)
                assert plain is not None and len(halves) == 2
                assert halves[0] == halves[1] != plain.bgcolor
        assert copied == ["flag 🇮🇳", "🇮🇳 क्ष", "क्षत्रिय 👨‍👩‍👧", "👨‍👩‍👧"]
