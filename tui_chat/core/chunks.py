"""The `chat.completion.chunk` payload, validated leniently: unknown fields are allowed."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from tui_chat.core.models import Usage


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="allow")


class ToolCallFunction(_Lenient):
    name: str | None = None
    arguments: str | None = None


class ToolCallFragment(_Lenient):
    index: int = 0
    id: str | None = None
    function: ToolCallFunction | None = None


class ChunkDelta(_Lenient):
    role: str | None = None
    content: str | None = None
    reasoning_content: str | None = None
    reasoning: str | None = None
    tool_calls: list[ToolCallFragment] | None = None


class ChunkChoice(_Lenient):
    index: int = 0
    delta: ChunkDelta = Field(default_factory=ChunkDelta)
    finish_reason: str | None = None


class ChatCompletionChunk(_Lenient):
    id: str | None = None
    object: str | None = None
    model: str | None = None
    choices: list[ChunkChoice] = Field(default_factory=list)
    usage: Usage | None = None
    error: Any = None


CHUNK_ADAPTER: TypeAdapter[ChatCompletionChunk] = TypeAdapter(ChatCompletionChunk)


def provider_message(body: str) -> str | None:
    """The human message inside an error body, in whichever shape the provider used.

    Shapes: {"detail": "…"}, {"detail": {"message": "…"}}, {"error": {"message": "…"}},
    {"error": "…"}, {"message": "…"}. An HTML page or anything else gives None.
    """
    try:
        data = json.loads(body)
    except ValueError:
        return None
    return message_from_json(data)


def message_from_json(data: object) -> str | None:
    if isinstance(data, str):
        return data or None
    if isinstance(data, list) and data:
        return message_from_json(data[0])
    if not isinstance(data, dict):
        return None
    for key in ("detail", "error", "message", "msg"):
        if key in data:
            found = message_from_json(data[key])
            if found:
                return found
    return None
