"""`tui-chat serve` in a real browser: headless Chromium (Debian's, driven by Playwright)
opens the page, the app appears, a prompt typed there reaches the loopback fake provider,
and its reply comes back to the page; the page loads nothing from any other host. A page on
another port of the same host (the same *site*, so the browser sends the token's cookie to
the server along with its websocket) is refused. A screenshot of the page goes to the test's own
folder, or to TUI_CHAT_SERVE_SCREENSHOT when set (`python screenshots/make.py serve` sets it
to screenshots/serve.png): a test run leaves the repository as it found it.

Skipped where Chromium (apt-get install chromium) or Playwright's Python package is absent.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.fakeprovider import FakeProvider
from tests.serve.conftest import OFF_LOOPBACK_NAME, Served, free_port
from tests.ui.conftest import TEST_KEY

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         # Nothing from the network (the page asks for a web font): only the loopback server.
         f"--host-resolver-rules=MAP {OFF_LOOPBACK_NAME} 127.0.0.1, MAP * ~NOTFOUND, "
         "EXCLUDE 127.0.0.1"]
PROMPT = "Hello from the browser: हिन्दी में परीक्षण, தமிழில் சோதனை"

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
    loaded: list[str] = []  # every address the page asked for

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
            page.on("websocket", lambda socket: loaded.append(socket.url))
            page.on("request", lambda request: loaded.append(request.url))
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
    own = served.origin.split("://")[1]
    assert any(address.endswith("/tui-chat/textual.js") for address in loaded)
    assert [a for a in loaded if a.split("://")[1].split("/")[0] != own] == []
    request = next(r for r in chutes_server.requests if r.method == "POST")
    assert request.body["messages"][-1]["content"] == PROMPT
    assert request.headers["authorization"] == f"Bearer {TEST_KEY}"  # the page's app has it


OTHER_PAGE = """<!DOCTYPE html><title></title><script>
const socket = new WebSocket("ws://%s/ws?width=80&height=24");
socket.onopen = () => { document.title = "OPENED"; };
socket.onerror = () => { if (!document.title) document.title = "REFUSED"; };
</script>"""


@pytest.fixture
def other_port_page(served_off_loopback: Served) -> Iterator[str]:
    """A page served from another port of the server's host that opens the server's
    websocket: its address."""
    server_host = served_off_loopback.origin.split("://")[1]

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = (OTHER_PAGE % server_host).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args: object) -> None:
            pass

    port = free_port()
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://{OFF_LOOPBACK_NAME}:{port}/"
    finally:
        server.shutdown()
        server.server_close()


def test_off_loopback_a_page_on_another_port_cannot_open_the_websocket(
        served_off_loopback: Served, other_port_page: str) -> None:
    received: list[bytes] = []
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            context = browser.new_context()
            page = context.new_page()
            page.on("websocket", lambda socket: socket.on(
                "framereceived", lambda payload: received.append(b"frame")))
            page.goto(served_off_loopback.url)  # the printed address: the app, and the cookie

            def pump() -> None:
                page.wait_for_timeout(50)

            _until(lambda: bool(received), "the app's first frame", pump)
            assert any(cookie["domain"] == OFF_LOOPBACK_NAME for cookie in context.cookies())
            other = context.new_page()
            other.goto(other_port_page)
            other.wait_for_function("document.title !== ''", timeout=60_000)
            title = other.title()
        finally:
            browser.close()
    assert title == "REFUSED"
