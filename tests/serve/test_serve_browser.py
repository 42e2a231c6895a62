"""`tui-chat serve` in a real browser: headless Chromium (Debian's, driven by Playwright)
opens the page, the app appears, a prompt typed there reaches the loopback fake provider,
and its reply comes back to the page. A screenshot of the page goes to the test's own
folder, or to TUI_CHAT_SERVE_SCREENSHOT when set (`python screenshots/make.py serve` sets it
to screenshots/serve.png): a test run leaves the repository as it found it.

Skipped where Chromium (apt-get install chromium) or Playwright's Python package is absent.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.fakeprovider import FakeProvider
from tests.serve.conftest import Served
from tests.ui.conftest import TEST_KEY

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         # Nothing from the network (the page asks for a web font): only the loopback server.
         "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]
PROMPT = "Hello from the browser, परीक्षण"

playwright_api = pytest.importorskip("playwright.sync_api",
                                     reason="Playwright's Python package is not installed")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(CHROMIUM is None,
                                 reason="Chromium is not installed (apt-get install chromium)")]


def _until(predicate: Callable[[], bool], what: str, pump: Callable[[], None],
           seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen")
        pump()


def test_a_prompt_typed_in_the_browser_reaches_the_provider(served: Served,
                                                            chutes_server: FakeProvider,
                                                            tmp_path: Path) -> None:
    screenshot = Path(os.environ.get("TUI_CHAT_SERVE_SCREENSHOT") or tmp_path / "serve.png")
    received: list[bytes] = []

    def on_socket(socket: object) -> None:
        socket.on("framereceived",  # type: ignore[attr-defined]
                  lambda payload: received.append(payload if isinstance(payload, bytes)
                                                  else payload.encode()))

    def shown() -> bytes:
        return b"".join(received)

    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.on("websocket", on_socket)
            page.goto(served.url)

            def pump() -> None:
                page.wait_for_timeout(50)

            # The app draws its prompt: its placeholder reaches the page's terminal.
            _until(lambda: b"Ctrl+J new line" in shown(), "the app's first frame", pump)
            page.locator(".xterm-helper-textarea").focus()
            page.keyboard.type(PROMPT)
            page.keyboard.press("Enter")
            _until(lambda: any(PROMPT in str(r.body) for r in chutes_server.requests
                               if r.method == "POST"), "the request to the provider", pump)
            _until(lambda: b"You said" in shown(), "the reply on the page", pump)
            page.wait_for_timeout(300)  # the last frame painted, for the screenshot only
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(screenshot))
        finally:
            browser.close()
    assert screenshot.stat().st_size > 0
    request = next(r for r in chutes_server.requests if r.method == "POST")
    assert request.body["messages"][-1]["content"] == PROMPT
    assert request.headers["authorization"] == f"Bearer {TEST_KEY}"  # the page's app has it
