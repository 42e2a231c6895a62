"""Deterministic content for snapshot tests and `screenshots/make.py`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tui_chat.core.models import Conversation, Message, MessageStatus, Role, Usage
from tui_chat.core.store import Store

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)

PYTHON_ANSWER = """\
Use `sorted()` with a **key** function; it returns a new list and leaves the original alone:

```python
people = [("Asha", 31), ("Bruno", 25), ("Chen", 28)]
by_age = sorted(people, key=lambda person: person[1])
print(by_age)  # [('Bruno', 25), ('Chen', 28), ('Asha', 31)]
```

- `reverse=True` sorts from the largest down.
- `list.sort()` sorts **in place** and returns `None`.
"""

HINDI_ANSWER = """\
**नमस्ते!** भारत की राजधानी **नई दिल्ली** है। 🇮🇳

- சென்னை (Chennai) தமிழ்நாட்டின் தலைநகரம்.
- 東京 (Tokyo) は日本の首都です。
"""

STREAM_PIECES = [
    "Here is a small ", "**async** fetcher ", "with `httpx`:\n\n",
    "```python\n", "import asyncio\n", "import httpx\n\n",
    "async def fetch(url: str) -> str:\n",
    "    async with httpx.AsyncClient() as client:\n",
    "        response = await client.get(url)\n",
    "        response.raise_for_status()\n",
    "        return response.text\n", "```\n\n", "Call it with `asyncio.run(",
]


def seed_demo(store: Store) -> Conversation:
    """Three saved conversations; returns the one to open (a Python question, then Hindi)."""
    for index, title in enumerate(["Trip ideas for Kerala", "Regex for ISO dates"]):
        other = store.create_conversation(Conversation(
            title=title, created=T0 - timedelta(days=index + 1),
            updated=T0 - timedelta(days=index + 1)))
        store.add_message(Message(conversation_id=other.id, role=Role.USER, content=title,
                                  created=T0 - timedelta(days=index + 1)))
        store.update_conversation(other)  # the store stamps "updated" with the real time
    chat = store.create_conversation(Conversation(title="Sorting a list of tuples in Python",
                                                  created=T0, updated=T0))
    messages = [
        Message(conversation_id=chat.id, role=Role.USER,
                content="How do I sort a list of tuples by the second item?"),
        Message(conversation_id=chat.id, role=Role.ASSISTANT, content=PYTHON_ANSWER,
                provider="chutes", model="deepseek-ai/DeepSeek-V3-0324",
                usage=Usage(prompt_tokens=18, completion_tokens=96, total_tokens=114),
                time_to_first_token=0.42, tokens_per_second=61.0),
        Message(conversation_id=chat.id, role=Role.USER,
                content="भारत की राजधानी क्या है? [bold]literal[/] stays literal."),
        Message(conversation_id=chat.id, role=Role.ASSISTANT, content=HINDI_ANSWER,
                provider="sutra", model="sutra-v2", status=MessageStatus.COMPLETE),
    ]
    for offset, message in enumerate(messages):
        message.created = T0 + timedelta(minutes=offset)
        store.add_message(message)
    chat.updated, chat.provider, chat.model = T0 + timedelta(minutes=3), "sutra", "sutra-v2"
    store.update_conversation(chat)
    return chat


HINDI_AGAIN = """\
भारत की राजधानी **नई दिल्ली** है; यह दिल्ली राष्ट्रीय राजधानी क्षेत्र में है।
"""

COMPARE_PROMPT = "In one paragraph: what does Python's GIL do?"
COMPARE_CHUTES = [
    "The **GIL** (global interpreter lock) lets only one thread ",
    "run Python bytecode at a time, which keeps CPython's memory management simple. ",
    "Threads still help with I/O: the lock is released while waiting.\n\n",
    "```python\nfrom concurrent.futures import ThreadPoolExecutor\n```\n",
]
COMPARE_SUTRA = [
    "GIL एक ताला है जो एक समय में केवल **एक thread** को Python bytecode ",
    "चलाने देता है। I/O के लिए threads फिर भी उपयोगी हैं; ",
    "CPU-bound काम के लिए `multiprocessing` चुनें।",
]


def seed_branches(store: Store, chat: Conversation) -> Message:
    """A second answer (from another model) to the demo's last question, now the active one:
    the header of the last reply says ‹ 2/2 ›."""
    path = store.get_messages(chat.id)
    again = Message(conversation_id=chat.id, role=Role.ASSISTANT, content=HINDI_AGAIN,
                    provider="sutra", model="sutra-r0", parent_id=path[-2].id,
                    created=T0 + timedelta(minutes=4))
    return store.add_message(again)
