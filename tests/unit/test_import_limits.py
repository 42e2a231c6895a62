"""Imports obey the same limits as attaching: an imported attachment larger than attaching
allows, or whose declared size or type lies, is refused with one sentence and nothing is
written (before, such files imported, and a later request sent a body far past the
per-message limit)."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

from tests.unit.test_export_tree import v2
from tui_chat.core import export
from tui_chat.core.attachments import MAX_IMAGE_BYTES, MAX_TEXT_BYTES
from tui_chat.core.errors import UsageError
from tui_chat.core.store import Store

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 64
JPEG = b"\xff\xd8\xff" + b"\0" * 64


def text(content: str, **fields: Any) -> dict[str, Any]:
    return {"name": "notes.txt", "kind": "text", "mime": "text/plain",
            "size": len(content.encode()), "language": "", "tokens": 0, "text": content,
            "data": None, **fields}


def image(data: bytes, **fields: Any) -> dict[str, Any]:
    return {"name": "p.png", "kind": "image", "mime": "image/png", "size": len(data),
            "language": "", "tokens": 0, "text": None,
            "data": base64.b64encode(data).decode(), **fields}


def with_attachments(*attachments: dict[str, Any]) -> str:
    return v2([{"id": "q", "role": "user", "content": "see", "attachments": list(attachments)}])


REFUSED = {
    "a text past the limit": (with_attachments(text("x" * (MAX_TEXT_BYTES + 1))),
                              "a text attachment of 1.0 MB is larger than the 1.0 MB "
                              "attaching allows"),
    "an image past the limit": (with_attachments(image(PNG + b"\0" * MAX_IMAGE_BYTES)),
                                "an image attachment of 5.0 MB is larger than the 5.0 MB "
                                "attaching allows"),
    "a message past its limit": (with_attachments(*[image(PNG + b"\0" * (4 << 20))] * 3),
                                 "the message's attachments come to 12.0 MB, more than the "
                                 "10.0 MB one message may carry"),
    "a text's size that lies": (with_attachments(text("hello", size=1)),
                                'the attachment says it is 1 bytes ("size") but holds 5'),
    "an image's size that lies": (with_attachments(image(PNG, size=10)),
                                  'the attachment says it is 10 bytes ("size") but holds 72'),
    "an image's type that lies": (with_attachments(image(JPEG)),
                                  'the image says it is "image/png" ("mime") but its bytes '
                                  "are image/jpeg"),
    "a text's type that lies": (with_attachments(text("hi", mime="image/png")),
                                'a text attachment\'s "mime" is "text/plain", not "image/png"'),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_an_attachment_attaching_would_refuse_is_refused(case: str, target: Store,
                                                         tmp_path: Path) -> None:
    document, problem = REFUSED[case]
    path = tmp_path / "f.json"
    path.write_text(document, encoding="utf-8")
    with pytest.raises(UsageError) as raised:
        export.import_file(target, path)
    assert problem in raised.value.message
    assert raised.value.message.endswith("; nothing was imported.")
    assert "\n" not in raised.value.message
    assert target.list_conversations() == []


def test_an_honest_attachment_imports_and_its_tokens_are_counted_again(
        target: Store, tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_text(with_attachments(text("word " * 400, tokens=1), image(PNG, tokens=7)),
                    encoding="utf-8")
    export.import_file(target, path)
    stored = target.get_message("q").attachments
    assert [a.size for a in stored] == [2000, len(PNG)]
    assert stored[0].tokens > 100 and stored[1].tokens > 7
