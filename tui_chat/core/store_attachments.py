"""Attachments in the store: each message's list (name, kind, size… as JSON in
`messages.attachments`, read with the message) and their content (the `attachments` table, read
only when a request or an export needs it). Rows go with their message (ON DELETE CASCADE).
A part of `Store` (its base class) for the reading; `save` is called inside the store's own
write transactions."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterable, Sequence
from functools import cache
from typing import TYPE_CHECKING

from tui_chat.core.models import Attachment, AttachmentInfo

if TYPE_CHECKING:
    from pydantic import TypeAdapter

_BATCH = 500


@cache
def _infos() -> TypeAdapter[list[AttachmentInfo]]:
    """Built on first use, not at import: pydantic is not imported on the app's start-up
    path (core.records), where no message has been read yet."""
    from pydantic import TypeAdapter

    return TypeAdapter(list[AttachmentInfo])


def infos_from(column: str | None) -> list[AttachmentInfo]:
    """The list kept in `messages.attachments` (empty when none, or unreadable)."""
    if not column:
        return []
    from pydantic import ValidationError

    try:
        return _infos().validate_json(column)
    except ValidationError:
        return []


def save(conn: sqlite3.Connection, message_id: str, attachments: Sequence[Attachment]) -> None:
    """Store `attachments` for the message just inserted, in order."""
    if not attachments:
        return
    conn.executemany("INSERT OR REPLACE INTO attachments (message_id, position, text, data) "
                     "VALUES (?, ?, ?, ?)",
                     [(message_id, index, a.text, a.data) for index, a in enumerate(attachments)])
    infos = [a.info().model_dump(mode="json") for a in attachments]
    conn.execute("UPDATE messages SET attachments = ? WHERE id = ?",
                 (json.dumps(infos, ensure_ascii=False), message_id))


class AttachmentQueries:
    """Reading attachments' content; `Store` provides the connection."""

    if TYPE_CHECKING:
        def _read(self) -> contextlib.AbstractContextManager[sqlite3.Connection]: ...

    def attachments_of(self, message_ids: Iterable[str]) -> dict[str, list[Attachment]]:
        """Each of these messages' attachments with their content, in order (messages
        without any are left out)."""
        ids = list(dict.fromkeys(message_ids))
        found: dict[str, list[Attachment]] = {}
        with self._read() as conn:
            for start in range(0, len(ids), _BATCH):
                batch = ids[start:start + _BATCH]
                marks = ",".join("?" * len(batch))
                rows = conn.execute(
                    f"SELECT m.id AS id, m.attachments AS infos, a.position AS position, "
                    f"a.text AS text, a.data AS data FROM messages m JOIN attachments a "
                    f"ON a.message_id = m.id WHERE m.id IN ({marks}) "
                    "ORDER BY m.id, a.position", batch).fetchall()
                for row in rows:
                    infos = infos_from(row["infos"])
                    if row["position"] >= len(infos):
                        continue
                    info = infos[row["position"]]
                    found.setdefault(row["id"], []).append(Attachment.model_validate({
                        **info.model_dump(), "text": row["text"],
                        "data": bytes(row["data"]) if row["data"] is not None else None}))
        return found
