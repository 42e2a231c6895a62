"""A reply of every kind of block, for the reading-width tests and snapshots: prose long enough
to wrap on a wide terminal, a list, a quote, a table wider than the reading width, code."""

from __future__ import annotations

from datetime import timedelta

from tests.ui.demo import T0
from tui_chat.core.models import Conversation, Message, Role
from tui_chat.core.store import Store

PROSE = ("Wide terminals are common, and a paragraph that runs from one edge of a 200-column "
         "screen to the other is hard to read: by the end of a line the eye has lost the start "
         "of the next one. So the text of a message wraps at a reading width, and only the "
         "blocks that need the room take it.")
TABLE = "\n".join([
    "| script | sample | what the row checks in this deliberately wide table |",
    "| --- | --- | --- |",
    "| Devanagari | परीक्षण | a spacing vowel sign such as ी takes a cell of its own in the "
    "count the terminal keeps |",
    "| Chinese | 中文 | two cells a character, as every terminal draws it, at any width, in any "
    "table of any size |",
    ""])
LIST_ITEM = ("A list item wraps at the same reading width as the paragraphs around it do, "
             "however wide the terminal is and however long the item grows.")
QUOTE = ("A quote, too, wraps at the reading width: its bar on the left, its text beside it, "
         "its lines as short as the paragraphs' lines.")
ANSWER = f"""\
{PROSE}

- {LIST_ITEM}
- A short one.

> {QUOTE}

{TABLE}
```python
print("code keeps its lines whole")
```

After the code, prose again.
"""
QUESTION = "How does tui-chat lay out a reply on a wide terminal?"


def seed_reading(store: Store) -> Conversation:
    """One question and its answer (ANSWER); returns the conversation."""
    chat = store.create_conversation(Conversation(title="Reading width", created=T0,
                                                  updated=T0))
    store.add_message(Message(conversation_id=chat.id, role=Role.USER, content=QUESTION,
                              created=T0))
    store.add_message(Message(conversation_id=chat.id, role=Role.ASSISTANT, content=ANSWER,
                              provider="chutes", model="deepseek-ai/DeepSeek-V3-0324",
                              created=T0 + timedelta(minutes=1)))
    return chat
