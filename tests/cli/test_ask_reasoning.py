"""`tui-chat ask --reasoning off|low|medium|high|default`: the request carries the setting
where the model takes it (Chutes' /models lists "reasoning"); elsewhere nothing is sent and
one line on stderr says so. A real subprocess against the loopback fake provider."""

from __future__ import annotations

from tests.cli.test_ask import KEY, assert_no_key, run
from tests.fakeprovider import FakeProvider, Reply, stream_of

THINKER = "fake/thinker"
PLAIN = "fake/plain"
MODELS = {"object": "list", "data": [
    {"id": THINKER, "object": "model", "supported_features": ["reasoning"]},
    {"id": PLAIN, "object": "model"},
]}


def ask(server: FakeProvider, *args: str) -> tuple[int, str, str, dict[str, object]]:
    server.models_list = MODELS
    server.script(Reply(stream_of(["Fine."])))
    result = run("ask", "--no-save", *args, "hello",
                 env={"CHUTES_BASE_URL": server.url, "CHUTES_API_KEY": KEY})
    assert_no_key(result)
    posts = [r.body for r in server.requests if r.method == "POST"]
    return result.returncode, result.stdout, result.stderr, posts[-1] if posts else {}


def test_ask_reasoning_off_switches_thinking_off(chutes_server: FakeProvider) -> None:
    code, out, err, body = ask(chutes_server, "-m", THINKER, "--reasoning", "off")
    assert code == 0, err
    assert out.startswith("Fine.")
    assert body["chat_template_kwargs"] == {"enable_thinking": False, "thinking": False}
    assert "not sent" not in err


def test_ask_reasoning_low_sends_the_effort(chutes_server: FakeProvider) -> None:
    code, _, err, body = ask(chutes_server, "-m", THINKER, "--reasoning", "low")
    assert code == 0, err
    assert body["reasoning_effort"] == "low" and "chat_template_kwargs" not in body


def test_ask_reasoning_to_a_model_not_known_to_take_it_says_so(
        chutes_server: FakeProvider) -> None:
    code, out, err, body = ask(chutes_server, "-m", PLAIN, "--reasoning", "off")
    assert code == 0, err
    assert out.startswith("Fine.")
    assert "reasoning_effort" not in body and "chat_template_kwargs" not in body
    assert err.count("--reasoning off is not sent") == 1 and PLAIN in err


def test_ask_without_the_option_sends_neither(chutes_server: FakeProvider) -> None:
    code, _, err, body = ask(chutes_server, "-m", THINKER)
    assert code == 0, err
    assert "reasoning_effort" not in body and "chat_template_kwargs" not in body


def test_a_bad_choice_is_one_sentence(chutes_server: FakeProvider) -> None:
    code, _, err, _ = ask(chutes_server, "-m", THINKER, "--reasoning", "none")
    assert code != 0
    assert "--reasoning" in err and "off" in err
