"""Export conversations as Markdown (to read) or JSON (to keep, move and import again).

The JSON format, version 2 (conversations as trees)::

    {
      "format": "tui-chat-conversations",
      "version": 2,
      "exported": "2026-11-30T04:52:00.000000+00:00",
      "conversations": [
        {
          "id": "…", "title": "…", "created": "…", "updated": "…",
          "provider": "chutes" | null, "model": "…" | null, "system_prompt": "…" | null,
          "parameters": {"temperature": 0.7, …}, "pinned": false, "archived": false,
          "forked_from": "…" | null, "forked_from_message": "…" | null,
          "active_root_id": "…" | null, "context_from": "…" | null,
          "messages": [
            {
              "id": "…", "parent_id": "…" | null,
              "role": "system" | "user" | "assistant" | "tool",
              "content": "…", "reasoning": "…", "provider": "…" | null, "model": "…" | null,
              "status": "complete" | "streaming" | "interrupted" | "error",
              "error": "…" | null, "finish_reason": "…" | null,
              "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0,
                        "cost_usd": 0.0012 | null} | null,
              "time_to_first_token": 0.5 | null, "tokens_per_second": 42.0 | null,
              "created": "…", "partial_in_context": false, "active_child_id": "…" | null,
              "tool_calls": [{"id": "…", "name": "…", "arguments": "{…}"}],
              "tool_call_id": "…" | null,
              "tool_run": {"status": "ok", "name": "time__get_current_time",
                           "server": "time" | null, "seconds": 0.2 | null} | null,
              "attachments": [{"name": "src/main.py", "kind": "text" | "image",
                               "mime": "text/plain", "size": 123, "language": "python",
                               "tokens": 40, "text": "…" | null, "data": "base64…" | null}],
              "sent_as": "end-to-end" | "TEE" | "end-to-end TEE" | null,
              "note": "…" | null, "streamed": true,
              "reasoning_sent": "off" | "low" | "medium" | "high" | null
            }
          ]
        }
      ]
    }

`messages` holds every message of every branch, in the order they were written, so a parent
always comes before its children: `parent_id` is null for a root (the first message, or an
edit of it) and otherwise the id of a message earlier in the list. `active_child_id` is the
child the conversation continues with at that message (null when it has none), and
`active_root_id` the root it starts from (null when it has no messages): together they give
the active path, what is shown and sent as context. A file written by hand may leave them
out (or null): the newest child, or root, is then the active one. `partial_in_context` marks
an interrupted reply that is sent as context all the same; `forked_from` and
`forked_from_message` say which conversation, and which message of it, a fork was copied
from. `context_from` is the first message of the active path sent as context (the ones before
it were left out to fit the model's window; null: none was), and `usage.cost_usd` what a reply
cost in USD at its model's prices when it finished (null: no price was known); both were added
to version 2 later, and a file without them still imports. So were `attachments`, the files
attached to a message: a text file's `text`, or an image's bytes in base64 (`data`; PNG, JPEG,
WebP or GIF). So were `tool_calls`, the tools a reply asked to call (`arguments` is the JSON
text the model sent, as it sent it), and `tool_call_id`, the call a `tool` message answers
(with `tool_run`, what became of the call: its status, tool, server and seconds); a
file from before them keeps a reply's calls as a note in `error` ("The model asked to call
…"), which an import turns into `tool_calls`. So was `sent_as`, how a reply was sent:
"end-to-end" (encrypted to the model's instance), "TEE" (a model in a confidential-compute
enclave, as the provider's model list said; not verified), both, or null: neither
(`parameters.e2ee`: the conversation's own end-to-end choice). So was `note`, an advisory
note on a reply that is complete all the same (the provider's usage made no sense and was
dropped); a file from before it keeps that note in `error`, which an import moves to `note`.
So were `streamed`, false for a reply the provider sent whole (a JSON body) rather than as a
stream, and `reasoning_sent`, the reasoning setting the request for a reply carried (null:
none was sent, the model's default); a file from before them imports its replies as
streamed, with no setting known.

Version 1 (before trees) has none of the keys added to version 2; its messages are one path,
in order. Both import.

Timestamps are ISO 8601 with a UTC offset. Every key
shown is written, and an export is strict, standard JSON that any parser reads: no NaN or
Infinity (a timing that is not a finite number is written as null), no lone surrogates (the
store cannot hold one), UTF-8.

An import accepts only what an export could have written: exactly these types and values;
the rules, and the id rule, are in `import_check`. A key may be left out where it has a
default (null, "", false, {}, [], "complete", zero counts, true for `streamed`), as in
version 1 from the start; ids, roles, titles and timestamps may not. Unknown keys are
ignored, so a later version that only adds keys stays importable; a file with a higher
`version` is refused with a sentence asking to upgrade. The whole file is checked before
anything is written. Import is idempotent: conversations and messages are matched by id; a
conversation already in the store keeps what it has and gains the messages it lacks; a
message whose id another conversation already uses is skipped, and so are the messages below
it, and the summary line says so. API keys are never part of an export: the store does not
hold them.

Markdown holds the active path, as the conversation is shown; with `all_branches`, every
other branch follows it, each from where it leaves a branch already written.
"""

from __future__ import annotations

import base64
import json
import math
import re
from collections.abc import Mapping, Set
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar, Literal, cast, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    ValidationError,
    model_validator,
)
from pydantic_core import CoreSchema

from tui_chat.core.attachments import IMAGE_TOKENS, fenced, size_text
from tui_chat.core.chunks import is_usage_note
from tui_chat.core.errors import StoreError, UsageError
from tui_chat.core.files import FileTooLargeError, NotAFileError, read_bounded
from tui_chat.core.import_check import (
    FROM_AN_EXPORT,
    ExportCount,
    ExportFlag,
    ExportId,
    ExportSeconds,
    ExportText,
    ExportTimestamp,
    attachment_problem,
    attachments_problem,
    check_tree,
    check_unique,
    load_json,
    problem_sentence,
)
from tui_chat.core.models import (
    Attachment,
    Conversation,
    ConversationTree,
    Message,
    MessageStatus,
    Parameters,
    ReasoningSetting,
    Role,
    utc_now,
)
from tui_chat.core.protection import protection_badges
from tui_chat.core.store import Store
from tui_chat.core.store_import import ActiveChoices
from tui_chat.core.text import sanitize
from tui_chat.core.tokens import estimate_tokens
from tui_chat.core.tool_calls import legacy_tool_calls, tool_call_lines
from tui_chat.core.tool_turns import tool_result_line

EXPORT_FORMAT = "tui-chat-conversations"
EXPORT_VERSION = 2
READABLE_VERSIONS = (1, 2)
MAX_IMPORT_BYTES = 200 * 1024 * 1024
_FLOAT_FIELDS = ("time_to_first_token", "tokens_per_second")
_REASONING_SETTINGS = (None, *get_args(ReasoningSetting))


class _Exported(BaseModel):
    model_config = ConfigDict(extra="ignore")


class ExportedUsage(_Exported):
    prompt_tokens: ExportCount = 0
    completion_tokens: ExportCount = 0
    total_tokens: ExportCount = 0
    cost_usd: ExportSeconds | None = Field(default=None, ge=0)


class ExportedParameters(Parameters):
    """The store's own parameter rules, with exact JSON types (no "0.7" for 0.7)."""

    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid", "strict": True}

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler
                                     ) -> CoreSchema:
        schema = super().__get_pydantic_core_schema__(source, handler)
        # Strict values, but a JSON object for the record (strict alone wants an instance).
        cast(dict[str, Any], schema)["strict"] = False
        return schema


class ExportedMessage(_Exported):
    id: ExportId
    role: Role
    content: ExportText = ""
    reasoning: ExportText = ""
    provider: ExportText | None = None
    model: ExportText | None = None
    status: MessageStatus = MessageStatus.COMPLETE
    error: ExportText | None = None
    finish_reason: ExportText | None = None
    usage: ExportedUsage | None = None
    time_to_first_token: ExportSeconds | None = None
    tokens_per_second: ExportSeconds | None = None
    created: ExportTimestamp
    sent_as: Literal["end-to-end", "TEE", "end-to-end TEE"] | None = None


class ExportedConversation(_Exported):
    id: ExportId
    title: ExportText
    created: ExportTimestamp
    updated: ExportTimestamp
    provider: ExportText | None = None
    model: ExportText | None = None
    system_prompt: ExportText | None = None
    parameters: ExportedParameters = Field(default_factory=ExportedParameters)
    pinned: ExportFlag = False
    archived: ExportFlag = False
    messages: list[ExportedMessage] = Field(default_factory=list)


class ExportFile(_Exported):
    format: ExportText
    version: ExportCount
    exported: ExportTimestamp | None = None
    conversations: list[ExportedConversation]


class ExportedAttachment(_Exported):
    name: ExportText
    kind: Literal["text", "image"]
    mime: ExportText
    size: ExportCount = Field(ge=0)
    language: ExportText = ""
    tokens: ExportCount = Field(default=0, ge=0)
    text: ExportText | None = None
    data: ExportText | None = None
    """An image's bytes in base64."""

    @model_validator(mode="after")
    def _has_its_content(self) -> ExportedAttachment:
        raw = None
        if self.kind == "text" and self.text is None:
            raise ValueError("a text attachment needs its \"text\"")
        if self.kind == "image":
            try:
                raw = base64.b64decode(self.data or "", validate=True)
            except ValueError:
                raise ValueError("an image attachment's \"data\" must be base64") from None
        problem = attachment_problem(self.kind, self.mime, self.size, self.text, raw)
        if problem is not None:
            raise ValueError(problem)
        return self

    def attachment(self) -> Attachment:
        data = base64.b64decode(self.data) if self.kind == "image" and self.data else None
        attachment = Attachment(name=self.name, kind=self.kind, mime=self.mime, size=self.size,
                                language=self.language, tokens=IMAGE_TOKENS,
                                text=self.text if self.kind == "text" else None, data=data)
        if self.kind == "text":  # the file's estimate is not trusted: counted again
            attachment.tokens = estimate_tokens(fenced(attachment))
        return attachment


class ExportedToolCall(_Exported):
    id: ExportText = ""
    name: ExportText = ""
    arguments: ExportText = ""


class ExportedToolRun(_Exported):
    status: ExportText
    name: ExportText = ""
    server: ExportText | None = None
    seconds: ExportSeconds | None = None


class ExportedMessageV2(ExportedMessage):
    note: ExportText | None = None
    attachments: list[ExportedAttachment] = Field(default_factory=list)
    tool_calls: list[ExportedToolCall] = Field(default_factory=list)
    tool_call_id: ExportText | None = None
    tool_run: ExportedToolRun | None = None
    streamed: ExportFlag = True
    reasoning_sent: ReasoningSetting | None = None
    parent_id: ExportId | None = None
    partial_in_context: ExportFlag = False
    active_child_id: ExportId | None = None
    """None for a message with children: its newest child (what an import then chooses)."""

    @model_validator(mode="after")
    def _carries_no_more_than_a_message_may(self) -> ExportedMessageV2:
        problem = attachments_problem(a.size for a in self.attachments)
        if problem is not None:
            raise ValueError(problem)
        return self


class ExportedConversationV2(ExportedConversation):
    forked_from: ExportId | None = None
    forked_from_message: ExportId | None = None
    active_root_id: ExportId | None = None
    """None for a conversation with messages: its newest root."""
    context_from: ExportId | None = None
    messages: list[ExportedMessageV2] = Field(default_factory=list)  # type: ignore[assignment]


class ExportFileV2(ExportFile):
    conversations: list[ExportedConversationV2]  # type: ignore[assignment]


@dataclass(frozen=True)
class Imported:
    """One conversation of a file: its tree for version 2, or a path (choices None)."""

    conversation: Conversation
    messages: list[Message]
    choices: ActiveChoices | None
    contents: dict[str, list[Attachment]] = dataclass_field(default_factory=dict)
    """Message id -> its attachments, with their content."""


@dataclass(frozen=True)
class ImportResult:
    conversations_added: int
    conversations_present: int
    messages_added: int
    messages_present: int = 0
    messages_taken: tuple[str, ...] = ()
    """Ids of messages skipped because another conversation in the store uses them."""
    messages_orphaned: int = 0
    """Messages skipped because one above them was."""
    messages_renamed: tuple[str, ...] = ()
    """Ids of messages kept under a new id because another conversation uses theirs."""

    def describe(self) -> str:
        """One line: what was imported, what was already there, what was skipped and why."""
        parts = [f"Imported {_count(self.conversations_added, 'conversation')} and "
                 f"{_count(self.messages_added, 'message')}"]
        if self.conversations_present:
            parts.append(f"{_count(self.conversations_present, 'conversation')} and "
                         f"{_count(self.messages_present, 'message')} were already there")
        if self.messages_renamed:
            parts.append(("gave 1 message a new id, as another conversation in the store "
                          "already uses its old one" if len(self.messages_renamed) == 1 else
                          f"gave {len(self.messages_renamed)} messages new ids, as other "
                          "conversations in the store already use their old ones")
                         + f" ({_some(self.messages_renamed)})")
        if self.messages_taken:
            parts.append(f"skipped {_count(len(self.messages_taken), 'message')} whose id "
                         "another conversation in the store already uses "
                         f"({_some(self.messages_taken)})")
            if self.messages_orphaned:
                parts.append(f"and the {_count(self.messages_orphaned, 'message')} below "
                             f"{'it' if len(self.messages_taken) == 1 else 'them'}")
        return "; ".join(parts) + "."


def _some(ids: tuple[str, ...]) -> str:
    return ", ".join(ids[:3]) + (", …" if len(ids) > 3 else "")


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


# -- JSON -------------------------------------------------------------------------------

def conversation_to_dict(tree: ConversationTree,
                         contents: Mapping[str, list[Attachment]] | None = None
                         ) -> dict[str, object]:
    """One conversation of a version-2 document: every branch and the active choices, and
    the attachments in `contents` (message id -> attachments) with their content."""
    conversation = tree.conversation
    data: dict[str, object] = conversation.model_dump(mode="json", exclude={"context_from_set"})
    data["parameters"] = conversation.parameters.model_dump(mode="json", exclude_none=True)
    data["active_root_id"] = tree.active_root
    data["messages"] = [_message_to_dict(m, tree.active_child.get(m.id),
                                         (contents or {}).get(m.id))
                        for m in tree.messages]
    return data


def _attachment_to_dict(attachment: Attachment) -> dict[str, object]:
    data: dict[str, object] = attachment.info().model_dump(mode="json")
    data["text"] = attachment.text
    data["data"] = (base64.b64encode(attachment.data).decode("ascii")
                    if attachment.data is not None else None)
    return data


def _message_to_dict(message: Message, active_child: str | None,
                     files: list[Attachment] | None) -> dict[str, object]:
    data: dict[str, object] = message.model_dump(mode="json", exclude={"conversation_id"})
    if data["reasoning_sent"] not in _REASONING_SETTINGS:  # a later tui-chat's: not importable
        data["reasoning_sent"] = None
    if files is not None:
        data["attachments"] = [_attachment_to_dict(a) for a in files]
    for field in _FLOAT_FIELDS:  # standard JSON has no NaN or Infinity
        value = data[field]
        if isinstance(value, float) and not math.isfinite(value):
            data[field] = None
    data["active_child_id"] = active_child
    return data


def export_json(store: Store, conversation_ids: list[str]) -> str:
    """The JSON document (format version 2) holding these conversations, in this order."""
    document = {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "exported": utc_now().isoformat(timespec="microseconds"),
        "conversations": [_with_contents(store, store.get_tree(cid))
                          for cid in conversation_ids],
    }
    return json.dumps(document, ensure_ascii=False, allow_nan=False, indent=2) + "\n"


def _with_contents(store: Store, tree: ConversationTree) -> dict[str, object]:
    return conversation_to_dict(tree, store.attachments_of(m.id for m in tree.messages
                                                           if m.attachments))


def parse_export(text: str, source: str) -> list[Imported]:
    """The conversations in an export document, checked completely (`import_check`);
    UsageError with one sentence if it is not what an export could have written."""
    raw = load_json(text, source)
    if not isinstance(raw, dict) or raw.get("format") != EXPORT_FORMAT:
        raise UsageError(f"{source} is not a tui-chat export (no \"format\": \"{EXPORT_FORMAT}\"); "
                         f"{FROM_AN_EXPORT}.")
    version = raw.get("version")
    if isinstance(version, int) and not isinstance(version, bool) and version > EXPORT_VERSION:
        raise UsageError(f"{source} uses export format version {version}, newer than this "
                         f"tui-chat understands ({EXPORT_VERSION}); upgrade tui-chat to import it.")
    if version not in READABLE_VERSIONS or isinstance(version, bool):
        raise UsageError(f"{source} has export format version {ascii(version)[:40]}, which no "
                         f"tui-chat writes (this one reads versions 1 and {EXPORT_VERSION}); "
                         f"{FROM_AN_EXPORT}.")
    try:
        document = (ExportFileV2 if version == 2 else ExportFile).model_validate(raw)
    except ValidationError as error:
        raise problem_sentence(error, source) from None
    conversations = document.conversations
    check_unique(((c.id, f"conversations.{i}.id") for i, c in enumerate(conversations)),
                 "conversation", source)
    check_unique(((m.id, f"conversations.{i}.messages.{j}.id")
                  for i, c in enumerate(conversations) for j, m in enumerate(c.messages)),
                 "message", source)
    for index, exported in enumerate(conversations):
        if isinstance(exported, ExportedConversationV2):
            check_tree(exported.active_root_id,
                       [(m.id, m.parent_id, m.active_child_id) for m in exported.messages],
                       f"conversations.{index}", source)
    return [_to_models(c) for c in conversations]


def _to_models(exported: ExportedConversation) -> Imported:
    tree = {"messages", "active_root_id"}
    conversation = Conversation.model_validate(exported.model_dump(exclude=tree))
    messages = [_message(m, exported.id) for m in exported.messages]
    if not isinstance(exported, ExportedConversationV2):
        return Imported(conversation, messages, None)
    children = {m.id: m.active_child_id for m in exported.messages
                if isinstance(m, ExportedMessageV2) and m.active_child_id is not None}
    contents = {m.id: [a.attachment() for a in m.attachments] for m in exported.messages
                if isinstance(m, ExportedMessageV2) and m.attachments}
    return Imported(conversation, messages, ActiveChoices(exported.active_root_id, children),
                    contents)


def _message(exported: ExportedMessage, conversation_id: str) -> Message:
    message = Message.model_validate({**exported.model_dump(exclude={"active_child_id"}),
                                      "conversation_id": conversation_id})
    if (not message.tool_calls and message.status is MessageStatus.COMPLETE
            and (calls := legacy_tool_calls(message.error)) is not None):
        # An export from before tool calls were data: the note becomes the calls.
        message.tool_calls, message.error = calls, None
    if message.status is MessageStatus.COMPLETE and is_usage_note(message.error):
        # An export from before notes were a field (store schema 8): the note is no error.
        message.note, message.error = message.error, None
    return message


def import_file(store: Store, path: Path) -> ImportResult:
    """Import an export file into `store` once the whole file is checked; importing the
    same file again adds nothing."""
    items = parse_export(_read(path), str(path))
    added = present = messages_added = messages_present = orphaned = 0
    taken: list[str] = []
    renamed: list[str] = []
    for item in items:
        try:
            if item.choices is None:
                outcome = store.import_conversation(item.conversation, item.messages)
            else:
                outcome = store.import_tree(ConversationTree(
                    item.conversation, item.messages, item.choices.root,
                    dict(item.choices.children)), item.contents)
        except StoreError as error:
            raise StoreError(f"{error.message.rstrip('.')}; {added + present} of {len(items)} "
                             f"conversations were imported before it, and importing {path} "
                             "again adds only the rest.") from None
        added += outcome.created
        present += not outcome.created
        messages_added += outcome.added
        messages_present += outcome.present
        taken += outcome.taken
        renamed += outcome.renamed
        orphaned += len(outcome.orphaned)
    return ImportResult(added, present, messages_added, messages_present, tuple(taken),
                        orphaned, tuple(renamed))


def _read(path: Path) -> str:
    try:
        return read_bounded(path, MAX_IMPORT_BYTES).decode("utf-8")
    except FileTooLargeError as error:
        raise UsageError(f"{path} is {error.size // (1024 * 1024)} MB, more than the "
                         f"{MAX_IMPORT_BYTES // (1024 * 1024)} MB an import may be; "
                         "split the export into smaller files.") from None
    except NotAFileError as error:
        raise UsageError(f"Cannot import {path}: {error.strerror}; import an export "
                         "file.") from None
    except FileNotFoundError:
        raise UsageError(f"There is no file {path} to import.") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not UTF-8 text; {FROM_AN_EXPORT}.") from None
    except OSError as error:
        raise UsageError(f"Cannot read {path}: {error.strerror}.") from None


# -- Markdown ---------------------------------------------------------------------------

def export_markdown(store: Store, conversation_ids: list[str], *,
                    all_branches: bool = False) -> str:
    """The active path of each conversation; with `all_branches`, every branch."""
    parts = []
    for cid in conversation_ids:
        if all_branches:
            tree = store.get_tree(cid)
            parts.append(conversation_to_markdown(tree.conversation, tree.active_path(),
                                                  other_branches(tree)))
        else:
            parts.append(conversation_to_markdown(store.get_conversation(cid),
                                                  store.get_messages(cid)))
    return "\n\n---\n\n".join(parts)


def other_branches(tree: ConversationTree) -> list[tuple[Message | None, list[Message]]]:
    """Every message off the active path, once, as branches: (the message a branch follows,
    None for another first message; the branch from there down to a leaf, along the active
    choices below it). Depth-first, the older alternative first."""
    below: dict[str | None, list[Message]] = {}
    for message in tree.messages:
        below.setdefault(message.parent_id, []).append(message)
    by_id = {m.id: m for m in tree.messages}
    written = {m.id for m in tree.active_path()}
    branches: list[tuple[Message | None, list[Message]]] = []
    for message in tree.messages:  # parents come first: a branch starts under a written one
        if message.id in written:
            continue
        branch = [message]
        written.add(message.id)
        while below.get(branch[-1].id):
            children = below[branch[-1].id]
            chosen = by_id.get(tree.active_child.get(branch[-1].id, ""), children[-1])
            if chosen.id in written:
                break
            branch.append(chosen)
            written.add(chosen.id)
        parent = by_id.get(message.parent_id) if message.parent_id else None
        branches.append((parent, branch))
    return branches


def conversation_to_markdown(conversation: Conversation, messages: list[Message],
                             branches: list[tuple[Message | None, list[Message]]] | None = None
                             ) -> str:
    """A readable Markdown page: title, details, then each message with its role, model and
    time; reasoning in a collapsible <details> block; then the other `branches`, if given.
    Control characters are dropped."""
    lines = [f"# {_one_line(conversation.title)}", "",
             f"- Conversation: `{conversation.id}`",
             f"- Created: {_when(conversation.created)}; updated: {_when(conversation.updated)}"]
    if conversation.model:
        lines.append(f"- Last model: {_one_line(_who(conversation.provider, conversation.model))}")
    if conversation.system_prompt:
        lines += ["", "**System prompt:**", "", _quote(conversation.system_prompt)]
    every = [*messages, *(m for _, branch in branches or [] for m in branch)]
    answered = {m.parent_id for m in every if m.role is Role.TOOL and m.parent_id}
    for message in messages:
        lines += ["", *_message_markdown(message, answered)]
    for number, (parent, branch) in enumerate(branches or [], start=2):
        after = (f"after “{_one_line(parent.content)[:60] or '(no text)'}” (`{parent.id}`)"
                 if parent else "from another first message")
        lines += ["", "---", "", f"## Branch {number}, {after}"]
        for message in branch:
            lines += ["", *_message_markdown(message, answered, level="###")]
    return sanitize("\n".join(lines)) + "\n"


def _message_markdown(message: Message, answered: Set[str], level: str = "##") -> list[str]:
    role = {Role.USER: "You", Role.ASSISTANT: "Assistant", Role.SYSTEM: "System",
            Role.TOOL: "Tool"}[message.role]
    head = [role]
    if message.role == Role.ASSISTANT and message.model:
        head.append(_one_line(_who(message.provider, message.model)))
    if message.role == Role.ASSISTANT and (badges := protection_badges(message.sent_as)):
        head.append(badges)
    head.append(_when(message.created))
    lines = [f"{level} {' · '.join(head)}", ""]
    if message.reasoning:
        lines += ["<details>", "<summary>Reasoning</summary>", "", message.reasoning.strip(),
                  "", "</details>", ""]
    lines.append(message.content or "*(no text)*")
    for attachment in message.attachments:
        lines += ["", f"*Attached: {_one_line(attachment.name)} ({size_text(attachment.size)}, "
                      f"{attachment.kind})*"]
    lines += _tool_calls_markdown(message, answered)
    if message.status != MessageStatus.COMPLETE:
        note = f" {_one_line(message.error)}" if message.error else ""
        lines += ["", f"*[{message.status.value}]{note}*"]
    if message.note:
        lines += ["", f"*Note: {_one_line(message.note)}*"]
    return lines


def _tool_calls_markdown(message: Message, answered: Set[str]) -> list[str]:
    """A reply's tool calls: the sentence, then each call's name and arguments as a code
    block (the arguments are the model's JSON text, kept whole); a tool message's line
    (its call, status, server and time). `answered`: the replies whose calls were run."""
    if message.tool_call_id is not None:  # the arguments are in the call's block above
        return ["", f"*Result of {_one_line(tool_result_line(message))}*"]
    shown = tool_call_lines(message, run=message.id in answered)
    if shown is None:
        return []
    lines = ["", f"*{shown[0]}*"]
    for call in message.tool_calls:
        fence = _fence_for(call.arguments)
        lines += ["", f"`{_one_line(call.name) or '(no name)'}`", "",
                  f"{fence}json", call.arguments, fence]
    return lines


def _fence_for(text: str) -> str:
    """A backtick fence longer than any run of backticks in `text`."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _who(provider: str | None, model: str) -> str:
    return f"{provider}/{model}" if provider else model


def _when(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S %Z").strip()


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _quote(text: str) -> str:
    return "\n".join("> " + line if line else ">" for line in text.splitlines())
