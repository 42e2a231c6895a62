"""The server manager against real servers: mcp-server-time (modern era), the SDK-built
fault server (tests/mcp/fault_server.py), and server-everything through npx when it can be
installed (legacy era)."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.conftest import ROOT, fault_server, time_server
from tui_chat.core.mcp.config import McpServerConfig, McpSettings
from tui_chat.core.mcp.manager import ElicitAnswer, ElicitRequest, ServerManager
from tui_chat.core.mcp.tools import NAME_PATTERN

Make = Callable[..., ServerManager]

async def _until(check: Callable[[], bool]) -> None:
    """Wait for a state (bounded by the test's own timeout, not a time of ours)."""
    async with asyncio.timeout(30):
        while not check():  # noqa: ASYNC110 - a file another process writes
            await asyncio.sleep(0.01)


async def test_the_time_server_starts_lists_and_answers(manager_of: Make) -> None:
    manager = manager_of({"time": time_server(approve="read-only")})
    report = await manager.report("time")
    assert report.failure is None
    assert report.era is not None and report.era.startswith("2026-07-28")
    names = [tool.qualified for tool in report.tools]
    assert names == ["time__get_current_time", "time__convert_time"]
    assert all(tool.read_only for tool in report.tools)
    tool = manager.find("time__get_current_time")
    assert tool is not None
    outcome = await manager.call(tool, {"timezone": "Asia/Kolkata"})
    assert outcome.status == "ok"
    assert json.loads(outcome.text)["timezone"] == "Asia/Kolkata"
    refused = await manager.call(tool, {"timezone": "Nowhere/Else"})
    assert refused.status == "error" and "Invalid timezone" in refused.text


async def test_a_server_gets_no_provider_key(manager_of: Make, markers: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHUTES_API_KEY", "cpk_not_for_servers")
    monkeypatch.setenv("SUTRA_API_KEY", "sutra_not_for_servers")
    manager = manager_of({"f": fault_server()})
    await manager.tools()
    tool = manager.find("f__env")
    assert tool is not None
    outcome = await manager.call(tool, {})
    env = json.loads(outcome.text)
    assert "CHUTES_API_KEY" not in env and "SUTRA_API_KEY" not in env
    assert "not_for_servers" not in outcome.text
    assert env["PYTHONPATH"] and env["PATH"]


async def test_cwd_with_a_tilde_and_a_variable(manager_of: Make, markers: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    (markers / "home" / "work").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(markers / "home"))
    monkeypatch.setenv("TUI_CHAT_TEST_FOLDER", "work")
    manager = manager_of({"f": fault_server(cwd="~/${TUI_CHAT_TEST_FOLDER}")})
    await manager.tools()
    tool = manager.find("f__cwd")
    assert tool is not None
    assert (await manager.call(tool, {})).text == str(markers / "home" / "work")
    missing = manager_of({"g": fault_server(cwd=str(markers / "nowhere"))})
    assert (await missing.report("g")).failure == (
        f"The tool server g cannot start: its cwd {str(markers / 'nowhere')!r} is not a "
        "folder.")


async def test_closing_stops_what_the_server_started(manager_of: Make, markers: Path) -> None:
    child = markers / "child.pid"
    script = (f"sleep 300 & echo $! > {child}; "
              f"exec {sys.executable} -m tests.mcp.fault_server")
    server = McpServerConfig(command="sh", args=["-c", script],
                             env={"PYTHONPATH": ROOT, "FAULT_MARKER": "${FAULT_MARKER}"})
    manager = manager_of({"s": server})
    assert (await manager.report("s")).failure is None
    pid = int(child.read_text(encoding="utf-8"))
    await manager.aclose()

    def gone() -> bool:  # no such process, or a zombie waiting for its parent (init)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"

    await _until(gone)


async def test_results_of_every_kind(manager_of: Make, markers: Path) -> None:
    manager = manager_of({"f": fault_server()}, max_result_chars=1000)
    await manager.tools()

    async def call(name: str, **arguments: Any) -> str:
        tool = manager.find(f"f__{name}")
        assert tool is not None
        return (await manager.call(tool, arguments)).text

    assert await call("echo", text="hi") == "hi"
    assert json.loads(await call("structured")) == {"a": 1, "b": 2}
    assert await call("image") == "[image: image/png, 8 bytes: image-1.png]"
    image = manager.find("f__image")
    assert image is not None
    [kept] = (await manager.call(image, {})).files
    assert (kept.name, kept.mime, kept.size, kept.data) == (
        "image-1.png", "image/png", 8, b"\x89PNG\r\n\x1a\n")
    big = await call("big")
    assert big.startswith("x" * 1000 + "\n[… cut by tui-chat: the result was 10,000,000")


async def test_progress_and_input_the_server_asks_for(markers: Path) -> None:
    asked: list[ElicitRequest] = []
    answers: list[ElicitAnswer] = [("accept", {"city": "Pune", "days": 3}), ("decline", None)]

    async def elicit(request: ElicitRequest) -> ElicitAnswer:
        asked.append(request)
        return answers.pop(0)

    manager = ServerManager(McpSettings(servers={"f": fault_server()}), env=dict(os.environ),
                            elicit=elicit)
    try:
        await manager.tools()
        progress, ask_city = manager.find("f__progress"), manager.find("f__ask_city")
        assert progress is not None and ask_city is not None
        heard: list[tuple[float, float | None, str | None]] = []
        outcome = await manager.call(progress, {},
                                     on_progress=lambda *step: heard.append(step))
        assert outcome.text == "done"
        assert heard == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]
        assert (await manager.call(ask_city, {})).text == "Pune for 3 days"
        assert (await manager.call(ask_city, {})).text == "decline"
        assert [(r.server, r.message, r.url) for r in asked] == [("f", "Which city?", None)] * 2
        assert asked[0].schema is not None and set(asked[0].schema["properties"]) == {
            "city", "days"}
    finally:
        await manager.aclose()


async def test_with_no_way_to_ask_a_server_is_told_so(manager_of: Make, markers: Path) -> None:
    manager = manager_of({"f": fault_server()})
    await manager.tools()
    ask_city = manager.find("f__ask_city")
    assert ask_city is not None
    outcome = await manager.call(ask_city, {})
    assert outcome.status == "failed", outcome
    assert outcome.text.startswith("The tool server f refused the call: ")
    assert not outcome.text.endswith("..")


async def test_five_hundred_tools(manager_of: Make, markers: Path) -> None:
    manager = manager_of({"many": fault_server("many"), "other": fault_server("many")})
    tools = await manager.tools()
    assert len(tools) == 1000, manager.failures()
    assert len({tool.qualified for tool in tools}) == 1000
    assert all(NAME_PATTERN.match(tool.qualified) for tool in tools)


@pytest.mark.parametrize(("config", "sentence"), [
    (McpServerConfig(command="no-such-command-tui-chat"),
     "The tool server s cannot start: the command 'no-such-command-tui-chat' was not found"),
    (McpServerConfig(command="sh", args=["-c", "echo first >&2; echo broken >&2; exit 3"]),
     "The tool server s exited with status 3 before it answered; its last line on stderr: "
     "'broken'."),
    (McpServerConfig(command="sh", args=["-c", "echo hello there; sleep 60"]),
     "The tool server s speaks no MCP: it wrote 'hello there' on stdout, which is not a "
     "JSON-RPC message."),
    (McpServerConfig(command="sh", args=["-c", "cat >/dev/null"], start_timeout=0.5),
     "The tool server s did not answer within 0.5 s of starting (nothing on stderr)."),
    (McpServerConfig(command="sh", env={"X": "${TUI_CHAT_UNSET_VARIABLE}"}),
     "The tool server s cannot start: env.X of [mcp.servers.s] uses "
     "${TUI_CHAT_UNSET_VARIABLE}, but the environment variable TUI_CHAT_UNSET_VARIABLE is "
     "not set."),
])
async def test_a_failure_to_start_is_one_sentence(manager_of: Make, config: McpServerConfig,
                                                  sentence: str) -> None:
    manager = manager_of({"s": config})
    report = await manager.report("s")
    assert report.failure is not None and report.failure.startswith(sentence), report.failure


async def test_a_slow_start_times_out(manager_of: Make, markers: Path) -> None:
    manager = manager_of({"s": fault_server("slow-start", start_timeout=0.5)})
    assert await manager.tools() == []
    assert manager.failures()["s"].startswith("The tool server s did not answer within 0.5 s")


async def test_a_call_that_hangs_times_out_and_the_server_hears_of_it(
        manager_of: Make, markers: Path) -> None:
    manager = manager_of({"f": fault_server(timeout=0.5)})
    await manager.tools()
    tool = manager.find("f__slow")
    assert tool is not None
    outcome = await manager.call(tool, {})
    assert outcome.status == "timed-out"
    assert outcome.text == "The call did not finish within 0.5 s, so tui-chat cancelled it."
    await _until((markers / "marker").exists)  # notifications/cancelled reached the tool


async def test_cancelling_the_call_cancels_it_on_the_server(manager_of: Make,
                                                            markers: Path) -> None:
    manager = manager_of({"f": fault_server()})
    await manager.tools()
    tool = manager.find("f__slow")
    assert tool is not None
    call = asyncio.create_task(manager.call(tool, {}))
    await _until((markers / "marker.started").exists)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    await _until((markers / "marker").exists)
    echo = manager.find("f__echo")
    assert echo is not None
    assert (await manager.call(echo, {"text": "still here"})).text == "still here"


async def test_a_crash_mid_call_restarts_the_server_once(manager_of: Make,
                                                         markers: Path) -> None:
    manager = manager_of({"f": fault_server()})
    await manager.tools()
    crash, echo = manager.find("f__crash"), manager.find("f__echo")
    assert crash is not None and echo is not None
    first = await manager.call(crash, {})
    assert first.status == "failed"
    assert first.text == ("The tool server f exited with status 7 during the call; its last "
                          "line on stderr: 'about to crash'; it will be started again for the "
                          "next call.")
    assert (await manager.call(echo, {"text": "back"})).text == "back"
    (markers / "state").unlink()  # the next crash call crashes again
    second = await manager.call(crash, {})
    assert second.text.endswith("it will not be started again.")
    third = await manager.call(echo, {"text": "x"})
    assert third.status == "failed"
    assert third.text.startswith("The tool server f stopped twice")


async def test_invalid_json_on_stdout_mid_session_is_survived(manager_of: Make,
                                                             markers: Path) -> None:
    """A line that is not JSON-RPC among a running server's answers: passed over when the
    answer follows; when it comes instead of the answer, the call ends as any call that does
    not answer does (here cancelled, as Esc does; a timeout is test_a_call_that_hangs…) and
    the server goes on serving. No timeout is sized to pass: every call that must answer has
    the default's."""
    manager = manager_of({"f": fault_server()})
    await manager.tools()
    garbage, garbage_only, echo = (manager.find(f"f__{name}")
                                   for name in ("garbage", "garbage_only", "echo"))
    assert garbage is not None and garbage_only is not None and echo is not None
    first = await manager.call(garbage, {})
    assert (first.status, first.text) == ("ok", "answered after the garbage")
    second = asyncio.create_task(manager.call(garbage_only, {}))
    await _until((markers / "marker.garbage").exists)  # the line is on its way
    second.cancel()
    with pytest.raises(asyncio.CancelledError):
        await second
    assert (await manager.call(echo, {"text": "still here"})).text == "still here"
    assert manager.failures() == {}


async def test_server_everything_speaks_the_handshake_era(
        manager_of: Make, everything: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHUTES_API_KEY", "cpk_not_for_servers")
    manager = manager_of({"everything": McpServerConfig(command=str(everything),
                                                        args=["stdio"])}, roots=[tmp_path])
    report = await manager.report("everything")
    assert report.failure is None, report.failure
    assert report.era is not None and "initialize handshake" in report.era

    async def call(name: str, **arguments: Any) -> str:
        tool = manager.find(f"everything__{name}")
        assert tool is not None, name
        outcome = await manager.call(tool, arguments)
        assert outcome.status == "ok", outcome
        return outcome.text

    assert "hello" in await call("echo", message="hello")
    assert set(json.loads(await call("get-structured-content", location="New York"))) == {
        "temperature", "conditions", "humidity"}
    assert "[image: image/png, " in await call("get-tiny-image")
    assert "[link: " in await call("get-resource-links", count=2)
    assert tmp_path.as_uri() in await call("get-roots-list")
    env = json.loads(await call("get-env"))
    assert "CHUTES_API_KEY" not in env and env["PATH"]
    heard: list[tuple[float, float | None, str | None]] = []
    long_running = manager.find("everything__trigger-long-running-operation")
    assert long_running is not None
    await manager.call(long_running, {"duration": 0.2, "steps": 2},
                       on_progress=lambda *step: heard.append(step))
    assert [step[:2] for step in heard] == [(1, 2), (2, 2)]


async def test_server_everything_asks_for_input(everything: Path, tmp_path: Path) -> None:
    asked: list[ElicitRequest] = []

    async def elicit(request: ElicitRequest) -> ElicitAnswer:
        asked.append(request)
        return "accept", {"name": "Asha", "check": True, "integer": 7}

    manager = ServerManager(McpSettings(servers={"everything": McpServerConfig(
        command=str(everything), args=["stdio"])}), elicit=elicit)
    try:
        await manager.tools()
        tool = manager.find("everything__trigger-elicitation-request")
        assert tool is not None
        outcome = await manager.call(tool, {})
        assert "- Name: Asha" in outcome.text and "- Favorite Integer: 7" in outcome.text
        assert asked[0].schema is not None and "email" in asked[0].schema["properties"]
    finally:
        await manager.aclose()


def test_the_manager_is_not_imported_with_the_core() -> None:
    code = ("import sys, tui_chat.core.config, tui_chat.core.mcp, tui_chat.core.mcp.config\n"
            "print(sorted(m for m in ('mcp', 'mcp_types', 'httpx2', 'tui_chat.core.mcp.manager',"
            " 'tui_chat.core.mcp.connection', 'tui_chat.core.mcp.loop')"
            " if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, timeout=60)
    assert result.stdout.strip() == "[]"


@pytest.fixture
def http_server(markers: Path) -> Iterator[str]:
    """The fault server over Streamable HTTP; its URL once it accepts connections."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "PYTHONPATH": ROOT}
    process = subprocess.Popen([sys.executable, "-m", "tests.mcp.fault_server", f"http:{port}"],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while process.poll() is None:  # until it listens (it prints nothing we could wait on)
            with socket.socket() as client:
                if client.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.02)
        assert process.poll() is None, "the HTTP fault server did not start"
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


async def test_streamable_http_with_headers_from_the_environment(
        manager_of: Make, http_server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TUI_CHAT_TEST_TOKEN", "t0ken")
    server = McpServerConfig(url=http_server,
                             headers={"Authorization": "Bearer ${TUI_CHAT_TEST_TOKEN}"})
    manager = manager_of({"web": server})
    report = await manager.report("web")
    assert report.failure is None, report.failure
    tool = manager.find("web__authorization")
    assert tool is not None
    assert (await manager.call(tool, {})).text == "Bearer t0ken"
    echo = manager.find("web__echo")
    assert echo is not None
    assert (await manager.call(echo, {"text": "over http"})).text == "over http"


async def test_an_http_server_that_is_not_there_is_one_sentence(manager_of: Make) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    manager = manager_of({"web": McpServerConfig(url=f"http://127.0.0.1:{port}/mcp")})
    report = await manager.report("web")
    assert report.failure is not None
    assert report.failure.startswith(f"The tool server web at http://127.0.0.1:{port}/mcp "
                                     "could not be used: ")
    assert "\n" not in report.failure


async def test_cancelling_a_call_over_http_reaches_the_server(
        manager_of: Make, http_server: str, markers: Path) -> None:
    manager = manager_of({"web": McpServerConfig(url=http_server)})
    await manager.tools()
    tool = manager.find("web__slow")
    assert tool is not None
    call = asyncio.create_task(manager.call(tool, {}))
    await _until((markers / "marker.started").exists)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    await _until((markers / "marker").exists)


async def test_a_call_that_needs_a_page_opened_first_asks_and_is_made_again(
        everything: Path) -> None:
    """server-everything's URL elicitation through the error path (-32042): the page it
    names is put to the user; opened, the call is made again; declined, it is not."""
    asked: list[ElicitRequest] = []
    answers: list[ElicitAnswer] = [("accept", None), ("accept", None), ("decline", None)]

    async def elicit(request: ElicitRequest) -> ElicitAnswer:
        asked.append(request)
        return answers.pop(0)

    manager = ServerManager(McpSettings(servers={"everything": McpServerConfig(
        command=str(everything), args=["stdio"])}), elicit=elicit)
    try:
        await manager.tools()
        tool = manager.find("everything__trigger-url-elicitation")
        assert tool is not None
        page = "https://example.com/consent"
        outcome = await manager.call(tool, {"url": page, "errorPath": True})
        assert outcome.status == "ok", outcome
        assert "User completed the URL elicitation flow" in outcome.text
        assert [r.url for r in asked] == ["https://modelcontextprotocol.io", page]
        refused = await manager.call(tool, {"url": page, "errorPath": True,
                                            "elicitationId": "again"})
        assert (refused.status, refused.text) == (
            "failed", "The tool server everything needs the page on modelcontextprotocol.io "
                      "opened before the call; it was not (declined), so the call did not run.")
    finally:
        await manager.aclose()


async def test_the_time_a_user_takes_to_answer_a_form_is_not_the_calls(markers: Path) -> None:
    """A form filled in more slowly than the call's `timeout` still reaches the server: the
    user's time is left out of the call's (a slow user stands in for the clock here; what
    is asserted is the outcome, not a duration)."""

    async def slow_user(request: ElicitRequest) -> ElicitAnswer:
        await asyncio.sleep(1.5)
        return "accept", {"city": "Pune", "days": 3}

    manager = ServerManager(McpSettings(servers={"f": fault_server(timeout=0.5)}),
                            env=dict(os.environ), elicit=slow_user)
    try:
        await manager.tools()
        ask_city, slow = manager.find("f__ask_city"), manager.find("f__slow")
        assert ask_city is not None and slow is not None
        outcome = await manager.call(ask_city, {})
        assert (outcome.status, outcome.text) == ("ok", "Pune for 3 days")
        assert (await manager.call(slow, {})).status == "timed-out"
    finally:
        await manager.aclose()


async def test_sampling_is_not_offered_and_elicitation_only_when_someone_can_answer(
        everything: Path) -> None:
    """server-everything registers its sampling tools only for a client that offers
    sampling (tui-chat never does), and its form and page tools only for one that can ask."""

    async def elicit(request: ElicitRequest) -> ElicitAnswer:
        return "decline", None

    config = McpServerConfig(command=str(everything), args=["stdio"])
    asking = ServerManager(McpSettings(servers={"e": config}), elicit=elicit)
    silent = ServerManager(McpSettings(servers={"e": config}))
    try:
        offered = {spec.name for spec in await asking.tools()}
        assert {"trigger-elicitation-request", "trigger-url-elicitation"} <= offered
        assert not {name for name in offered if "sampling" in name}
        assert not {spec.name for spec in await silent.tools() if "elicitation" in spec.name}
    finally:
        await asking.aclose()
        await silent.aclose()
