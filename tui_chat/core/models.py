"""Records shared by the client, the store and the UI."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


def new_id() -> str:
    """A random 32-hex-digit id; a unique prefix of it is enough on the command line."""
    return uuid.uuid4().hex


def utc_now() -> datetime:
    return datetime.now(UTC)


class Role(StrEnum):
    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"


class MessageStatus(StrEnum):
    COMPLETE = "complete"
    STREAMING = "streaming"
    INTERRUPTED = "interrupted"
    ERROR = "error"


class Usage(BaseModel):
    """Token counts as the provider reported them."""

    model_config = ConfigDict(extra="ignore")

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0


class Parameters(BaseModel):
    """Per-request sampling parameters; None means "the provider's default"."""

    model_config = ConfigDict(extra="forbid")

    temperature: float | None = Field(default=None, ge=0, le=2)
    max_tokens: int | None = Field(default=None, ge=1)
    top_p: float | None = Field(default=None, ge=0, le=1)
    presence_penalty: float | None = Field(default=None, ge=-2, le=2)
    frequency_penalty: float | None = Field(default=None, ge=-2, le=2)
    stop: list[str] | None = None

    def to_request(self) -> dict[str, object]:
        return self.model_dump(exclude_none=True)


class ChatMessage(BaseModel):
    """One message as sent to the provider."""

    role: Role
    content: str


class Message(BaseModel):
    """A stored message. Each remembers the provider and model that produced it."""

    id: str = Field(default_factory=new_id)
    conversation_id: str
    role: Role
    content: str = ""
    reasoning: str = ""
    provider: str | None = None
    model: str | None = None
    status: MessageStatus = MessageStatus.COMPLETE
    error: str | None = None
    finish_reason: str | None = None
    usage: Usage | None = None
    time_to_first_token: float | None = None
    tokens_per_second: float | None = None
    created: datetime = Field(default_factory=utc_now)


class Conversation(BaseModel):
    id: str = Field(default_factory=new_id)
    title: str = "New conversation"
    created: datetime = Field(default_factory=utc_now)
    updated: datetime = Field(default_factory=utc_now)
    provider: str | None = None
    model: str | None = None
    system_prompt: str | None = None
    parameters: Parameters = Field(default_factory=Parameters)
    pinned: bool = False
    archived: bool = False


class ModelInfo(BaseModel):
    """A model a provider offers. Only `id` is guaranteed; providers vary in the rest."""

    id: str
    provider: str
    context_length: int | None = None
    price: str | None = None


class ConversationSummary(BaseModel):
    """One row of the conversation list: no message bodies."""

    id: str
    title: str
    created: datetime
    updated: datetime
    provider: str | None = None
    model: str | None = None
    message_count: int = 0
    pinned: bool = False
    archived: bool = False


class SearchHit(BaseModel):
    """A message that matched a search. `snippet` is plain one-line text, already sanitized;
    `spans` are (start, end) character offsets of the matches within `snippet`, so a UI can
    highlight them without ever parsing markup."""

    conversation_id: str
    message_id: str
    title: str
    role: Role
    created: datetime
    snippet: str
    spans: list[tuple[int, int]] = Field(default_factory=list)
