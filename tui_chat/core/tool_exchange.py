"""Running a reply's tool calls inside the exchange, each kept in the tree as it happens.

`ChatSession` offers tools when the front-end's workspace hands it a `ToolBox` (the MCP
servers enabled for the conversation: core/mcp/exchange.py; none: no tools). When a reply
calls tools, each call becomes a `tool` message below the one before (see core/tool_turns):
added as "asking" before the call is put to the user, "approved" once it runs
(`ToolCallStarted`, with what cancels it: Esc), complete with its result, status, server and
seconds when it ends (`ToolCallFinished`). Then the next reply answers them, and so on, until
a reply calls no tool or `max_steps` replies did: the calls of the one over the limit are not
run, each answered "not run" with a sentence that says how to go on.

No MCP here (this module is on the path every exchange takes): the box does the asking and
the running.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Callable
from typing import Any, Protocol

from msgspec import Struct

from tui_chat.core.models import Attachment, Message, MessageStatus, Role, ToolCall, ToolRun
from tui_chat.core.store import Store

Cancel = Callable[[], None]


class RunProgress:
    """A running call's progress as its server last reported it (MCP
    `notifications/progress`): `done` of `total` (None: unknown), and its `message`. The box
    writes it as notifications arrive; the live row reads it when it redraws (no event per
    notification: a server may send thousands)."""

    def __init__(self) -> None:
        self.done: float | None = None
        self.total: float | None = None
        self.message: str | None = None

    def update(self, done: float, total: float | None, message: str | None) -> None:
        self.done, self.total, self.message = done, total, message


class CallOutcome(Struct, frozen=True):
    """What became of one call: `result` goes back to the model."""

    status: str
    result: str
    server: str | None = None
    seconds: float | None = None
    files: tuple[Attachment, ...] = ()
    """The result's images, kept with the tool message for the user (the model gets the
    text, which names them)."""


class ToolBox(Protocol):
    """The tools of one exchange, and how a call is approved and run."""

    max_steps: int

    async def offered(self) -> list[dict[str, Any]]:
        """The tools, as the request's `tools` (starts the servers on first use)."""
        ...

    def server_of(self, name: str) -> str | None:
        """The server offering the tool the model called `name` (None: none does)."""
        ...

    async def run(self, call: ToolCall, started: Callable[[Cancel], None],
                  progress: RunProgress | None = None) -> CallOutcome:
        """Check the call, put it to the user when the policy says so, run it. `started`
        hears when it runs, with what cancels it (the call then ends "cancelled");
        `progress` is kept up to date with what the server reports while it runs."""
        ...


class ToolCallStarted(Struct, frozen=True):
    """A call is approved and running: its `tool` message (status streaming), what
    cancels it (Esc), and its progress as the server reports it (read when drawn)."""

    message: Message
    cancel: Cancel
    progress: RunProgress | None = None


class ToolCallFinished(Struct, frozen=True):
    """A call ended: its `tool` message, complete and saved (`message.tool_run` says how)."""

    message: Message


def not_run_sentence(max_steps: int) -> str:
    return (f"Not run: tui-chat stops after {max_steps} replies that call tools in one "
            "exchange (max_steps under [mcp] in config.toml); send a message to go on.")


async def run_calls(store: Store, box: ToolBox, reply: Message, *, over: bool
                    ) -> AsyncGenerator[ToolCallStarted | ToolCallFinished, None]:
    """Answer each call of `reply` with a tool message, the child of the one before (the
    first: of `reply`). `over`: the step limit is reached, none runs."""
    if any(not call.id for call in reply.tool_calls):  # each result must name its call
        reply.tool_calls = [call if call.id else ToolCall(id=f"call_{index}", name=call.name,
                                                          arguments=call.arguments)
                            for index, call in enumerate(reply.tool_calls)]
        store.update_message(reply)
    parent = reply.id
    for call in reply.tool_calls:
        message = Message(conversation_id=reply.conversation_id, parent_id=parent,
                          role=Role.TOOL, tool_call_id=call.id, status=MessageStatus.STREAMING,
                          tool_run=ToolRun(status="asking", name=call.name,
                                           server=box.server_of(call.name)))
        store.add_message(message)
        if over:
            outcome = CallOutcome("not-run", not_run_sentence(box.max_steps))
        else:
            async with contextlib.aclosing(_run_one(store, box, call, message)) as steps:
                async for event in steps:
                    if isinstance(event, CallOutcome):
                        outcome = event
                    else:
                        yield event
        message.content = outcome.result
        message.status = MessageStatus.COMPLETE
        message.tool_run = ToolRun(status=outcome.status, name=call.name,
                                   server=outcome.server, seconds=outcome.seconds)
        store.update_message(message)
        if outcome.files:
            store.attach(message, outcome.files)
        yield ToolCallFinished(message.model_copy())
        parent = message.id


async def _run_one(store: Store, box: ToolBox, call: ToolCall, message: Message
                   ) -> AsyncGenerator[ToolCallStarted | CallOutcome, None]:
    """The call run by `box`: a ToolCallStarted when it runs, then its CallOutcome. Stopped
    (the exchange cancelled or closed) while it waits or runs: the call is cancelled, its
    message saved as interrupted."""
    started: asyncio.Queue[Cancel] = asyncio.Queue()
    progress = RunProgress()
    task = asyncio.create_task(box.run(call, started.put_nowait, progress))
    try:
        while not task.done():
            waiting = asyncio.create_task(started.get())
            await asyncio.wait({task, waiting}, return_when=asyncio.FIRST_COMPLETED)
            if not waiting.done():
                waiting.cancel()
                continue
            assert message.tool_run is not None
            message.tool_run = ToolRun(status="approved", name=message.tool_run.name,
                                       server=message.tool_run.server)
            store.update_message(message)
            yield ToolCallStarted(message.model_copy(), waiting.result(), progress)
        yield task.result()
    except BaseException:
        task.cancel()
        with contextlib.suppress(BaseException):
            await task
        assert message.tool_run is not None
        message.status = MessageStatus.INTERRUPTED
        message.tool_run = ToolRun(status="interrupted", name=message.tool_run.name,
                                   server=message.tool_run.server)
        with contextlib.suppress(Exception):  # the store failing must not hide the stop
            store.update_message(message)
        raise
