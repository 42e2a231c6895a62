"""Records shared by the client, the store and the UI.

A conversation is a tree of messages: each message has a parent (a root, usually the first
user message, has none), and each message with children remembers which one is active. The
active path, from the active root down the active children to a leaf, is what is shown, sent
as context and continued.

The records are dataclasses (`core.records`): tui-chat constructs them from its own values;
what comes from outside (a store row, an import, a provider's usage) goes through
`model_validate`, pydantic's validator, built on first use. The app's first frame imports no
pydantic.
"""

from __future__ import annotations

import json
import math
import uuid
from dataclasses import field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any, ClassVar, Literal

import msgspec

from tui_chat.core.records import Before, Bounds, Record


def new_id() -> str:
    """A random 32-hex-digit id; a unique prefix of it is enough on the command line."""
    return uuid.uuid4().hex


def utc_now() -> datetime:
    return datetime.now(UTC)


class Role(StrEnum):
    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"
    """A tool's result, answering one call of the assistant message above it
    (`Message.tool_call_id`)."""


class MessageStatus(StrEnum):
    COMPLETE = "complete"
    STREAMING = "streaming"
    INTERRUPTED = "interrupted"
    ERROR = "error"


MAX_TOKENS = 1_000_000_000
"""More tokens than any request or reply holds: a count past it is no count."""
MAX_COST_USD = 1_000_000.0
"""More USD than any one reply costs: a cost past it is no cost."""
_COUNTS = ("prompt_tokens", "completion_tokens", "total_tokens")


def _no_odd_cost(value: object) -> object:
    # Never a reason to refuse a chunk or a stored row: an unusable figure is no figure.
    return sane_cost(value)


def sane_cost(value: object) -> float | None:
    """`value` as a cost in USD, or None if it is not one (negative, non-finite, absurd)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) and 0 <= value <= MAX_COST_USD else None


def sane_count(value: object) -> int | None:
    """`value` as a token count, or None if it is not one: a count is a whole number from 0
    to MAX_TOKENS (an integral float or a string of digits, as some servers write them,
    counts too); negative, fractional, non-finite, absurd or other values are no count."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            return None
        value = int(value)
    elif isinstance(value, str):
        digits = value.strip()
        if not (digits.isascii() and digits.isdigit()) or len(digits) > 10:
            return None
        value = int(digits)
    if not isinstance(value, int):
        return None
    return value if 0 <= value <= MAX_TOKENS else None


def usage_from(raw: object) -> Usage | None:
    """A provider's or a file's usage object as a Usage, or None if it does not parse:
    usage is advisory, and counts that make no sense (see `sane_count`) are no facts. A
    count that is absent or null is 0; any other field is ignored, but a cost that is there
    must be one (`sane_cost`)."""
    if isinstance(raw, Usage):
        details = raw.prompt_tokens_details
        raw = {"prompt_tokens": raw.prompt_tokens, "completion_tokens": raw.completion_tokens,
               "total_tokens": raw.total_tokens, "cost_usd": raw.cost_usd,
               "prompt_tokens_details": None if details is None
               else {"cached_tokens": details.cached_tokens}}
    if not isinstance(raw, dict):
        return None
    counts: dict[str, int] = {}
    for key in _COUNTS:
        value = raw.get(key)
        if value is not None:
            count = sane_count(value)
            if count is None:
                return None
            counts[key] = count
    cost = raw.get("cost_usd")
    usd = sane_cost(cost)
    if cost is not None and usd is None:
        return None
    return Usage(**counts, cost_usd=usd, prompt_tokens_details=_cache_details(raw))


def _cache_details(raw: dict[str, Any]) -> PromptTokensDetails | None:
    """The cached prompt tokens a usage reports (advisory like the rest: odd ones are none)."""
    details = raw.get("prompt_tokens_details")
    if not isinstance(details, dict):
        return None
    cached = sane_count(details.get("cached_tokens")) if details.get("cached_tokens") \
        is not None else None
    return None if cached is None else PromptTokensDetails(cached_tokens=cached)


def usage_from_json(text: str | None) -> Usage | None:
    """A stored usage's JSON text as a Usage (`usage_from`); None for none, and for text
    that is not JSON (a store is a file another program may have written)."""
    if not text:
        return None
    try:
        return usage_from(json.loads(text))
    except (ValueError, RecursionError):
        return None


def _sane_usage(value: object) -> object:
    # Message.usage as read from a store row or an import: nonsense is no usage.
    return None if value is None else usage_from(value)


def _no_odd_count(value: object) -> object:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 \
        else None


class PromptTokensDetails(Record):
    cached_tokens: Annotated[int | None, Before(_no_odd_count)] = None
    """Prompt tokens the provider read from its cache (priced at the model's cache price)."""


class Usage(Record):
    """Token counts as the provider reported them, and what they cost."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    prompt_tokens_details: PromptTokensDetails | None = None
    cost_usd: Annotated[float | None, Before(_no_odd_cost)] = None
    """What the reply cost in USD, from the model's prices when it finished (None: no price
    was known). Written by tui-chat, not read from the provider."""

    @property
    def cached_tokens(self) -> int:
        """Prompt tokens read from the provider's cache (`prompt_tokens_details`)."""
        details = self.prompt_tokens_details
        cached = details.cached_tokens if details is not None else None
        return min(cached or 0, self.prompt_tokens)


ReasoningSetting = Literal["off", "low", "medium", "high"]
"""How much a model is asked to reason (`Parameters.reasoning`, `Message.reasoning_sent`)."""


class Parameters(Record):
    """Per-request sampling parameters; None means "the provider's default"."""

    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid"}

    temperature: Annotated[float | None, Bounds(ge=0, le=2)] = None
    max_tokens: Annotated[int | None, Bounds(ge=1)] = None
    top_p: Annotated[float | None, Bounds(ge=0, le=1)] = None
    presence_penalty: Annotated[float | None, Bounds(ge=-2, le=2)] = None
    frequency_penalty: Annotated[float | None, Bounds(ge=-2, le=2)] = None
    stop: list[str] | None = None
    e2ee: Literal["off", "auto", "required"] | None = None
    """A conversation's own end-to-end encryption choice (tui_chat.core.e2ee), over its
    provider's `e2ee`; None: the provider's. Not sent: it decides how the request goes."""
    tools_off: list[str] | None = None
    """The tool servers (names under [mcp.servers] in config.toml) this conversation turned
    off (F8); None: none. Not sent: it decides which tools the request offers."""

    reasoning: ReasoningSetting | None = None
    """How much the model reasons (F8, the reasoning key, `ask --reasoning`); None: the
    model's own default. Not sent as is: the provider's dialect turns it into the request's
    keys (core.dialect.reasoning_body), and only for a model known to take it."""

    def to_request(self) -> dict[str, object]:
        return self.model_dump(exclude_none=True, exclude={"e2ee", "tools_off", "reasoning"})


class AttachmentInfo(Record):
    """A file attached to a message, as the message remembers it (its content is stored
    apart: `Attachment`)."""

    name: str
    """The file's name as the user gave it (a path, as written)."""
    kind: Literal["text", "image"]
    mime: str
    size: Annotated[int, Bounds(ge=0)]
    """Bytes."""
    language: str = ""
    """A text file's language, from its extension ("" when unknown)."""
    tokens: Annotated[int, Bounds(ge=0)] = 0
    """About how many tokens it adds to the context."""


class Attachment(AttachmentInfo):
    """An attachment with its content: `text` for a text file, `data` for an image."""

    text: str | None = None
    data: bytes | None = None

    def info(self) -> AttachmentInfo:
        return AttachmentInfo(name=self.name, kind=self.kind, mime=self.mime, size=self.size,
                              language=self.language, tokens=self.tokens)


class ToolCall(Record):
    """One call of a tool a reply asked for, as the model sent it."""

    id: str = ""
    """The provider's id for the call, which the tool's result names (`Message.tool_call_id`);
    "" when the provider sent none, or the store that kept the call predates the field."""
    name: str = ""
    arguments: str = ""
    """The arguments as the JSON text the model sent (not parsed: it may not be valid JSON)."""


class ToolRun(Record):
    """What became of one tool call, kept on its `tool` message (store schema 7).

    `status`, while the call waits or runs (the message is "streaming" then): "asking" (put
    to the user), "approved" (running, as the user or the policy allowed); once it ended:
    "ok", "error" (the tool said it failed), "failed" (it could not run: the server did not
    start, crashed, refused it), "timed-out", "denied", "cancelled", "invalid" (no such tool,
    arguments not a JSON object), "not-run" (past the step limit), "interrupted" (tui-chat
    stopped while it ran: the message is "interrupted" then, and its result says so)."""

    status: str
    name: str = ""
    """The tool as the model called it (qualified: `server__tool`)."""
    server: str | None = None
    """The server that ran it (None: no server offers that tool)."""
    seconds: float | None = None
    """How long it ran (None: it did not run)."""


class ChatMessage(Record):
    """One message as sent to the provider: its text and its attachments' content, or, once
    put in the request's shape (`attachments.wire_content`), the content as it goes (a string,
    or a list of content parts). An assistant message may carry the calls it made
    (`tool_calls`), a `tool` message the id of the call it answers (`tool_call_id`)."""

    role: Role
    content: str | list[dict[str, Any]]
    attachments: list[Attachment] = field(default_factory=list)
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str | None = None

    @property
    def text(self) -> str:
        """The message's text (the text parts, for content parts)."""
        if isinstance(self.content, str):
            return self.content
        return "".join(str(part.get("text", "")) for part in self.content)


class Message(Record):
    """A stored message. Each remembers the provider and model that produced it."""

    id: str = field(default_factory=new_id)
    conversation_id: str
    parent_id: str | None = None
    """The message this one follows in the tree; None for a root. Fixed once stored."""
    role: Role
    content: str = ""
    reasoning: str = ""
    provider: str | None = None
    model: str | None = None
    status: MessageStatus = MessageStatus.COMPLETE
    error: str | None = None
    finish_reason: str | None = None
    usage: Annotated[Usage | None, Before(_sane_usage)] = None
    time_to_first_token: float | None = None
    tokens_per_second: float | None = None
    created: datetime = field(default_factory=utc_now)
    streamed: bool = True
    """False: the provider sent the reply whole (a JSON body), not as a stream (no speed is
    measured). Store schema 9; a reply stored before it reads back as streamed."""
    reasoning_sent: str | None = None
    """The reasoning setting the request for this reply carried ("off", "low", …: see
    `Parameters.reasoning`); None: none was sent (the model's default). Store schema 9; a
    reply stored before it reads back as None. Text, not `ReasoningSetting`: a store written
    by a later version may hold a setting this one does not know."""
    partial_in_context: bool = False
    """An interrupted reply that is sent as context all the same: the user stopped it on
    purpose, or chose to continue from it. A reply cut off by a failure is not."""
    attachments: list[AttachmentInfo] = field(default_factory=list)
    """Files attached to a user message (their content: `Store.attachments_of`)."""
    tool_calls: list[ToolCall] = field(default_factory=list)
    """The tools an assistant reply asked to call, in the order of their index (each answered
    by a `tool` message below it when tools were offered; else none is run, which
    `tool_calls.tool_call_lines` says)."""
    tool_call_id: str | None = None
    """A `tool` message: the id of the call (`ToolCall.id`) whose result it holds."""
    tool_run: ToolRun | None = None
    """A `tool` message: its status, server and timing."""
    sent_as: str | None = None
    """How a reply was sent and came back: "end-to-end" (encrypted to the model's instance,
    tui_chat.core.e2ee), with " TEE" when the model runs in a confidential-compute enclave
    (as /v1/models says; not verified); None: neither."""
    note: str | None = None
    """An advisory note on a reply that is complete all the same (the provider's usage made
    no sense and was dropped: `chunks.usage_event`); shown as a note, never as an error.
    Store schema 8; before it, such a note was kept in `error`."""

    @property
    def failed(self) -> bool:
        """A reply that did not finish by itself and is not part of the context: an error,
        or an interruption the user did not choose to keep."""
        return self.role == Role.ASSISTANT and (
            self.status == MessageStatus.ERROR
            or (self.status == MessageStatus.INTERRUPTED and not self.partial_in_context))

    @property
    def empty(self) -> bool:
        return not self.content and not self.reasoning

    @property
    def stopped_before_start(self) -> bool:
        """A reply stopped (Esc, Ctrl+C, tui-chat ending) before any of it arrived: nothing to
        show or send, only that it was stopped; the next attempt takes its place."""
        return (self.role == Role.ASSISTANT and self.status == MessageStatus.INTERRUPTED
                and self.empty and not self.partial_in_context)


class Conversation(Record):
    """A conversation: its title, dates, model and settings (its messages are apart)."""

    id: str = field(default_factory=new_id)
    title: str = "New conversation"
    created: datetime = field(default_factory=utc_now)
    updated: datetime = field(default_factory=utc_now)
    provider: str | None = None
    model: str | None = None
    system_prompt: str | None = None
    parameters: Parameters = field(default_factory=Parameters)
    pinned: bool = False
    archived: bool = False
    forked_from: str | None = None
    """The conversation this one was branched from, if any (it may have been deleted since)."""
    forked_from_message: str | None = None
    """The message of `forked_from` that the copied path ended at."""
    context_from: str | None = None
    """The first message of the active path sent as context; the ones before it stay in the
    conversation, left out (None: the whole path is sent; one not on the path: likewise)."""
    context_from_set: datetime | None = None
    """When `context_from` was last changed: a reply older than that was asked for with
    another context, so its usage does not count this one's."""


class ActivePathChanged(msgspec.Struct, frozen=True):
    """The active path now leaves the old one below message `after_id` (None: from its very
    first message on). A view keeps the messages up to `after_id` and drops the rest (they
    are not deleted: they stay in the store as another branch); the new path below is what
    follows (the events of the exchange, or the store's `get_messages`)."""

    conversation_id: str
    after_id: str | None


class Siblings(msgspec.Struct, frozen=True):
    """The alternatives at one branch point, oldest first: `ids[position - 1]` is the message
    asked about ("‹ position/count ›")."""

    ids: tuple[str, ...]
    position: int

    @property
    def count(self) -> int:
        return len(self.ids)


class ConversationTree(msgspec.Struct, frozen=True):
    """Every message of a conversation (creation order) and the active choice at each branch
    point: `active_root`, and `active_child[parent id]`."""

    conversation: Conversation
    messages: list[Message]
    active_root: str | None
    active_child: dict[str, str] = msgspec.field(default_factory=dict)

    def children(self, parent_id: str | None) -> list[Message]:
        return [m for m in self.messages if m.parent_id == parent_id]

    def active_path(self) -> list[Message]:
        by_id = {m.id: m for m in self.messages}
        path: list[Message] = []
        current = self.active_root
        while current is not None and current in by_id and len(path) < len(by_id):
            path.append(by_id[current])
            current = self.active_child.get(current)
        return path


class ModelInfo(Record):
    """A model a provider offers. Only `id` is guaranteed; providers vary in the rest (and
    `[models."provider:model"]` in config.toml can set them: see `model_facts`)."""

    id: str
    provider: str
    context_length: int | None = None
    """The model's window: prompt and reply together, in tokens."""
    price: str | None = None
    """The price as text to show, as the provider gave it."""
    input_price: float | None = None
    """USD per million prompt tokens."""
    output_price: float | None = None
    """USD per million completion tokens."""
    cache_read_price: float | None = None
    """USD per million prompt tokens read from the provider's cache (Chutes'
    `input_cache_read`); None: cached tokens cost the input price."""
    input_modalities: tuple[str, ...] | None = None
    """What the model reads ("text", "image", …); None when the provider does not say."""
    confidential_compute: bool = False
    """The provider lists the model as running in a TEE (Chutes' `confidential_compute`);
    tui-chat does not verify it."""
    takes_tools: bool = False
    """Whether the model may be offered tools: Chutes lists "tools" in its
    `supported_features`; a custom provider's model says `tools = true` in config.toml."""
    features: tuple[str, ...] = ()
    """What else the provider lists the model as supporting, as Chutes spells it in
    `supported_features` ("reasoning", "json_mode", "structured_outputs", …)."""
    quantization: str | None = None
    """How the weights are quantized ("fp8", "bf16", …), as the provider says."""
    max_output: int | None = None
    """The longest reply the provider allows, in tokens (Chutes' `max_output_length`)."""

    @property
    def takes_images(self) -> bool:
        return self.input_modalities is not None and "image" in self.input_modalities

    @property
    def priced(self) -> bool:
        return self.input_price is not None and self.output_price is not None


class ConversationSummary(Record):
    """One row of the conversation list: no message bodies."""

    id: str
    title: str
    created: datetime
    updated: datetime
    provider: str | None = None
    model: str | None = None
    message_count: int | None = 0  # None: not counted (`Store.list_conversations`)
    pinned: bool = False
    archived: bool = False


class SearchHit(Record):
    """A message that matched a search. `snippet` is plain one-line text, already sanitized;
    `spans` are (start, end) character offsets of the matches within `snippet`, so a UI can
    highlight them without ever parsing markup."""

    conversation_id: str
    message_id: str
    title: str
    role: Role
    created: datetime
    snippet: str
    spans: list[tuple[int, int]] = field(default_factory=list)
