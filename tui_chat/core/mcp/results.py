"""A tool's result as text for the model (and for the user, folded under the call).

Each block of the result's content becomes text: text as it is; structured content as
indented JSON (in place of the text block that repeats it, as servers are asked to send
one; alone when there is no text; left out when a text block says it in words); an image
or audio as a line that names its type and size (the model gets no pixels through a tool
message); a resource link as its name and URI (`[link: NAME <URI>]`, which the app offers to
open: `result_links`); an embedded resource as its
text, or a line naming it. A result marked `isError` says so first. A text longer than the
limit is cut, and the cut is marked where it happened: never silently.

For the user, each image is also kept whole as an attachment of the tool message
(`read_result`'s files: `image-1.png`, …), when its bytes fit within the same limit; its
line names the file, or says it was too large to keep. Each image is decoded once, for
both.

The blocks are read by their `type`, so this works on the SDK's objects and on plain data
alike, and imports no SDK.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from tui_chat.core.models import Attachment

ERROR_HEAD = "The tool reported an error:"


def cut(text: str, limit: int) -> str:
    """`text`, or its first `limit` characters and a marker that says how much was left."""
    if len(text) <= limit:
        return text
    return (f"{text[:limit]}\n[… cut by tui-chat: the result was {len(text):,} characters, "
            f"the first {limit:,} are kept]")


class ReadResult(NamedTuple):
    text: str
    """For the model, and for the user folded under the call."""
    files: list[Attachment]
    """The result's images, kept whole (`image-1.png`, …, numbered as `text` names them)."""


def result_text(content: Sequence[Any], structured: Any = None, *, is_error: bool = False,
                limit: int = 100_000) -> str:
    """The text of a result (see the module's docstring), at most about `limit` characters."""
    return read_result(content, structured, is_error=is_error, limit=limit).text


def read_result(content: Sequence[Any], structured: Any = None, *, is_error: bool = False,
                limit: int = 100_000) -> ReadResult:
    """The text of a result (see the module's docstring), at most about `limit` characters,
    and its images whose bytes are base64 and at most `limit`."""
    parts: list[str] = []
    files: list[Attachment] = []
    images = 0
    pretty = (json.dumps(structured, indent=2, ensure_ascii=False)
              if structured is not None else None)
    for block in content:
        kind = _get(block, "type")
        if kind == "text":
            text = str(_get(block, "text") or "")
            if pretty is not None and _same_json(text, structured):
                parts.append(pretty)
                pretty = None
            else:
                parts.append(text)
        elif kind == "image":
            images += 1
            parts.append(_image(block, images, limit, files))
        elif kind == "audio":
            parts.append(f"[{kind}: {_get(block, 'mime_type') or 'unknown type'}, "
                         f"{_size(_get(block, 'data'))}]")
        elif kind == "resource_link":
            name = _get(block, "title") or _get(block, "name") or "resource"
            parts.append(f"[link: {name} <{_get(block, 'uri')}>]")
        elif kind == "resource":
            parts.append(_resource(_get(block, "resource")))
        else:
            parts.append(f"[a {kind or 'content'} block tui-chat does not read]")
    if pretty is not None and not any(_get(block, "type") == "text" for block in content):
        parts.append(pretty)  # a text block that differs is the server's own rendering
    text = "\n".join(parts) if parts else "(no content)"
    if is_error:
        text = f"{ERROR_HEAD}\n{text}"
    return ReadResult(cut(text, limit), files)


def _get(block: Any, name: str) -> Any:
    if isinstance(block, dict):
        camel = "".join(w.capitalize() if i else w for i, w in enumerate(name.split("_")))
        return block.get(name, block.get(camel))
    return getattr(block, name, None)


def _same_json(text: str, structured: Any) -> bool:
    try:
        return bool(json.loads(text) == structured)
    except ValueError:
        return False


def _size(data: Any) -> str:
    if not isinstance(data, str):
        return "no data"
    try:
        count = len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        count = len(data)
    return _bytes(count)


def _bytes(count: int) -> str:
    return f"{count:,} bytes" if count != 1 else "1 byte"


def _resource(resource: Any) -> str:
    text = _get(resource, "text")
    if isinstance(text, str):
        return text
    return (f"[resource: {_get(resource, 'uri')}, "
            f"{_get(resource, 'mime_type') or 'unknown type'}, {_size(_get(resource, 'blob'))}]")


IMAGE_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif",
                    "image/webp": "webp"}
"""The image types kept with their own extension (and opened: ui.tool_files); any other
is kept as `.bin`."""


def image_name(number: int, mime: str) -> str:
    """`image-1.png`: the name the `number`th image of a result is kept under."""
    return f"image-{number}.{IMAGE_EXTENSIONS.get(mime, 'bin')}"


def _decoded(data: Any) -> bytes | None:
    if not isinstance(data, str):
        return None
    try:
        return base64.b64decode("".join(data.split()), validate=True)
    except (binascii.Error, ValueError):
        return None


def _image(block: Any, number: int, limit: int, files: list[Attachment]) -> str:
    """The line naming the `number`th image of a result; the image added to `files` when
    its bytes are base64 and at most `limit`."""
    mime = _get(block, "mime_type")
    said = str(mime or "unknown type")
    data = _decoded(_get(block, "data"))
    if data is None:
        return f"[image: {said}, not base64: not kept]"
    head = f"[image: {said}, {_bytes(len(data))}"
    if len(data) > limit:
        return f"{head}: too large to keep (over {limit:,} bytes)]"
    mime = str(mime or "application/octet-stream")
    name = image_name(number, mime)
    files.append(Attachment(name=name, kind="image", mime=mime, size=len(data), data=data))
    return f"{head}: {name}]"


_LINK = re.compile(r"^\[link: (?P<name>[^\n]*) <(?P<uri>[^<>\s]+)>\]$", re.MULTILINE)


def result_links(text: str) -> list[tuple[str, str]]:
    """The resource links a result's text names, as `result_text` writes them: (name, URI),
    in order, without duplicates. (A server could write such a line in a text block too:
    it is a link the server gave either way, opened only when the user says so.)"""
    found: dict[str, str] = {}
    for match in _LINK.finditer(text):
        found.setdefault(match["uri"], match["name"])
    return [(name, uri) for uri, name in found.items()]
