"""Regenerate the screenshots in this folder from fixed content: `python screenshots/make.py`.

Each shot runs the real app headless (`App.run_test`) over a temporary store and config and
the loopback fake provider (tests/fakeprovider.py), saves an SVG, then a PNG 1600 pixels wide,
drawn by headless Chromium (Debian: chromium), or by `rsvg-convert` (librsvg2-bin) where
Chromium is absent: rsvg draws emoji (flags among them) as blank or monochrome shapes. Fonts:
fonts-noto-core and fonts-noto-cjk for Indic and CJK glyphs, fonts-noto-color-emoji for emoji.
Pass shot names to make only some of them. `serve` is the browser test (tests/serve: the app
in headless Chromium through `tui-chat serve`), run with its screenshot sent here.

Two things in Textual's SVG are adjusted for the PNG (the SVG files stay as exported): the
root gets `xml:space="preserve"`, without which converters drop the spaces at the ends of a
run of text ("sutra-v2  SUTRA" came out "sutra-v2SUTRA"); and a run of text in other scripts
than Latin is drawn word by word, each word in the cells the terminal gives it, as
`tui-chat serve` draws it: Rich sizes a run by its code points, not its cells, and drawn
whole at the font's own width a Hindi run ended cells short of the next run (large gaps
before a bold word). A Hindi or Tamil word is shaped whole, centred in its cells, and
condensed to fit them when wider (Tamil; measured by Chromium as it draws the page); a CJK
character is centred in its two cells; a Latin word is stretched to its cells as before.
"""

from __future__ import annotations

import asyncio
import html
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rich.cells import cell_len  # noqa: E402
from textual.pilot import Pilot  # noqa: E402

from tests.fakeprovider import FakeProvider, Reply, stream_of  # noqa: E402
from tests.ui.demo import (  # noqa: E402
    COMPARE_CHUTES,
    COMPARE_PROMPT,
    COMPARE_SUTRA,
    HINDI_ANSWER,
    STREAM_PIECES,
    seed_branches,
    seed_demo,
)
from tui_chat.core.config import Settings  # noqa: E402
from tui_chat.core.store import Store  # noqa: E402
from tui_chat.ui.app import TuiChatApp  # noqa: E402
from tui_chat.ui.screens.conversation import ConversationScreen  # noqa: E402
from tui_chat.ui.services import AppServices  # noqa: E402
from tui_chat.ui.widgets.reply_view import ReplyView  # noqa: E402

OUT = Path(__file__).resolve().parent
SIZE = (120, 40)
Shot = Callable[[Pilot[Any], FakeProvider, FakeProvider], Awaitable[None]]


async def until(pilot: Pilot[Any], predicate: Callable[[], bool], seconds: float = 10) -> None:
    for _ in range(int(seconds / 0.02)):
        if predicate():
            return
        await pilot.pause(0.02)
    raise RuntimeError("the app did not reach the state to photograph")


def screen_of(pilot: Pilot[Any]) -> ConversationScreen:
    return next(s for s in pilot.app.screen_stack if isinstance(s, ConversationScreen))


async def stream_and_hold(pilot: Pilot[Any], prompt: str, tail: str) -> None:
    screen = screen_of(pilot)
    screen.prompt.load_text(prompt)
    screen.prompt.submit()
    await until(pilot, lambda: bool(screen.query(ReplyView))
                and screen.query_one(ReplyView).content.endswith(tail))
    reply = screen.query_one(ReplyView)
    await until(pilot, lambda: reply.caught_up)
    await pilot.pause(0.2)


async def conversation(pilot: Pilot[Any], chutes: FakeProvider, sutra: FakeProvider) -> None:
    """Mid-stream, with a code block and the Thinking block folded."""
    pieces = ["<think>", "The user wants an example.", "</think>", *STREAM_PIECES]
    chutes.script(Reply(stream_of(pieces), stall_after=len(pieces) + 1, stall_seconds=15))
    screen_of(pilot).workspace.choose("chutes", "deepseek-ai/DeepSeek-R1")
    await stream_and_hold(pilot, "Show me an async fetch in Python", "asyncio.run(")


async def sutra_hindi(pilot: Pilot[Any], chutes: FakeProvider, sutra: FakeProvider) -> None:
    """A SUTRA reply in Hindi (with Tamil and Japanese), streamed from the SUTRA fake."""
    screen = screen_of(pilot)
    await pilot.press("ctrl+n")
    screen.workspace.choose("sutra", "sutra-v2")
    sutra.script(Reply(stream_of([HINDI_ANSWER[i:i + 12] for i in range(0, len(HINDI_ANSWER),
                                                                         12)],
                                 flavour="sutra", model="sutra-v2")))
    screen.prompt.load_text("भारत की राजधानी क्या है?")
    screen.prompt.submit()
    await until(pilot, lambda: not screen.streaming and len(screen.message_list.messages) == 2)
    await pilot.pause(0.2)


async def sidebar(pilot: Pilot[Any], chutes: FakeProvider, sutra: FakeProvider) -> None:
    """The conversation list with a full-text search."""
    await pilot.press("ctrl+b")
    await pilot.pause(0.2)
    await pilot.press("slash", *"sorted")
    await pilot.pause(0.6)


async def model_picker(pilot: Pilot[Any], chutes: FakeProvider, sutra: FakeProvider) -> None:
    await pilot.press("f2")
    await pilot.pause(0.5)


async def settings(pilot: Pilot[Any], chutes: FakeProvider, sutra: FakeProvider) -> None:
    await pilot.press("f3")
    await pilot.pause(0.5)


async def branches(pilot: Pilot[Any], chutes: FakeProvider, sutra: FakeProvider) -> None:
    """A reply with an alternative (‹ 2/2 ›), selected: the footer shows ← → Branch."""
    screen = screen_of(pilot)
    seed_branches(screen.workspace.store, screen.workspace.session.conversation)
    await screen.show_messages(screen.workspace.session.messages())
    await pilot.press("ctrl+o")
    await pilot.pause(0.3)


async def compare(pilot: Pilot[Any], chutes: FakeProvider, sutra: FakeProvider) -> None:
    """One prompt to a Chutes and a SUTRA model, side by side, both finished."""
    from tui_chat.ui.widgets.compare_view import CompareView

    screen = screen_of(pilot)
    await pilot.press("ctrl+n")
    chutes.script(Reply(stream_of(COMPARE_CHUTES), delay=0.02))
    sutra.script(Reply(stream_of(COMPARE_SUTRA, flavour="sutra", model="sutra-v2"),
                       delay=0.03))
    screen.workspace.choose_several([("chutes", "deepseek-ai/DeepSeek-V3-0324"),
                                     ("sutra", "sutra-v2")])
    screen.prompt.load_text(COMPARE_PROMPT)
    screen.prompt.submit()
    await until(pilot, lambda: bool(screen.query(CompareView)) and not screen.streaming)
    await pilot.pause(0.3)


def tool_settings() -> Settings:
    """mcp-server-time as a tool server, and the demo's Chutes model taking tools."""
    from tui_chat.core.mcp.config import McpServerConfig, McpSettings
    from tui_chat.core.model_facts import ModelSettings

    server = McpServerConfig(command=sys.executable, args=[
        "-m", "mcp_server_time", "--local-timezone", "UTC"])
    return Settings(mcp=McpSettings(servers={"time": server}),
                    models={"chutes:deepseek-ai/DeepSeek-V3-0324": ModelSettings(tools=True)})


async def tool_approval(pilot: Pilot[Any], chutes: FakeProvider, sutra: FakeProvider) -> None:
    """A model asks to run mcp-server-time's get_current_time: the approval dialog."""
    from tests.fakeprovider import tool_call_stream
    from tui_chat.ui.screens.tool_approval import ToolApprovalScreen

    screen = screen_of(pilot)
    await pilot.press("ctrl+n")
    chutes.script(Reply(tool_call_stream(
        [("time__get_current_time", '{"timezone": "Asia/Kolkata"}')], pieces=3)))
    screen.prompt.load_text("What time is it in Kolkata?")
    screen.prompt.submit()
    await until(pilot, lambda: isinstance(pilot.app.screen, ToolApprovalScreen), seconds=30)
    await pilot.pause(0.3)


def elicitation_settings() -> Settings:
    """The tests' fault server (its ask_city asks for a form), and the model taking tools."""
    from tui_chat.core.mcp.config import McpServerConfig, McpSettings
    from tui_chat.core.model_facts import ModelSettings

    server = McpServerConfig(command=sys.executable, args=["-m", "tests.mcp.fault_server"],
                             env={"PYTHONPATH": str(ROOT)}, approve="always")
    return Settings(mcp=McpSettings(servers={"trips": server}),
                    models={"chutes:deepseek-ai/DeepSeek-V3-0324": ModelSettings(tools=True)})


async def elicitation(pilot: Pilot[Any], chutes: FakeProvider, sutra: FakeProvider) -> None:
    """A tool asks for input in the middle of its call: the form, one answer refused."""
    from tests.fakeprovider import tool_call_stream
    from tui_chat.ui.screens.elicitation import ElicitFormScreen

    screen = screen_of(pilot)
    await pilot.press("ctrl+n")
    chutes.script(Reply(tool_call_stream([("trips__ask_city", "{}")], pieces=1)))
    screen.prompt.load_text("Plan a trip for me")
    screen.prompt.submit()
    await until(pilot, lambda: isinstance(pilot.app.screen, ElicitFormScreen)
                and pilot.app.focused is not None, seconds=30)
    await pilot.press(*"Pune", "tab", "ctrl+u", *"three", "ctrl+s")
    await pilot.pause(0.3)


async def tool_result(pilot: Pilot[Any], chutes: FakeProvider, sutra: FakeProvider) -> None:
    """Two calls that ran (the server's policy lets them run alone), the model's answer,
    and the first call's result unfolded: its arguments, its result, its image and links."""
    from tests.fakeprovider import tool_call_stream
    from tui_chat.core.models import Role
    from tui_chat.ui.widgets.message_view import MessageView

    screen = screen_of(pilot)
    await pilot.press("ctrl+n")
    chutes.script(Reply(tool_call_stream([("trips__picture", "{}"),
                                          ("trips__structured", "{}")], pieces=3)),
                  Reply(stream_of(["The server sent one image and two links; its count ",
                                   "says `a` is 1 and `b` is 2."])))
    screen.prompt.load_text("Show me the trip's picture and its counts.")
    screen.prompt.submit()
    await until(pilot, lambda: not screen.streaming and sum(
        view.message.role is Role.ASSISTANT for view in screen.query(MessageView)) == 2,
        seconds=30)
    await pilot.press("ctrl+o", "up", "up")  # the answer, the second result, the first
    await until(pilot, lambda: (chosen := screen.message_list.selected_message()) is not None
                and chosen.role is Role.TOOL)
    await pilot.press("t")
    await pilot.pause(0.3)


SHOTS: dict[str, Shot] = {
    "conversation": conversation,
    "sutra-hindi": sutra_hindi,
    "sidebar": sidebar,
    "model-picker": model_picker,
    "settings": settings,
    "branches": branches,
    "compare": compare,
    "tool-approval": tool_approval,
    "elicitation": elicitation,
    "tool-result": tool_result,
}
SETTINGS: dict[str, Callable[[], Settings]] = {"tool-approval": tool_settings,
                                               "elicitation": elicitation_settings,
                                               "tool-result": elicitation_settings}
"""The settings of a shot that needs its own (default: Settings())."""


async def take(name: str, shot: Shot, workdir: Path) -> Path:
    home = workdir / name
    os.environ.update(XDG_CONFIG_HOME=str(home / "config"), XDG_DATA_HOME=str(home / "data"),
                      XDG_CACHE_HOME=str(home / "cache"), TEXTUAL_THEME="")
    with FakeProvider("chutes") as chutes, FakeProvider("sutra", prefix="/v2") as sutra:
        os.environ.update(CHUTES_BASE_URL=chutes.url, SUTRA_BASE_URL=sutra.url,
                          CHUTES_API_KEY="demo-key-not-real", SUTRA_API_KEY="demo-key-not-real")
        with Store.open(home / "store.sqlite3") as store:
            chat = seed_demo(store)
            services = AppServices.create(
                SETTINGS.get(name, Settings)(), store, config_path=home / "config" / "config.toml",
                provider="chutes", clock=iter(x * 0.125 for x in range(10**6)).__next__)
            app = TuiChatApp(services, conversation=chat.id, provider="chutes")
            async with app.run_test(size=SIZE) as pilot:
                screen_of(pilot).prompt.cursor_blink = False
                await pilot.pause()
                await shot(pilot, chutes, sutra)
                svg = app.export_screenshot(title="tui-chat")
                await app.quit_now()  # no question: a shot may end mid-stream
    path = OUT / f"{name}.svg"
    path.write_text(svg, encoding="utf-8")
    return path


_TEXT_RUN = re.compile(r'<text\b([^>]*?) x="([0-9.]+)"([^>]*?) textLength="([0-9.]+)"([^>]*)>'
                       r'([^<]*)</text>')
# The pieces drawn one by one: a CJK character (centred in its two cells, as terminals draw
# them), or a word of anything else (Rich writes a space as &#160;).
_CJK = ("\u1100-\u11ff\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60"
        "\uffe0-\uffe6\U00020000-\U0003fffd")
_WORD = re.compile(f"[{_CJK}]|[^ \xa0{_CJK}]+")


def _latin_or_drawing(text: str) -> bool:
    return all(ord(c) < 0x300 or 0x2500 <= ord(c) <= 0x25FF or c in "·•…‘’“”–—"
               for c in text)


def _words(match: re.Match[str]) -> str:
    """A run of text in other scripts than Latin, as one <text> a word, each in the cells
    the terminal gives it (Rich's run is as long as its code points, and would squeeze
    or spread the letters): a Latin word stretched to its cells, any other centred in them,
    to be condensed by the page in `to_png` if it is wider (as `tui-chat serve` draws them)."""
    before, x, between, length, after, escaped = match.groups()
    text = html.unescape(escaped)
    cell = float(length) / len(text)
    attributes = before + between + after
    pieces = []
    for word in _WORD.finditer(text):
        start = float(x) + cell_len(text[:word.start()]) * cell
        width = cell_len(word.group()) * cell
        body = html.escape(word.group(), quote=False)
        if _latin_or_drawing(word.group()):
            pieces.append(f'<text lengthAdjust="spacingAndGlyphs"{attributes} x="{start:g}" '
                          f'textLength="{width:g}">{body}</text>')
        else:
            pieces.append(f'<text text-anchor="middle" data-cells="{width:g}"{attributes} '
                          f'x="{start + width / 2:g}">{body}</text>')
    return "".join(pieces)


def for_png(svg: str) -> str:
    """The SVG as converters should draw it: spaces kept, other scripts word by word."""
    svg = svg.replace("<svg ", '<svg xml:space="preserve" ', 1)

    def run(match: re.Match[str]) -> str:
        if _latin_or_drawing(html.unescape(match.group(6))):
            # Stretch the glyphs, not the gaps between them: a fallback font's glyphs are a
            # little narrower than a cell, and spaced out, border blocks show seams.
            return match.group(0).replace("<text ", '<text lengthAdjust="spacingAndGlyphs" ', 1)
        return _words(match)

    return _TEXT_RUN.sub(run, svg)


# A word wider than its cells (Tamil letters are wider than a cell) is condensed to fit them.
FIT_WORDS = """<script>
for (const word of document.querySelectorAll("text[data-cells]")) {
  const cells = parseFloat(word.dataset.cells);
  if (word.getComputedTextLength() > cells) {
    word.setAttribute("textLength", cells);
    word.setAttribute("lengthAdjust", "spacingAndGlyphs");
  }
}
</script>"""


CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run",
                  "--hide-scrollbars", "--host-resolver-rules=MAP * ~NOTFOUND")
WIDTH = 1600


def to_png(svg: Path) -> None:
    png = svg.with_suffix(".png")
    with tempfile.TemporaryDirectory() as scratch:
        prepared = Path(scratch) / svg.name
        text = for_png(svg.read_text(encoding="utf-8"))
        prepared.write_text(text, encoding="utf-8")
        chromium = shutil.which("chromium") or shutil.which("chromium-browser")
        if chromium is not None:
            box = re.search(r'viewBox="0 0 ([0-9.]+) ([0-9.]+)"', text)
            assert box is not None, "Textual's SVG has a viewBox"
            height = round(WIDTH * float(box.group(2)) / float(box.group(1)))
            page = Path(scratch) / "page.html"
            inline = text.replace("<svg ", f'<svg width="{WIDTH}" height="{height}" '
                                  'style="display:block" ', 1)
            page.write_text(f'<html><head><meta charset="utf-8"></head><body style="margin:0">'
                            f'{inline}{FIT_WORDS}</body></html>', encoding="utf-8")
            subprocess.run([chromium, *CHROMIUM_FLAGS, f"--window-size={WIDTH},{height}",
                            f"--screenshot={png}", page.as_uri()], check=True,
                           capture_output=True, timeout=120)
            return
        converter = shutil.which("rsvg-convert")
        if converter is None:
            print("neither chromium nor rsvg-convert found (apt-get install chromium): "
                  "SVG only", file=sys.stderr)
            return
        print("chromium not found: rsvg-convert draws no emoji", file=sys.stderr)
        subprocess.run([converter, "-w", str(WIDTH), "-o", str(png), str(prepared)],
                       check=True)


def serve_shot() -> None:
    """screenshots/serve.png, taken by the browser test itself (it needs Playwright)."""
    target = ROOT / "screenshots" / "serve.png"
    subprocess.run([sys.executable, "-m", "pytest", "-q", "tests/serve/test_serve_browser.py"],
                   cwd=ROOT, check=True,
                   env={**os.environ, "TUI_CHAT_SERVE_SCREENSHOT": str(target)})
    print(f"wrote {target.relative_to(ROOT)}")


def main(names: list[str]) -> None:
    every = [*SHOTS, "serve"]
    chosen = names or every
    unknown = [name for name in chosen if name not in every]
    if unknown:
        sys.exit(f"unknown shot(s): {', '.join(unknown)}; choose from {', '.join(every)}")
    for key in ("CHUTES_API_KEY", "SUTRA_API_KEY", "TUI_CHAT_CONFIG", "TUI_CHAT_DB"):
        os.environ.pop(key, None)
    os.environ["TZ"] = "UTC"  # times in the sidebar are local times: fix the zone
    time.tzset()
    with tempfile.TemporaryDirectory() as workdir:
        for name in chosen:
            if name == "serve":
                serve_shot()
                continue
            svg = asyncio.run(take(name, SHOTS[name], Path(workdir)))
            to_png(svg)
            print(f"wrote {svg.relative_to(ROOT)}")


if __name__ == "__main__":
    main(sys.argv[1:])
