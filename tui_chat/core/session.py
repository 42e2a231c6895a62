"""A chat session: one conversation, driven one exchange at a time, saved while it streams.

Usage (the UI and `tui-chat ask` do exactly this)::

    session = ChatSession.start(store, system_prompt=...)      # saved on the first send
    session = ChatSession.resume(store, conversation_id)
    async for event in session.send(prompt, client=client, model=model):
        match event:
            case UserMessageSaved(message): ...      # the prompt is on disk
            case ReplyStarted(message): ...          # an empty assistant message, streaming
            case ContentDelta(text) | ReasoningDelta(text): ...   # raw stream events
            case RetryScheduled(): ...
            case ReplyFinished(message): ...         # complete and saved
            case ReplyFailed(message, error): ...    # saved as error/interrupted; no exception

`send`, `regenerate` and `edit_and_resend` are async generators of SessionEvent. The partial
reply is flushed to the store at least every `flush_interval` seconds (by the injected clock)
while deltas arrive, and at its end. A provider failure ends the iteration with ReplyFailed
(status "interrupted" if any text arrived, else "error"; `message.error` holds the sentence).
Cancelling the consuming task, or closing the iterator, saves the reply as interrupted and
re-raises. Any other exception saves it as error and propagates.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tui_chat.core.errors import StoreError, TuiChatError, UsageError, unexpected_error_sentence
from tui_chat.core.events import (
    ContentDelta,
    FinishReason,
    ReasoningDelta,
    StreamEvent,
    UsageReported,
)
from tui_chat.core.models import (
    ChatMessage,
    Conversation,
    Message,
    MessageStatus,
    Parameters,
    Role,
    utc_now,
)
from tui_chat.core.store import ConversationGoneError, Store
from tui_chat.core.text import GrowingText, one_line

if TYPE_CHECKING:  # only a type here: the app starts without importing the HTTP stack
    from tui_chat.core.client import ProviderClient

Clock = Callable[[], float]
TITLE_LIMIT = 80
CANCELLED_NOTE = "The reply was stopped before it finished; the text received so far is kept."


@dataclass(frozen=True, slots=True)
class UserMessageSaved:
    """The user's message is in the store (the conversation too, if it was new)."""

    message: Message


@dataclass(frozen=True, slots=True)
class MessagesRemoved:
    """Messages deleted by regenerate or edit-and-resend, oldest first."""

    message_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ReplyStarted:
    """An empty assistant message (status streaming) is saved; deltas follow."""

    message: Message


@dataclass(frozen=True, slots=True)
class ReplyFinished:
    """The reply is complete and saved."""

    message: Message


@dataclass(frozen=True, slots=True)
class ReplyFailed:
    """The reply failed; `message` is saved as it stands (interrupted or error)."""

    message: Message
    error: TuiChatError


SessionEvent = (UserMessageSaved | MessagesRemoved | ReplyStarted | ReplyFinished | ReplyFailed
                | StreamEvent)


def make_title(prompt: str) -> str:
    """A conversation title from its first prompt: the first non-blank line, one line, trimmed,
    control characters dropped, at most TITLE_LIMIT characters."""
    for line in prompt.splitlines():
        title = one_line(line, TITLE_LIMIT)
        if title:
            return title
    return "New conversation"


class ChatSession:
    """One conversation and its store. Not safe for two exchanges at once."""

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

    @classmethod
    def start(cls, store: Store, *, system_prompt: str | None = None,
              parameters: Parameters | None = None, clock: Clock = time.monotonic,
              flush_interval: float = 1.0) -> ChatSession:
        """A new conversation, written to the store only when the first message is sent."""
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

    def messages(self) -> list[Message]:
        """Every stored message of the conversation, oldest first."""
        return self.store.get_messages(self.conversation.id) if self._saved else []

    def history(self, until: str | None = None) -> list[ChatMessage]:
        """What is sent to the model: the system prompt, then every user message and every
        assistant reply with text (complete or interrupted); failed empty replies and replies
        still streaming elsewhere are left out. `until`: stop after the message with this id
        (the prompt being answered: another tui-chat writing to the same conversation may have
        added messages after it, which are not part of this question)."""
        sent: list[ChatMessage] = []
        if self.conversation.system_prompt:
            sent.append(ChatMessage(role=Role.SYSTEM, content=self.conversation.system_prompt))
        messages = self.messages()
        if until is not None:
            ids = [message.id for message in messages]
            messages = messages[:ids.index(until) + 1] if until in ids else messages
        for message in messages:
            if message.status == MessageStatus.STREAMING or not message.content:
                continue
            if message.role == Role.ASSISTANT and message.status == MessageStatus.ERROR:
                continue
            sent.append(ChatMessage(role=message.role, content=message.content))
        return sent

    def set_system_prompt(self, text: str | None) -> None:
        self.conversation.system_prompt = text or None
        if self._saved:
            self.store.update_conversation(self.conversation)

    def set_parameters(self, parameters: Parameters) -> None:
        self.conversation.parameters = parameters
        if self._saved:
            self.store.update_conversation(self.conversation)

    async def send(self, prompt: str, *, client: ProviderClient, model: str,
                   parameters: Parameters | None = None) -> AsyncGenerator[SessionEvent, None]:
        """Save `prompt` as a user message, then stream and save the reply."""
        user = self._add_user_message(prompt)
        yield UserMessageSaved(user)
        async with contextlib.aclosing(self._reply(client, model, parameters,
                                                   until=user.id)) as events:
            async for event in events:
                yield event

    async def regenerate(self, *, client: ProviderClient, model: str,
                         parameters: Parameters | None = None
                         ) -> AsyncGenerator[SessionEvent, None]:
        """Drop the last reply (if the conversation ends with one) and stream a new one,
        possibly from another provider or model."""
        messages = self.messages()
        if not any(m.role == Role.USER for m in messages):
            raise UsageError("There is nothing to regenerate yet: send a message first.")
        if messages[-1].role == Role.ASSISTANT:
            removed = self.store.delete_messages_from(self.conversation.id, messages[-1].id)
            yield MessagesRemoved(tuple(removed))
        async with contextlib.aclosing(self._reply(client, model, parameters)) as events:
            async for event in events:
                yield event

    async def edit_and_resend(self, message_id: str, new_text: str, *, client: ProviderClient,
                              model: str, parameters: Parameters | None = None
                              ) -> AsyncGenerator[SessionEvent, None]:
        """Replace user message `message_id` and everything after it by `new_text` and a new
        reply."""
        original = self.store.get_message(message_id)
        if original.conversation_id != self.conversation.id or original.role != Role.USER:
            raise UsageError("Only your own messages in this conversation can be edited.")
        removed = self.store.delete_messages_from(self.conversation.id, message_id)
        yield MessagesRemoved(tuple(removed))
        # aclosing: if our consumer stops early, the inner generator saves the partial reply
        # now, not whenever the garbage collector finalizes it.
        async with contextlib.aclosing(self.send(new_text, client=client, model=model,
                                                 parameters=parameters)) as events:
            async for event in events:
                yield event

    # -- internals -----------------------------------------------------------------------

    def _add_user_message(self, prompt: str) -> Message:
        if not prompt.strip():
            raise UsageError("The message is empty: type some text to send.")
        if not self._saved:
            self.conversation.title = make_title(prompt)
            self.conversation.created = self.conversation.updated = utc_now()
            self.store.create_conversation(self.conversation)
            self._saved = True
        message = Message(conversation_id=self.conversation.id, role=Role.USER, content=prompt)
        self.store.add_message(message)
        self.conversation.updated = message.created
        return message

    async def _reply(self, client: ProviderClient, model: str, parameters: Parameters | None,
                     until: str | None = None) -> AsyncGenerator[SessionEvent, None]:
        if parameters is not None and parameters != self.conversation.parameters:
            self.conversation.parameters = parameters
            self.store.update_conversation(self.conversation)
        history = self.history(until)
        reply = Message(conversation_id=self.conversation.id, role=Role.ASSISTANT,
                        provider=client.provider.name, model=model,
                        status=MessageStatus.STREAMING)
        self.store.add_message(reply)
        self.conversation.provider, self.conversation.model = reply.provider, model
        self.conversation.updated = utc_now()
        fold = _Fold(reply, self._clock)
        try:
            yield ReplyStarted(reply.model_copy())
            # aclosing: the response is closed now, not when the garbage collector gets to it.
            async with contextlib.aclosing(client.stream_chat(
                    model, history, parameters or self.conversation.parameters)) as stream:
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
            # A store that cannot save it now (disk full) must not replace the cancellation.
            self.stopped_reply, self.stop_error = self._final_flush(
                fold.stop(CANCELLED_NOTE if stopped else unexpected_error_sentence(error),
                          MessageStatus.INTERRUPTED if stopped else MessageStatus.ERROR))
            raise
        message, unsaved = self._final_flush(fold.finish())
        yield ReplyFinished(message) if unsaved is None else ReplyFailed(message, unsaved)

    def _final_flush(self, fold: _Fold) -> tuple[Message, StoreError | None]:
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

    def _flush_while_streaming(self, fold: _Fold) -> None:
        """A periodic save. When the store cannot take it (disk full, the conversation deleted
        elsewhere), the reply goes on streaming: the final save tries again and says."""
        try:
            self._flush(fold)
        except StoreError:
            fold.flushed()  # not again at once: at the next interval

    def _flush(self, fold: _Fold) -> Message:
        message = fold.snapshot()
        self.store.update_message(message)
        fold.flushed()
        return message


class _Fold:
    """Folds stream events into the assistant message; joins text only when flushing."""

    def __init__(self, message: Message, clock: Clock) -> None:
        self.message = message
        self._clock = clock
        self._content = GrowingText()
        self._reasoning = GrowingText()
        self._deltas = 0
        self._started = clock()
        self._first_token: float | None = None
        self._last_flush = self._started

    def apply(self, event: StreamEvent) -> None:
        if isinstance(event, ContentDelta | ReasoningDelta):
            (self._content if isinstance(event, ContentDelta) else self._reasoning).append(
                event.text)
            self._deltas += 1
            if self._first_token is None:
                self._first_token = self._clock()
                self.message.time_to_first_token = self._first_token - self._started
        elif isinstance(event, FinishReason):
            self.message.finish_reason = event.reason
        elif isinstance(event, UsageReported):
            self.message.usage = event.usage

    def since_flush(self) -> float:
        return self._clock() - self._last_flush

    def flushed(self) -> None:
        self._last_flush = self._clock()

    def snapshot(self) -> Message:
        self.message.content = self._content.text
        self.message.reasoning = self._reasoning.text
        return self.message.model_copy()

    def finish(self) -> _Fold:
        self._measure()
        self.message.status = MessageStatus.COMPLETE
        return self

    def fail(self, sentence: str) -> _Fold:
        received = self._deltas > 0
        return self.stop(sentence,
                         MessageStatus.INTERRUPTED if received else MessageStatus.ERROR)

    def stop(self, sentence: str, status: MessageStatus) -> _Fold:
        self._measure()
        self.message.status = status
        self.message.error = sentence
        return self

    def _measure(self) -> None:
        if self._first_token is None:
            return
        usage = self.message.usage
        tokens = usage.completion_tokens if usage and usage.completion_tokens else self._deltas
        elapsed = self._clock() - self._first_token
        if elapsed > 0 and tokens > 0:
            self.message.tokens_per_second = tokens / elapsed
