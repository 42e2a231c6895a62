"""Conversations in many scripts (Hindi, Tamil, Chinese, emoji), for the tests that check
that every border stays in place: in tmux (test_tmux_borders.py) and in snapshots."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tui_chat.core.models import Conversation, Message, Role
from tui_chat.core.store import Store

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)

TABLE_ANSWER = """\
**परीक्षण** का सारांश, हर भाषा में: 🇮🇳 👨‍👩‍👧 ❤️ 👍🏽

| भाषा | शब्द | அர்த்தம் | 中文 |
| --- | --- | --- | --- |
| हिन्दी | परीक्षण | சோதனை | 测试 |
| தமிழ் | நன்றி | நன்றி | 谢谢 |
| বাংলা | ভাষা | மொழி | 语言 |
| emoji | 👍🏽 ❤️ | 🇮🇳 | 👨‍👩‍👧 |

- क्षत्रिय, हिन्दी, महाराष्ट्र: संयुक्ताक्षर और मात्राएँ।
- வணக்கம்! எப்படி இருக்கிறீர்கள்?
- 你好，世界。这是一个很长的中文句子，用来测试换行是否正确，不会超出边框。
"""

TITLES = ("परीक्षण रिपोर्ट: हिन्दी शीर्षक", "தமிழ் உரையாடல் வணக்கம்", "中文标题：边框测试",
          "Emoji 🇮🇳 👨‍👩‍👧 ❤️ 👍🏽 flags", "বাংলা ভাষা পরীক্ষা")


def seed_scripts(store: Store) -> Conversation:
    """A conversation per title, at fixed times; returns the one holding the table (the
    newest)."""
    ids = []
    for title in TITLES:
        conversation = store.create_conversation(Conversation(title=title))
        store.add_message(Message(conversation_id=conversation.id, role=Role.USER,
                                  content=f"{title}: परीक्षण करें", created=T0))
        ids.append(conversation.id)
    store.add_message(Message(conversation_id=ids[0], role=Role.ASSISTANT,
                              content=TABLE_ANSWER, provider="sutra", model="sutra-v2",
                              created=T0 + timedelta(minutes=1)))
    for index, conversation_id in enumerate(ids):  # the store stamps "updated" with now
        when = T0 + timedelta(hours=len(ids) - index)
        store.update_conversation(store.get_conversation(conversation_id).model_copy(
            update={"updated": when, "created": T0}))
    return store.get_conversation(ids[0])
