"""`ask` with tool servers: "what time is it in Kolkata?" → the model calls the time tool
(mcp-server-time, a real server) → approval on the terminal → result → answer; with no
terminal it refuses in one sentence unless --approve-tools. Real subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.terminal import run_with_controlling_terminal
from tests.fakeprovider import FakeProvider, Reply, stream_of, tool_call_stream
from tests.mcp.conftest import everything  # noqa: F401  (a fixture: server-everything)

KEY = "cpk_fake-test-key-not-real-0123.SECRET"
MODEL = "deepseek-ai/DeepSeek-V3-0324"
KOLKATA = ("time__get_current_time", '{"timezone": "Asia/Kolkata"}')
QUESTION = "What time is it in Kolkata?"


@pytest.fixture
def env(chutes_server: FakeProvider, tmp_path: Path) -> dict[str, str]:
    config = tmp_path / "config.toml"
    config.write_text(f"""
[mcp.servers.time]
command = {json.dumps(sys.executable)}
args = ["-m", "mcp_server_time", "--local-timezone", "UTC"]

[models."chutes:{MODEL}"]
tools = true
""", encoding="utf-8")
    return {"CHUTES_BASE_URL": chutes_server.url, "CHUTES_API_KEY": KEY,
            "TUI_CHAT_CONFIG": str(config)}


def posts(server: FakeProvider) -> list[dict[str, object]]:
    return [r.body for r in server.requests if r.method == "POST"]


def test_the_call_is_approved_on_the_terminal_and_the_answer_printed(
        chutes_server: FakeProvider, env: dict[str, str]) -> None:
    chutes_server.script(Reply(tool_call_stream([KOLKATA], ids=["call_k"])))
    code, out, err, shown = run_with_controlling_terminal(
        ["ask", "-m", MODEL, QUESTION], until=b"Choose 1-4:", answer=b"1\n", env=env)
    assert code == 0, err
    assert b"get_current_time" in shown and b"Asia/Kolkata" in shown
    assert out.startswith("The tool call_k said: ") and "Asia/Kolkata" in out
    assert "tui-chat: running time.get_current_time…" in err
    assert 'time.get_current_time {"timezone": "Asia/Kolkata"} ·' in err and "· ok." in err
    assert KEY not in out + err
    first, second = posts(chutes_server)
    assert "tools" in first
    assert [m["role"] for m in second["messages"]] == ["user", "assistant", "tool"]


def test_a_denial_on_the_terminal_goes_back_to_the_model(
        chutes_server: FakeProvider, env: dict[str, str]) -> None:
    chutes_server.script(Reply(tool_call_stream([KOLKATA], ids=["call_k"])))
    code, out, err, _ = run_with_controlling_terminal(
        ["ask", "-m", MODEL, QUESTION], until=b"Choose 1-4:", answer=b"4\n\n", env=env)
    assert code == 0, err
    assert "· denied." in err
    assert "did not allow this call" in out and "reason" not in out  # Enter: none given


def test_with_no_terminal_it_refuses_in_one_sentence_and_sends_nothing(
        chutes_server: FakeProvider, env: dict[str, str]) -> None:
    result = subprocess.run([sys.executable, "-m", "tui_chat", "ask", "-m", MODEL, QUESTION],
                            capture_output=True, text=True, env={**os.environ, **env},
                            timeout=60, start_new_session=True, check=False)
    assert result.returncode != 0
    assert "--approve-tools" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert posts(chutes_server) == []


def test_approve_tools_runs_the_calls_without_a_terminal(
        chutes_server: FakeProvider, env: dict[str, str]) -> None:
    chutes_server.script(Reply(tool_call_stream([KOLKATA], ids=["call_k"])))
    result = subprocess.run([sys.executable, "-m", "tui_chat", "ask", "--approve-tools",
                             "-m", MODEL, QUESTION], capture_output=True, text=True,
                            env={**os.environ, **env}, timeout=60, start_new_session=True,
                            check=False)
    assert result.returncode == 0, result.stderr
    assert "Asia/Kolkata" in result.stdout and "· ok." in result.stderr


def test_compare_sends_no_tools_and_says_so_in_one_sentence(
        chutes_server: FakeProvider, env: dict[str, str]) -> None:
    """Compare offers no tools (so it asks no approval, and needs no terminal): one sentence
    on stderr says so, naming the servers left out."""
    chutes_server.script(Reply(stream_of(["one"])), Reply(stream_of(["two"])))
    result = subprocess.run([sys.executable, "-m", "tui_chat", "ask", "--no-save", "--compare",
                             f"chutes:{MODEL},chutes:other-model", QUESTION],
                            capture_output=True, text=True, env={**os.environ, **env},
                            timeout=60, start_new_session=True, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ("tui-chat: Compare sends no tools: the tool servers on for this "
                             "conversation (time) are offered only when one model answers.\n")
    sent = posts(chutes_server)
    assert len(sent) == 2 and all("tools" not in body for body in sent)
    headers, replies = result.stdout.split("\n")[0::3], result.stdout.split("\n")[1::3]
    assert headers[:2] == [f"==> chutes:{MODEL} <==", "==> chutes:other-model <=="]
    assert sorted(replies[:2]) == ["one", "two"]  # which model got which: the order they ask


def test_with_no_terminal_a_read_only_server_runs_alone_and_the_rest_are_refused(
        chutes_server: FakeProvider, env: dict[str, str]) -> None:
    """approve = "read-only": its read-only tools run with no terminal to ask on; a call of
    a server that asks for every call is refused in one sentence, and the model told so."""
    config = Path(env["TUI_CHAT_CONFIG"])
    config.write_text(config.read_text(encoding="utf-8").replace(
        '[mcp.servers.time]\n', '[mcp.servers.time]\napprove = "read-only"\n') + f"""
[mcp.servers.asks]
command = {json.dumps(sys.executable)}
args = ["-m", "mcp_server_time", "--local-timezone", "UTC"]
""", encoding="utf-8")
    chutes_server.script(Reply(tool_call_stream(
        [KOLKATA, ("asks__get_current_time", '{"timezone": "UTC"}')], ids=["call_k", "call_a"])))
    result = subprocess.run([sys.executable, "-m", "tui_chat", "ask", "-m", MODEL, QUESTION],
                            capture_output=True, text=True, env={**os.environ, **env},
                            timeout=60, start_new_session=True, check=False)
    assert result.returncode == 0, result.stderr
    refused = [line for line in result.stderr.splitlines() if line.startswith(
        "tui-chat: Not run: asks.get_current_time needs your approval and there is no "
        "terminal to ask on")]
    assert len(refused) == 1
    tool_messages = [m for m in posts(chutes_server)[1]["messages"]  # type: ignore[union-attr]
                     if m["role"] == "tool"]
    assert "Asia/Kolkata" in tool_messages[0]["content"]
    assert tool_messages[1]["content"].startswith("The user did not allow this call.")


def test_arguments_that_are_not_json_run_nothing_and_are_said(
        chutes_server: FakeProvider, env: dict[str, str]) -> None:
    chutes_server.script(Reply(tool_call_stream(
        [("time__get_current_time", '{"timezone": "Asia/Kol')], ids=["call_k"])))
    result = subprocess.run([sys.executable, "-m", "tui_chat", "ask", "--approve-tools",
                             "-m", MODEL, QUESTION], capture_output=True, text=True,
                            env={**os.environ, **env}, timeout=60, start_new_session=True,
                            check=False)
    assert result.returncode == 0, result.stderr
    said = [line for line in result.stderr.splitlines()
            if line.startswith("tui-chat: The arguments are not valid JSON (")]
    assert len(said) == 1 and said[0].endswith("; nothing was run.")
    assert "running" not in result.stderr
    [tool] = [m for m in posts(chutes_server)[1]["messages"]  # type: ignore[union-attr]
              if m["role"] == "tool"]
    assert tool["content"].startswith("The arguments are not valid JSON (")


def test_a_form_the_server_asks_for_is_put_to_the_terminal(
        chutes_server: FakeProvider, env: dict[str, str], everything: Path) -> None:  # noqa: F811
    """server-everything asks for a form mid-call: ask puts it to the terminal ("Answer
    it?"); declined there, the server hears so and the model gets the server's result."""
    config = Path(env["TUI_CHAT_CONFIG"])
    config.write_text(config.read_text(encoding="utf-8") + f"""
[mcp.servers.everything]
command = {json.dumps(str(everything))}
args = ["stdio"]
approve = "always"
""", encoding="utf-8")
    chutes_server.script(Reply(tool_call_stream(
        [("everything__trigger-elicitation-request", "{}")], ids=["call_e"])))
    code, out, err, shown = run_with_controlling_terminal(
        ["ask", "-m", MODEL, "Ask me for my details"], until=b"Answer it? [y/N]",
        answer=b"n\n", env=env)
    assert code == 0, err
    assert b"The tool server everything asks: Please provide inputs" in shown
    assert "User declined to provide the requested information" in out


def ask_alone(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """`tui-chat ask` with no terminal (a new session, pipes only)."""
    return subprocess.run([sys.executable, "-m", "tui_chat", "ask", *args],
                          capture_output=True, text=True, env={**os.environ, **env},
                          timeout=60, start_new_session=True, check=False)


def without_model_settings(env: dict[str, str]) -> None:
    """config.toml keeps its tool server, and says nothing about the model."""
    config = Path(env["TUI_CHAT_CONFIG"])
    config.write_text(config.read_text(encoding="utf-8").split("[models.")[0],
                      encoding="utf-8")


def test_a_chutes_model_listed_with_tools_gets_them_on_a_fresh_machine(
        chutes_server: FakeProvider, env: dict[str, str]) -> None:
    """Chutes' /models lists "tools" among the model's supported features, and nothing is
    said in config.toml nor cached: ask reads the list, and the call runs."""
    without_model_settings(env)
    chutes_server.models_list = {"object": "list", "data": [
        {"id": MODEL, "supported_features": ["tools"]}]}
    chutes_server.script(Reply(tool_call_stream([KOLKATA], ids=["call_k"])))
    result = ask_alone(env, "--approve-tools", "-m", MODEL, QUESTION)
    assert result.returncode == 0, result.stderr
    assert "Asia/Kolkata" in result.stdout and "· ok." in result.stderr
    assert "tools" in posts(chutes_server)[0]


def test_a_chutes_model_listed_without_tools_is_said_and_sent_only_on_a_yes(
        chutes_server: FakeProvider, env: dict[str, str]) -> None:
    without_model_settings(env)
    chutes_server.models_list = {"object": "list", "data": [
        {"id": MODEL, "supported_features": ["json_mode"]}]}
    result = ask_alone(env, "-m", MODEL, QUESTION)
    assert result.returncode != 0
    why = (f"{MODEL} does not take tools: Chutes' model list does not name tools among its "
           "supported features")
    assert result.stderr.startswith(f"tui-chat: {why}")
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert posts(chutes_server) == []
    chutes_server.script(Reply(stream_of(["I cannot see a clock."])))
    code, out, err, shown = run_with_controlling_terminal(
        ["ask", "-m", MODEL, QUESTION], until=b"[y/N]", answer=b"y\n", env=env)
    assert code == 0, err
    assert why.encode() in shown and out.strip() == "I cannot see a clock."
    [body] = posts(chutes_server)
    assert "tools" not in body


def test_sutra_gets_no_tools_and_says_why(sutra_server: FakeProvider, env: dict[str, str]
                                          ) -> None:
    env = {**env, "SUTRA_BASE_URL": sutra_server.url, "SUTRA_API_KEY": "sutra_fake-key-0001"}
    sutra_server.script(Reply(stream_of(["No clock here."], flavour="sutra")))
    code, out, err, shown = run_with_controlling_terminal(
        ["ask", "-p", "sutra", "-m", "sutra-v2", QUESTION], until=b"[y/N]", answer=b"y\n",
        env=env)
    assert code == 0, err
    assert b"sutra-v2 does not take tools: SUTRA's API documents no tools" in shown
    assert out.strip() == "No clock here."
    [body] = posts(sutra_server)
    assert "tools" not in body


def test_a_server_turned_off_for_the_conversation_stays_off_in_ask_c(
        chutes_server: FakeProvider, env: dict[str, str]) -> None:
    """F8 turned the time server off for this conversation (`tools_off`, kept with it):
    `ask -c` continuing it offers no tools and asks nothing."""
    chutes_server.script(Reply(stream_of(["first"])))
    assert ask_alone(env, "--approve-tools", "-m", MODEL, "hello").returncode == 0
    from tui_chat.core.paths import store_file
    from tui_chat.core.store import Store

    with Store.open(store_file({**os.environ, **env})) as store:
        [summary] = store.list_conversations()
        conversation = store.get_conversation(summary.id)
        store.set_parameters(summary.id, conversation.parameters.model_copy(
            update={"tools_off": ["time"]}))
    chutes_server.script(Reply(stream_of(["second"])))
    result = ask_alone(env, "-c", "-m", MODEL, QUESTION)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "second" and result.stderr == ""
    first, second = posts(chutes_server)
    assert "tools" in first and "tools" not in second


def test_on_the_terminal_the_call_is_shown_whole_and_a_denial_takes_a_reason(
        chutes_server: FakeProvider, env: dict[str, str]) -> None:
    """As in the app's dialog: the arguments pretty-printed (one line each, drawn inertly),
    the tool's description, and a denial's reason that goes back to the model."""
    chutes_server.script(Reply(tool_call_stream(
        [("time__get_current_time", '{"timezone": "Asia/Kolkata", "x": "\\u001b[2J[b]"}')],
        ids=["call_k"])))
    code, _, err, shown = run_with_controlling_terminal(
        ["ask", "-m", MODEL, QUESTION], until=b"Choose 1-4:", answer=b"4\nuse UTC\n",
        env=env)
    assert code == 0, err
    lines = shown.decode().replace("\r\n", "\n").splitlines()
    at = lines.index("  {")
    assert lines[at:at + 4] == ["  {", '    "timezone": "Asia/Kolkata",',
                                '    "x": "\\u001b[2J[b]"', "  }"]  # the escape, inert
    assert b"\x1b" not in shown
    assert "  Get current time in a specific timezone" in lines
    assert "· denied." in err
    tool = posts(chutes_server)[1]["messages"][-1]  # type: ignore[index]
    assert tool["role"] == "tool" and tool["content"].endswith("Their reason: use UTC")


def test_a_custom_providers_model_takes_tools_when_config_says_so(
        chutes_server: FakeProvider, env: dict[str, str]) -> None:
    """A provider added in config.toml (here the fake, as a local server without a key):
    its model gets tools with `tools = true`; without it, the sentence says how to say so."""
    config = Path(env["TUI_CHAT_CONFIG"])
    without_model_settings(env)
    plain = config.read_text(encoding="utf-8") + f"""
[providers.mine]
display_name = "My server"
base_url = "{chutes_server.url}"
needs_key = false
"""
    config.write_text(plain + '\n[models."mine:local-model"]\ntools = true\n',
                      encoding="utf-8")
    chutes_server.script(Reply(tool_call_stream([KOLKATA], ids=["call_k"])))
    result = ask_alone(env, "--approve-tools", "-m", "mine:local-model", QUESTION)
    assert result.returncode == 0, result.stderr
    assert "Asia/Kolkata" in result.stdout and "· ok." in result.stderr
    assert "tools" in posts(chutes_server)[0]
    config.write_text(plain, encoding="utf-8")
    result = ask_alone(env, "-m", "mine:local-model", QUESTION)
    assert result.returncode != 0 and len(posts(chutes_server)) == 2  # nothing more sent
    assert result.stderr.startswith(
        "tui-chat: local-model does not take tools: My server's model list does not have it "
        '(if it does, say tools = true under [models."mine:local-model"] in config.toml)')
