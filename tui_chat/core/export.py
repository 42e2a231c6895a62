"""Export conversations as Markdown (to read) or JSON (to keep, move and import again).

The JSON format, version 1::

    {
      "format": "tui-chat-conversations",
      "version": 1,
      "exported": "2026-11-30T04:52:00.000000+00:00",
      "conversations": [
        {
          "id": "…", "title": "…", "created": "…", "updated": "…",
          "provider": "chutes" | null, "model": "…" | null, "system_prompt": "…" | null,
          "parameters": {"temperature": 0.7, …}, "pinned": false, "archived": false,
          "messages": [
            {
              "id": "…", "role": "system" | "user" | "assistant", "content": "…",
              "reasoning": "…", "provider": "…" | null, "model": "…" | null,
              "status": "complete" | "streaming" | "interrupted" | "error",
              "error": "…" | null, "finish_reason": "…" | null,
              "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0} | null,
              "time_to_first_token": 0.5 | null, "tokens_per_second": 42.0 | null,
              "created": "…"
            }
          ]
        }
      ]
    }

Timestamps are ISO 8601 with a UTC offset. Messages are in conversation order. Unknown keys
are ignored, so a later version that only adds keys stays importable; a file with a higher
`version` is refused with a sentence asking to upgrade. Import is idempotent: conversations
and messages are matched by id, and those already in the store are skipped. API keys are
never part of an export: the store does not hold them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tui_chat.core.errors import UsageError
from tui_chat.core.models import (
    Conversation,
    Message,
    MessageStatus,
    Parameters,
    Role,
    utc_now,
)
from tui_chat.core.store import Store
from tui_chat.core.text import sanitize

EXPORT_FORMAT = "tui-chat-conversations"
EXPORT_VERSION = 1
MAX_IMPORT_BYTES = 200 * 1024 * 1024


class ExportedMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: str = Field(min_length=1, max_length=200)
    role: Role
    content: str = ""
    reasoning: str = ""
    provider: str | None = None
    model: str | None = None
    status: MessageStatus = MessageStatus.COMPLETE
    error: str | None = None
    finish_reason: str | None = None
    usage: dict[str, int] | None = None
    time_to_first_token: float | None = None
    tokens_per_second: float | None = None
    created: datetime


class ExportedConversation(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: str = Field(min_length=1, max_length=200)
    title: str
    created: datetime
    updated: datetime
    provider: str | None = None
    model: str | None = None
    system_prompt: str | None = None
    parameters: Parameters = Field(default_factory=Parameters)
    pinned: bool = False
    archived: bool = False
    messages: list[ExportedMessage] = Field(default_factory=list)


class ExportFile(BaseModel):
    model_config = ConfigDict(extra="ignore")

    format: str
    version: int
    exported: datetime | None = None
    conversations: list[ExportedConversation]


@dataclass(frozen=True)
class ImportResult:
    conversations_added: int
    conversations_present: int
    messages_added: int

    def describe(self) -> str:
        text = (f"Imported {self.conversations_added} conversation"
                f"{'' if self.conversations_added == 1 else 's'} and {self.messages_added} "
                f"message{'' if self.messages_added == 1 else 's'}")
        if self.conversations_present:
            text += (f"; {self.conversations_present} conversation"
                     f"{' was' if self.conversations_present == 1 else 's were'} already there")
        return text + "."


# -- JSON -------------------------------------------------------------------------------

def conversation_to_dict(conversation: Conversation, messages: list[Message]) -> dict[str, object]:
    data: dict[str, object] = conversation.model_dump(
        mode="json", exclude={"forked_from", "forked_from_message"})
    data["parameters"] = conversation.parameters.model_dump(mode="json", exclude_none=True)
    data["messages"] = [m.model_dump(mode="json", exclude={"conversation_id", "parent_id",
                                                           "partial_in_context"})
                        for m in messages]
    return data


def export_json(store: Store, conversation_ids: list[str]) -> str:
    """The JSON document (format version 1) holding these conversations, in this order."""
    document = {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "exported": utc_now().isoformat(timespec="microseconds"),
        "conversations": [
            conversation_to_dict(store.get_conversation(cid), store.get_messages(cid))
            for cid in conversation_ids
        ],
    }
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


def parse_export(text: str, source: str) -> list[tuple[Conversation, list[Message]]]:
    """The conversations in an export document; UsageError with one sentence if it is not one."""
    try:
        raw = json.loads(text)
    except ValueError as error:
        raise UsageError(f"{source} is not valid JSON ({error}); give a file written by "
                         "tui-chat export --format json.") from None
    if not isinstance(raw, dict) or raw.get("format") != EXPORT_FORMAT:
        raise UsageError(f"{source} is not a tui-chat export (no \"format\": \"{EXPORT_FORMAT}\"); "
                         "give a file written by tui-chat export --format json.")
    version = raw.get("version")
    if isinstance(version, int) and version > EXPORT_VERSION:
        raise UsageError(f"{source} uses export format version {version}, newer than this "
                         f"tui-chat understands ({EXPORT_VERSION}); upgrade tui-chat to import it.")
    try:
        document = ExportFile.model_validate(raw)
        return [_to_models(c) for c in document.conversations]
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise UsageError(f"{source} has a problem at '{where}': {first['msg']}; "
                         "nothing was imported.") from None


def _to_models(exported: ExportedConversation) -> tuple[Conversation, list[Message]]:
    conversation = Conversation.model_validate(exported.model_dump(exclude={"messages"}))
    messages = [Message.model_validate({**m.model_dump(), "conversation_id": exported.id})
                for m in exported.messages]
    return conversation, messages


def import_file(store: Store, path: Path) -> ImportResult:
    """Import an export file into `store`; importing the same file again adds nothing."""
    try:
        size = path.stat().st_size
        if size > MAX_IMPORT_BYTES:
            raise UsageError(f"{path} is {size // (1024 * 1024)} MB, more than the "
                             f"{MAX_IMPORT_BYTES // (1024 * 1024)} MB an import may be; "
                             "split the export into smaller files.")
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise UsageError(f"There is no file {path} to import.") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not UTF-8 text; give a file written by "
                         "tui-chat export --format json.") from None
    except OSError as error:
        raise UsageError(f"Cannot read {path}: {error.strerror}.") from None
    added = present = messages = 0
    for conversation, conversation_messages in parse_export(text, str(path)):
        is_new, count = store.import_conversation(conversation, conversation_messages)
        added += is_new
        present += not is_new
        messages += count
    return ImportResult(added, present, messages)


# -- Markdown ---------------------------------------------------------------------------

def export_markdown(store: Store, conversation_ids: list[str]) -> str:
    parts = [conversation_to_markdown(store.get_conversation(cid), store.get_messages(cid))
             for cid in conversation_ids]
    return "\n\n---\n\n".join(parts)


def conversation_to_markdown(conversation: Conversation, messages: list[Message]) -> str:
    """A readable Markdown page: title, details, then each message with its role, model and
    time; reasoning in a collapsible <details> block. Control characters are dropped."""
    lines = [f"# {_one_line(conversation.title)}", "",
             f"- Conversation: `{conversation.id}`",
             f"- Created: {_when(conversation.created)}; updated: {_when(conversation.updated)}"]
    if conversation.model:
        lines.append(f"- Last model: {_one_line(_who(conversation.provider, conversation.model))}")
    if conversation.system_prompt:
        lines += ["", "**System prompt:**", "", _quote(conversation.system_prompt)]
    for message in messages:
        lines += ["", *_message_markdown(message)]
    return sanitize("\n".join(lines)) + "\n"


def _message_markdown(message: Message) -> list[str]:
    role = {Role.USER: "You", Role.ASSISTANT: "Assistant", Role.SYSTEM: "System"}[message.role]
    head = [role]
    if message.role == Role.ASSISTANT and message.model:
        head.append(_one_line(_who(message.provider, message.model)))
    head.append(_when(message.created))
    lines = [f"## {' · '.join(head)}", ""]
    if message.reasoning:
        lines += ["<details>", "<summary>Reasoning</summary>", "", message.reasoning.strip(),
                  "", "</details>", ""]
    lines.append(message.content or "*(no text)*")
    if message.status != MessageStatus.COMPLETE:
        note = f" {_one_line(message.error)}" if message.error else ""
        lines += ["", f"*[{message.status.value}]{note}*"]
    return lines


def _who(provider: str | None, model: str) -> str:
    return f"{provider}/{model}" if provider else model


def _when(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S %Z").strip()


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _quote(text: str) -> str:
    return "\n".join("> " + line if line else ">" for line in text.splitlines())
