"""A chat session: one conversation (a tree of messages), driven one exchange at a time along
its active path, saved while it streams.

Usage (the UI and `tui-chat ask` do exactly this)::

    session = ChatSession.start(store, system_prompt=...)      # saved on the first send
    session = ChatSession.resume(store, conversation_id)
    async for event in session.send(prompt, client=client, model=model):
        match event:
            case ActivePathChanged(_, after_id): ...  # drop what is shown below after_id
            case UserMessageSaved(message): ...      # the prompt is on disk
            case ReplyStarted(message): ...          # an empty assistant message, streaming
            case ContentDelta(text) | ReasoningDelta(text): ...   # raw stream events
            case RetryScheduled(): ...
            case ReplyFinished(message): ...         # complete and saved
            case ReplyFailed(message, error): ...    # saved as error/interrupted; no exception

`send`, `regenerate`, `edit_and_resend` and `reply_to` are async generators of SessionEvent.
Nothing is ever deleted by them: regenerate adds a sibling reply and makes it active; edit and
resend adds a sibling user message with its own new reply, the old branch stays. The one
exception is a reply that failed, or was stopped, before any token: it is not a branch, the
retry (the same prompt sent again, or regenerate) takes its place, and the prompt is not saved
twice.

Context (`history`): the active path up to the prompt, without replies still streaming, empty
ones, and failed ones (`Message.failed`: errors, and interruptions by a failure or a crash). A
reply the user stopped (Esc, Ctrl+C) is context (one stopped before any token is not: it is
empty, `Message.stopped_before_start`); one cut off by a failure is only when the user
continues from it on purpose (`send(..., continue_partial=True)`).

The partial reply is flushed to the store at least every `flush_interval` seconds (by the
injected clock) while deltas arrive, when the stream goes quiet with text unsaved (a timer of
the same interval: what arrived before a stall is not left to wait for the next delta, which
a hard kill would lose), and at its end. A provider failure ends the iteration with
ReplyFailed (status "interrupted" if any text arrived, else "error"; `message.error` holds the
sentence). Cancelling the consuming task, or closing the iterator, saves the reply as
interrupted and re-raises. Any other exception saves it as error and propagates.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from tui_chat.core.attachments import wire_content
from tui_chat.core.context import in_context, sent_text
from tui_chat.core.continuation import CONTINUE_FINAL
from tui_chat.core.errors import StoreError, TuiChatError, UsageError, unexpected_error_sentence
from tui_chat.core.events import StreamEvent
from tui_chat.core.models import (  # ActivePathChanged: a session event, kept beside the records
    ActivePathChanged as ActivePathChanged,
)
from tui_chat.core.models import (
    Attachment,
    ChatMessage,
    Conversation,
    Message,
    MessageStatus,
    Parameters,
    Role,
    Siblings,
    utc_now,
)
from tui_chat.core.protection import sent_as
from tui_chat.core.reply_fold import ReplyFold
from tui_chat.core.store import ConversationGoneError, Store
from tui_chat.core.summaries import context_start, system_text
from tui_chat.core.text import one_line
from tui_chat.core.tool_exchange import ToolBox, ToolCallFinished, ToolCallStarted, run_calls
from tui_chat.core.tool_turns import valid_turns

if TYPE_CHECKING:  # only a type here: the app starts without importing the HTTP stack
    from tui_chat.core.client import ProviderClient
    from tui_chat.core.personas import Persona

Clock = Callable[[], float]
TITLE_LIMIT = 80
CANCELLED_NOTE = "The reply was stopped before it finished; the text received so far is kept."
NOT_STARTED_NOTE = ("The reply was stopped before it began; sending the same message again "
                    "(or regenerating) retries it.")


class UserMessageSaved(Struct, frozen=True):
    """The user's message is in the store (the conversation too, if it was new)."""

    message: Message


class ReplyStarted(Struct, frozen=True):
    """An empty assistant message (status streaming) is saved; deltas follow."""

    message: Message


class ReplyFinished(Struct, frozen=True):
    """The reply is complete and saved."""

    message: Message


class ReplyFailed(Struct, frozen=True):
    """The reply failed; `message` is saved as it stands (interrupted or error)."""

    message: Message
    error: TuiChatError


SessionEvent = (ActivePathChanged | UserMessageSaved | ReplyStarted | ReplyFinished | ReplyFailed
                | ToolCallStarted | ToolCallFinished | StreamEvent)


def make_title(prompt: str) -> str:
    """A conversation title from its first prompt: the first non-blank line, one line, trimmed,
    control characters dropped, at most TITLE_LIMIT characters."""
    for line in prompt.splitlines():
        title = one_line(line, TITLE_LIMIT)
        if title:
            return title
    return "New conversation"


class ChatSession:
    """One conversation and its store. Not safe for two exchanges at once (a comparison is
    one exchange: see compare.py)."""

    def __init__(self, store: Store, conversation: Conversation, *, saved: bool = True,
                 clock: Clock = time.monotonic, flush_interval: float = 1.0) -> None:
        self.store = store
        self.conversation = conversation
        self._saved = saved
        self._clock = clock
        self.flush_interval = flush_interval
        self.stopped_reply: Message | None = None
        """The last reply that was stopped (cancelled, closed), as it ended."""
        self.stop_error: StoreError | None = None
        """Why `stopped_reply` is not in the store (its `error` says so too), else None."""
        self.cost_of: Callable[[Message], float | None] | None = None
        """What a finished reply cost (USD), from its usage and its model's prices; the
        workspace sets it."""
        self.in_tee: Callable[[str, str], bool] | None = None
        """Whether the provider lists (provider, model) as running in a TEE (not verified)."""
        self.longest_reply: Callable[[str, str], int | None] | None = None
        """The longest reply the provider allows (provider, model), in tokens (Chutes'
        `max_output_length`); a larger `max_tokens` is lowered to it. The workspace sets it."""
        self.takes_reasoning: Callable[[str, str], bool] | None = None
        """Whether (provider, model) is known to take a reasoning setting
        (core.dialect.takes_reasoning); the conversation's `reasoning` is sent only then. The
        workspace sets it."""
        self.takes_images = False
        """Whether the model of the next requests reads images (the workspace sets it)."""
        self.max_tokens_limit: int | None = None
        """The next requests send at most this `max_tokens` (so that prompt and reply fit the
        window); the conversation's own parameters stay as they are. The workspace sets it."""

    @classmethod
    def start(cls, store: Store, *, system_prompt: str | None = None,
              parameters: Parameters | None = None, clock: Clock = time.monotonic,
              flush_interval: float = 1.0) -> ChatSession:
        """A new conversation, written to the store only when the first message is sent."""
        # Values already validated (the settings', a persona's) or defaults: a record's
        # constructor checks nothing (core.records).
        conversation = Conversation(system_prompt=system_prompt or None,
                                    parameters=parameters or Parameters())
        return cls(store, conversation, saved=False, clock=clock, flush_interval=flush_interval)

    @classmethod
    def resume(cls, store: Store, conversation_id: str, *, clock: Clock = time.monotonic,
               flush_interval: float = 1.0) -> ChatSession:
        """The stored conversation with this id (NotFoundError if none)."""
        return cls(store, store.get_conversation(conversation_id), clock=clock,
                   flush_interval=flush_interval)

    @property
    def is_saved(self) -> bool:
        return self._saved

    def messages(self, newest: int | None = None) -> list[Message]:
        """The active path of the conversation, oldest first; with `newest`, only its last
        `newest` messages (the rest: `messages_above` the first of them)."""
        if not self._saved:
            return []
        return self.store.get_messages(self.conversation.id, limit=newest)

    def messages_above(self, message_id: str) -> list[Message]:
        """The path above `message_id` (its parent up to the root), oldest first: what is
        left to read of a path read newest first. It follows parent links, not the active
        choices, so it fits below what was read even if the path changes meanwhile. Safe in
        another thread (the store locks its connection)."""
        if not self._saved:
            return []
        return self.store.get_messages(self.conversation.id, before_id=message_id)

    def path_below(self, after_id: str | None,
                   known: Mapping[str, Message] | None = None) -> list[Message]:
        """The active path below message `after_id` (None: all of it), oldest first (see
        Store.path_below for `known`)."""
        if not self._saved:
            return []
        return self.store.path_below(self.conversation.id, after_id, known)

    def history(self, until: str | None = None) -> list[ChatMessage]:
        """What is sent to the model: the system prompt, then the active path (with `until`:
        the path from the root to that message, the prompt being answered) from the
        conversation's `context_from` on, in turns that alternate: replies still streaming,
        empty and failed ones left out, and with a failed reply its prompt, when another
        prompt follows it (see `context.in_context`). A summary in force (`context_from`
        names it) is sent in the system message, in place of the turns it summarises."""
        sent: list[ChatMessage] = []
        path = self.store.path_to(until) if until is not None else self.messages()
        start, summary = self.context_start(path)
        system = system_text(self.conversation.system_prompt, summary)
        if system:
            sent.append(ChatMessage(role=Role.SYSTEM, content=system))
        kept = valid_turns(in_context(path, start))
        files = self.store.attachments_of(m.id for m in kept if m.attachments)
        sent.extend(ChatMessage(role=message.role,
                                content=message.content if message.tool_calls
                                else sent_text(message),
                                attachments=files.get(message.id, []),
                                tool_calls=message.tool_calls,
                                tool_call_id=message.tool_call_id)
                    for message in kept)
        return sent

    def context_start(self, path: Sequence[Message]) -> tuple[str | None, Message | None]:
        """(the first message of `path` sent as context, the summary sent in place of those
        before it): see core.summaries."""
        return context_start(path, self.conversation.context_from, self.store.get_message)

    def request(self, until: str) -> list[ChatMessage]:
        """`history(until)` as the request sends it: attachments inside the messages, images
        as content parts when the model reads them (`takes_images`), else a line saying so."""
        return [m if not m.attachments else ChatMessage(
                    role=m.role, content=wire_content(m.text, m.attachments,
                                                      takes_images=self.takes_images))
                for m in self.history(until)]

    # -- the conversation's own settings -------------------------------------------------

    def set_system_prompt(self, text: str | None) -> None:
        self.conversation.system_prompt = text if text and text.strip() else None
        if self._saved:
            self.store.set_system_prompt(self.conversation.id, self.conversation.system_prompt)

    def set_parameters(self, parameters: Parameters) -> None:
        self.conversation.parameters = parameters
        if self._saved:
            self.store.set_parameters(self.conversation.id, parameters)

    def set_context_from(self, message_id: str | None) -> None:
        """Send the active path from `message_id` on (None: all of it): the messages before it
        stay in the conversation, out of the context."""
        self.conversation.context_from = message_id
        self.conversation.context_from_set = utc_now()
        if self._saved:
            self.store.set_context_from(self.conversation.id, message_id)

    def apply_persona(self, persona: Persona) -> None:
        """The persona's system prompt, and its parameters over the conversation's own (its
        provider and model are for the caller to choose)."""
        self.set_system_prompt(persona.system_prompt)
        if persona.parameters is not None:
            merged = {**self.conversation.parameters.model_dump(exclude_none=True),
                      **persona.parameters.model_dump(exclude_none=True)}
            self.set_parameters(Parameters.model_validate(merged))

    # -- exchanges -----------------------------------------------------------------------

    async def send(self, prompt: str, *, client: ProviderClient, model: str,
                   parameters: Parameters | None = None, continue_partial: bool = False,
                   attachments: Sequence[Attachment] = (), tools: ToolBox | None = None
                   ) -> AsyncGenerator[SessionEvent, None]:
        """Save `prompt` (with `attachments`) at the end of the active path, then stream and
        save the reply.

        After a failed reply to the same prompt this is a retry: the prompt is not saved
        again. `continue_partial`: the reply the path ends with was cut off by a failure, and
        the user continues from it anyway: it becomes context. `tools`: the tools offered,
        and the calls run, kept in the tree (core.tool_exchange)."""
        user, events, new = self._prompt_for(prompt, continue_partial, attachments)
        for event in events:
            yield event
        # aclosing: if our consumer stops early, the inner generator saves the partial reply
        # now, not whenever the garbage collector finalizes it.
        async with contextlib.aclosing(self._exchange(
                client, model, parameters, user.id, tools, new_prompt=user if new else None,
                files=attachments)) as replies:
            async for event in replies:
                yield event

    def prepare_prompt(self, prompt: str, *, continue_partial: bool = False,
                       attachments: Sequence[Attachment] = ()
                       ) -> tuple[Message, list[SessionEvent]]:
        """The user message a new reply answers (saved, or reused for a retry), and the events
        that say so."""
        message, events, new = self._prompt_for(prompt, continue_partial, attachments)
        if new:
            self.store.add_message(message, attachments=attachments)
            self.conversation.updated = message.created
            events.append(UserMessageSaved(message))
        return message, events

    def _prompt_for(self, prompt: str, continue_partial: bool,
                    attachments: Sequence[Attachment] = ()
                    ) -> tuple[Message, list[SessionEvent], bool]:
        """(the user message to answer, the events before it, whether it is new: not saved
        yet). A retry reuses the prompt of the failed reply."""
        if not prompt.strip():
            raise UsageError("The message is empty: type some text to send.")
        if not self._saved:
            self.conversation.title = make_title(prompt)
            self.conversation.created = self.conversation.updated = utc_now()
            self.store.create_conversation(self.conversation)
            self._saved = True
        tail = self.store.get_messages(self.conversation.id, limit=2)
        leaf = tail[-1] if tail else None
        unanswered = self._unanswered(tail)
        files = [(a.name, a.size) for a in attachments]
        if (unanswered is not None and unanswered.content.strip() == prompt.strip()
                and [(a.name, a.size) for a in unanswered.attachments] == files):
            assert leaf is not None
            if leaf.id == unanswered.id:
                return unanswered, [], False
            self._replace_if_empty(leaf)
            return unanswered, [ActivePathChanged(self.conversation.id, unanswered.id)], False
        if (continue_partial and leaf is not None and leaf.role == Role.ASSISTANT
                and leaf.status == MessageStatus.INTERRUPTED and leaf.content):
            leaf.partial_in_context = True
            self.store.update_message(leaf)
        message = Message(conversation_id=self.conversation.id, role=Role.USER, content=prompt,
                          attachments=[a.info() for a in attachments])
        return message, [], True

    @staticmethod
    def _unanswered(tail: list[Message]) -> Message | None:
        """The prompt at the end of the active path that has no usable reply: the last
        message, or the one before a failed reply."""
        if not tail:
            return None
        if tail[-1].role == Role.USER:
            return tail[-1]
        if tail[-1].failed and len(tail) == 2 and tail[0].role == Role.USER:
            return tail[0]
        return None

    def _replace_if_empty(self, reply: Message) -> None:
        """A reply that failed before any token is not a branch: the new attempt replaces it."""
        if (reply.failed and reply.empty and reply.status != MessageStatus.STREAMING
                and not self.store.children(self.conversation.id, reply.id)):
            self.store.delete_subtree(reply.id)

    async def regenerate(self, *, client: ProviderClient, model: str,
                         parameters: Parameters | None = None, reply_id: str | None = None,
                         tools: ToolBox | None = None) -> AsyncGenerator[SessionEvent, None]:
        """A new reply, possibly from another provider or model, as a sibling of `reply_id`
        (default: the reply the active path ends with; a prompt without a reply gets its
        first). The old reply stays, as another branch (unless it failed before any token).
        A reply that answers tool results is written again from the same results."""
        path = self.messages()
        if not any(m.role == Role.USER for m in path):
            raise UsageError("There is nothing to regenerate yet: send a message first.")
        target = self.store.get_message(reply_id) if reply_id is not None else path[-1]
        if target.conversation_id != self.conversation.id:
            raise UsageError("That message is not part of this conversation.")
        prompt = target
        if target.role != Role.USER:
            parent = self.store.get_message(target.parent_id) if target.parent_id else None
            if parent is None or parent.role not in (Role.USER, Role.TOOL):
                raise UsageError("That reply answers no message of yours, so it cannot be "
                                 "written again; edit a message of yours instead.")
            prompt = parent
            self._replace_if_empty(target)
        if prompt.id != path[-1].id:
            yield ActivePathChanged(self.conversation.id, prompt.id)
        async with contextlib.aclosing(self._exchange(client, model, parameters, prompt.id,
                                                      tools)) as replies:
            async for event in replies:
                yield event

    async def edit_and_resend(self, message_id: str, new_text: str, *, client: ProviderClient,
                              model: str, parameters: Parameters | None = None,
                              tools: ToolBox | None = None
                              ) -> AsyncGenerator[SessionEvent, None]:
        """`new_text` as a sibling of user message `message_id`, with its own new reply; the
        original and everything after it stay, as the other branch."""
        original = self.store.get_message(message_id)
        if original.conversation_id != self.conversation.id or original.role != Role.USER:
            raise UsageError("Only your own messages in this conversation can be edited.")
        if not new_text.strip():
            raise UsageError("The message is empty: type some text to send.")
        edited = Message(conversation_id=self.conversation.id, role=Role.USER,
                         content=new_text, parent_id=original.parent_id)
        self.store.add_message(edited, as_root=original.parent_id is None)
        yield ActivePathChanged(self.conversation.id, original.parent_id)
        yield UserMessageSaved(edited)
        async with contextlib.aclosing(self._exchange(client, model, parameters, edited.id,
                                                      tools)) as replies:
            async for event in replies:
                yield event

    async def continue_reply(self, reply_id: str, *, client: ProviderClient, model: str,
                             parameters: Parameters | None = None
                             ) -> AsyncGenerator[SessionEvent, None]:
        """A new branch beside assistant message `reply_id` that starts with its text and goes
        on from where it ends: the request ends with that text as an assistant message, which
        the provider continues (`CONTINUE_FINAL`, core.continuation). The original stays."""
        reply = self.store.get_message(reply_id)
        if (reply.conversation_id != self.conversation.id or reply.role is not Role.ASSISTANT
                or not reply.content.strip() or reply.parent_id is None):
            raise UsageError("Only a reply with text in this conversation can be continued.")
        if reply.tool_calls:
            raise UsageError("A reply that called tools cannot be continued: regenerate it "
                             "instead.")
        yield ActivePathChanged(self.conversation.id, reply.parent_id)
        async with contextlib.aclosing(self._reply(client, model, parameters, reply.parent_id,
                                                   prefix=reply.content)) as replies:
            async for event in replies:
                yield event

    def reply_to(self, prompt_id: str, *, client: ProviderClient, model: str,
                 parameters: Parameters | None = None, activate: bool = True
                 ) -> AsyncGenerator[SessionEvent, None]:
        """Stream a new reply to user message `prompt_id`, as a sibling of its other replies
        (`activate`: it becomes the active one). Compare runs several at once."""
        return self._reply(client, model, parameters, prompt_id, activate=activate)

    # -- branches ------------------------------------------------------------------------

    def siblings(self, message_id: str) -> Siblings:
        return self.store.siblings(message_id)

    def switch_sibling(self, message_id: str, step: int) -> ActivePathChanged | None:
        """Show the sibling `step` places away (the choices below it are remembered)."""
        return self.store.switch_sibling(message_id, step)

    def activate(self, message_id: str) -> ActivePathChanged | None:
        """Make the path to any message of the conversation the active one (a search hit on
        another branch; the reply chosen after a comparison)."""
        return self.store.activate(message_id)

    def delete(self, message_id: str) -> ActivePathChanged | None:
        """Delete a message and every message below it (ask the user first)."""
        message = self.store.get_message(message_id)
        if message.conversation_id != self.conversation.id:
            raise UsageError("That message is not part of this conversation.")
        return self.store.delete_subtree(message_id)[1]

    def fork(self, message_id: str) -> ChatSession:
        """A new conversation holding the path up to `message_id`, recording where it came
        from."""
        return ChatSession(self.store, self.store.fork(message_id), clock=self._clock,
                           flush_interval=self.flush_interval)

    # -- internals -----------------------------------------------------------------------

    async def _exchange(self, client: ProviderClient, model: str,
                        parameters: Parameters | None, prompt_id: str, box: ToolBox | None, *,
                        new_prompt: Message | None = None, files: Sequence[Attachment] = ()
                        ) -> AsyncGenerator[SessionEvent, None]:
        """A reply to `prompt_id`; with `box`, its tools offered and the loop run: each
        reply that calls tools is followed by the calls' tool messages, then the next reply
        (core.tool_exchange)."""
        tools = await box.offered() if box is not None else []
        parent = prompt_id
        for step in range(box.max_steps + 1 if box is not None else 1):
            finished: Message | None = None
            async with contextlib.aclosing(self._reply(
                    client, model, parameters, parent, new_prompt=new_prompt, files=files,
                    tools=tools)) as replies:
                async for event in replies:
                    if isinstance(event, ReplyFinished):
                        finished = event.message
                    yield event
            new_prompt, files = None, ()
            if box is None or not tools or finished is None or not finished.tool_calls:
                return
            async with contextlib.aclosing(run_calls(
                    self.store, box, finished, over=step == box.max_steps)) as calls:
                async for call_event in calls:
                    parent = call_event.message.id
                    yield call_event

    async def _reply(self, client: ProviderClient, model: str, parameters: Parameters | None,
                     prompt_id: str, *, activate: bool = True, new_prompt: Message | None = None,
                     files: Sequence[Attachment] = (), tools: Sequence[dict[str, Any]] = (),
                     prefix: str = "") -> AsyncGenerator[SessionEvent, None]:
        """Stream a reply to `prompt_id`; `new_prompt`: that prompt, saved together with the
        reply's first row (with `files`, its attachments); `tools`: offered in the request;
        `prefix`: the text the reply starts with, which the provider continues."""
        if parameters is not None and parameters != self.conversation.parameters:
            self.set_parameters(parameters)
        sent = self._sent_parameters(parameters, client.provider.name, model)
        reply = Message(conversation_id=self.conversation.id, parent_id=prompt_id,
                        role=Role.ASSISTANT, provider=client.provider.name, model=model,
                        content=prefix, status=MessageStatus.STREAMING, sent_as=sent_as(
                            end_to_end=False, tee=bool(self.in_tee and self.in_tee(
                                client.provider.name, model))),
                        reasoning_sent=sent.reasoning)
        if new_prompt is not None:
            self.store.add_exchange(new_prompt, reply, files)
        else:
            self.store.add_message(reply, activate=activate)
        history = self.request(prompt_id)
        extra: dict[str, Any] = {"tools": list(tools)} if tools else {}
        if prefix:
            history.append(ChatMessage(role=Role.ASSISTANT, content=prefix))
            extra.update(CONTINUE_FINAL)
        self.conversation.provider, self.conversation.model = reply.provider, model
        self.conversation.updated = utc_now()
        fold = ReplyFold(reply, self._clock)
        stop_saving = self._save_while_quiet(fold)
        try:
            if new_prompt is not None:
                yield UserMessageSaved(new_prompt)
            yield ReplyStarted(reply.model_copy())
            # aclosing: the response is closed now, not when the garbage collector gets to it.
            async with contextlib.aclosing(client.stream_chat(
                    model, history, sent, e2ee=sent.e2ee,
                    extra=extra or None)) as stream:
                async for event in stream:
                    fold.apply(event)
                    if fold.since_flush() >= self.flush_interval:
                        self._flush_while_streaming(fold)
                    yield event
        except TuiChatError as error:
            message, unsaved = self._final_flush(fold.fail(error.message))
            yield ReplyFailed(message, unsaved or error)
            return
        except BaseException as error:
            # Cancellation, a closed iterator, or a bug: keep what arrived, then re-raise.
            stopped = isinstance(error, GeneratorExit | KeyboardInterrupt | asyncio.CancelledError)
            # Stopped by the user: what they saw is what the conversation continues from.
            fold.message.partial_in_context = stopped and fold.received
            # A store that cannot save it now (disk full) must not replace the cancellation.
            note = ((CANCELLED_NOTE if fold.received else NOT_STARTED_NOTE) if stopped
                    else unexpected_error_sentence(error))
            self.stopped_reply, self.stop_error = self._final_flush(
                fold.stop(note, MessageStatus.INTERRUPTED if stopped else MessageStatus.ERROR))
            raise
        finally:
            stop_saving()
        message, unsaved = self._final_flush(self._priced(fold.finish()))
        yield ReplyFinished(message) if unsaved is None else ReplyFailed(message, unsaved)

    def _sent_parameters(self, parameters: Parameters | None, provider: str,
                         model: str) -> Parameters:
        """What goes with the request: `max_tokens` within the limits (the room the window
        leaves, the longest reply the model allows); `reasoning` only for a model known to
        take it (else the model's default: nothing is sent)."""
        sent = parameters or self.conversation.parameters
        longest = self.longest_reply(provider, model) if self.longest_reply else None
        limit = min((cap for cap in (self.max_tokens_limit, longest) if cap), default=None)
        if limit is not None and sent.max_tokens is not None and sent.max_tokens > limit:
            sent = sent.model_copy(update={"max_tokens": limit})
        if sent.reasoning is not None and not (
                self.takes_reasoning is not None and self.takes_reasoning(provider, model)):
            sent = sent.model_copy(update={"reasoning": None})
        return sent

    def _priced(self, fold: ReplyFold) -> ReplyFold:
        usage = fold.message.usage
        if self.cost_of is not None and usage is not None and usage.cost_usd is None:
            usage.cost_usd = self.cost_of(fold.message)
        return fold

    def _final_flush(self, fold: ReplyFold) -> tuple[Message, StoreError | None]:
        """Save the reply as it ends. When the store cannot take it (disk full, read-only), the
        reply is still returned, whole, with a sentence saying it was not saved."""
        try:
            return self._flush(fold), None
        except StoreError as error:
            unsaved = error
            if not isinstance(error, ConversationGoneError):  # that one is said by its kind
                unsaved = StoreError(f"{error.message.rstrip('.')}; the reply is shown but was "
                                     "not saved.")
            fold.message.error = unsaved.message
            return fold.snapshot(), unsaved

    def _save_while_quiet(self, fold: ReplyFold) -> Callable[[], None]:
        """A timer, every `flush_interval` of the loop's time, that saves the reply when
        events arrived since the last save and none for an interval (the save in the loop
        runs only when the next one comes); returns the function that stops it."""
        loop = asyncio.get_running_loop()
        timer: list[asyncio.TimerHandle] = []  # the one pending

        def check() -> None:
            timer[:] = [loop.call_later(self.flush_interval, check)]
            if fold.unsaved() and fold.since_flush() >= self.flush_interval:
                self._flush_while_streaming(fold)

        check_later = loop.call_later(self.flush_interval, check)
        timer.append(check_later)
        return lambda: timer[0].cancel()

    def _flush_while_streaming(self, fold: ReplyFold) -> None:
        """A periodic save. When the store cannot take it (disk full, the conversation deleted
        elsewhere), the reply goes on streaming: the final save tries again and says."""
        try:
            self._flush(fold)
        except StoreError:
            fold.flushed()  # not again at once: at the next interval

    def _flush(self, fold: ReplyFold) -> Message:
        message = fold.snapshot()
        self.store.update_message(message)
        fold.flushed()
        return message
