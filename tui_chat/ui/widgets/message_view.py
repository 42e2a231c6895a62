"""How one message looks: a finished message is ONE widget; the reply in progress streams.

A finished message is a single `Static` holding a Rich renderable (Markdown for the assistant,
plain text for the user): ~1 widget instead of ~11 for Textual's `Markdown`, which is what
makes a 2,000-message history cheap. The reply in progress is a `ReplyView`: a header, a
"Thinking" collapsible and a live Textual `Markdown` fed by a `PacedMarkdownStream`.
Everything shown here is untrusted: it goes through `sanitize()` and never through markup.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from markdown_it import MarkdownIt
from rich.console import Group, RenderableType
from rich.markdown import Markdown as RichMarkdown
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Collapsible, Markdown, Static

from tui_chat.core.models import Message, MessageStatus, Role
from tui_chat.core.providers import BUILTIN_PROVIDERS
from tui_chat.core.text import sanitize

MIN_FLUSH_INTERVAL = 0.05
"""Seconds between two appends to the live Markdown, at least (~20 a second)."""
FLUSH_COST_FACTOR = 2.0
"""Wait at least this many times the last append's cost, so rendering never hogs the loop."""


def provider_label(name: str | None) -> str:
    """A provider's display name ("Chutes") from its name ("chutes")."""
    if not name:
        return "unknown provider"
    spec = BUILTIN_PROVIDERS.get(name)
    return spec.display_name if spec else sanitize(name)


def author_line(message: Message) -> Text:
    """The header of a message: who wrote it, and its state when not complete."""
    if message.role is Role.USER:
        line = Text("You", style="bold")
    else:
        line = Text(sanitize(message.model or "assistant"), style="bold")
        line.append(f"  {provider_label(message.provider)}", style="dim")
    if message.status is MessageStatus.INTERRUPTED:
        line.append("  · interrupted", style="italic")
    elif message.status is MessageStatus.ERROR:
        line.append("  · failed", style="italic")
    elif message.status is MessageStatus.STREAMING:
        line.append("  · incomplete", style="italic")
    return line


def render_message(message: Message, *, code_theme: str = "monokai",
                   show_reasoning: bool = False) -> RenderableType:
    """The whole message as one Rich renderable (literal text; Markdown for the assistant)."""
    parts: list[RenderableType] = [author_line(message)]
    if message.reasoning:
        words = len(message.reasoning.split())
        if show_reasoning:
            parts.append(Text(f"▼ Thinking ({words} words)", style="dim"))
            parts.append(Text(sanitize(message.reasoning.strip()), style="dim italic"))
        else:
            parts.append(Text(f"▶ Thinking ({words} words; t shows it)", style="dim"))
    content = sanitize(message.content)
    if message.role is Role.ASSISTANT:
        if content.strip():
            parts.append(RichMarkdown(content, code_theme=code_theme, hyperlinks=False))
    else:
        parts.append(Text(content))
    if message.error:
        parts.append(Text(f"⚠ {sanitize(message.error)}", style="bold red"))
    return Group(*parts)


def last_code_block(markdown: str) -> str | None:
    """The body of the last fenced or indented code block in `markdown`, if any."""
    tokens = MarkdownIt("commonmark").parse(markdown)
    blocks = [t.content for t in tokens if t.type in ("fence", "code_block")]
    return blocks[-1] if blocks else None


class MessageView(Static):
    """A finished message: one widget, one renderable, drawn only when on screen."""

    DEFAULT_CSS = """
    MessageView {
        padding: 0 1;
        margin: 0 0 1 0;
        border-left: thick $panel;
    }
    MessageView.-user { border-left: thick $primary; background: $primary 8%; }
    MessageView.-assistant { border-left: thick $secondary; }
    MessageView.-failed { border-left: thick $error; }
    MessageView.-selected { background: $accent 20%; border-left: thick $accent; }
    """

    def __init__(self, message: Message, *, code_theme: str = "monokai") -> None:
        self.message = message
        self.code_theme = code_theme
        self.show_reasoning = False
        classes = "-user" if message.role is Role.USER else "-assistant"
        if message.status is MessageStatus.ERROR:
            classes += " -failed"
        super().__init__(self._renderable(), markup=False, classes=classes)

    def _renderable(self) -> RenderableType:
        return render_message(self.message, code_theme=self.code_theme,
                              show_reasoning=self.show_reasoning)

    def set_message(self, message: Message) -> None:
        self.message = message
        self.set_class(message.status is MessageStatus.ERROR, "-failed")
        self.update(self._renderable())

    def toggle_reasoning(self) -> None:
        self.show_reasoning = not self.show_reasoning
        self.update(self._renderable())


class PacedMarkdownStream:
    """`MarkdownStream` with a frame-rate cap: fragments are joined and appended to the
    Markdown widget at most every MIN_FLUSH_INTERVAL seconds (longer when an append is slow).

    Textual's own `MarkdownStream` appends as often as it can; a long code fence is
    re-highlighted whole on every append, so unpaced appends grow more costly per chunk.
    """

    def __init__(self, markdown: Markdown, on_flush: Callable[[], None] | None = None) -> None:
        self.markdown = markdown
        self._on_flush = on_flush
        self._pending: list[str] = []
        self._wake = asyncio.Event()
        self._stopping = False
        self._task: asyncio.Task[None] | None = None
        self.appends = 0

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run())

    def write(self, fragment: str) -> None:
        """Queue `fragment` (already sanitized); never blocks."""
        if fragment:
            self._pending.append(fragment)
            self._wake.set()

    async def stop(self) -> None:
        """Append what is queued, then end the pump."""
        self._stopping = True
        self._wake.set()
        if self._task is not None:
            await self._task
            self._task = None

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            if self._pending:
                text = "".join(self._pending)
                self._pending.clear()
                started = time.perf_counter()
                await asyncio.shield(self.markdown.append(text))
                self.appends += 1
                if self._on_flush is not None:
                    self._on_flush()
                cost = time.perf_counter() - started
                if not self._stopping:
                    await asyncio.sleep(max(MIN_FLUSH_INTERVAL, FLUSH_COST_FACTOR * cost))
                    continue
            if self._stopping and not self._pending:
                return


class ReplyView(Vertical):
    """The assistant reply being streamed: header, Thinking block, live Markdown."""

    DEFAULT_CSS = """
    ReplyView {
        height: auto;
        padding: 0 1;
        margin: 0 0 1 0;
        border-left: thick $secondary;
    }
    ReplyView > #reply-header { height: auto; }
    ReplyView > #thinking { display: none; margin: 0; padding: 0; border: none; }
    ReplyView > #thinking.-shown { display: block; }
    ReplyView #reasoning { color: $text-muted; text-style: italic; }
    ReplyView > #answer { margin: 0; padding: 0; layout: stream; }
    ReplyView > #answer > MarkdownBlock:last-child { margin-bottom: 0; }
    ReplyView > #reply-error { display: none; color: $error; text-style: bold; }
    ReplyView > #reply-error.-shown { display: block; }
    """

    def __init__(self, message: Message) -> None:
        super().__init__()
        self.message = message
        self.content = ""
        self.reasoning = ""
        self._held_cr = ""
        self._stream: PacedMarkdownStream | None = None

    def compose(self) -> ComposeResult:
        yield Static(author_line(self.message), id="reply-header", markup=False)
        with Collapsible(title="Thinking", collapsed=False, id="thinking"):
            yield Static("", id="reasoning", markup=False)
        yield Markdown(open_links=False, id="answer")
        yield Static("", id="reply-error", markup=False)

    def on_mount(self) -> None:
        self._stream = PacedMarkdownStream(self.query_one("#answer", Markdown))
        self._stream.start()

    def add_reasoning(self, text: str) -> None:
        self.reasoning += sanitize(text)
        thinking = self.query_one("#thinking", Collapsible)
        if not thinking.has_class("-shown"):
            thinking.add_class("-shown")
        self.query_one("#reasoning", Static).update(Text(self.reasoning.strip()))

    def add_content(self, text: str) -> None:
        text = self._held_cr + text
        self._held_cr = "\r" if text.endswith("\r") else ""
        if self._held_cr:
            text = text[:-1]
        clean = sanitize(text)
        if not clean:
            return
        if not self.content and self.reasoning:
            self.query_one("#thinking", Collapsible).collapsed = True
        self.content += clean
        if self._stream is not None:
            self._stream.write(clean)

    def show_error(self, sentence: str) -> None:
        error = self.query_one("#reply-error", Static)
        error.update(Text(f"⚠ {sanitize(sentence)}"))
        error.add_class("-shown")

    def set_status(self, message: Message) -> None:
        self.message = message
        self.query_one("#reply-header", Static).update(author_line(message))

    async def finish(self) -> None:
        """Append whatever is still queued and stop the stream."""
        if self._held_cr:
            self._held_cr = ""
            self.add_content("\n")
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None
