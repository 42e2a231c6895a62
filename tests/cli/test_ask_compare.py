"""`tui-chat ask -m A -m B` (and --compare A,B): each model's reply in turn under a header,
saved as alternative replies; `ask --persona NAME`. Subprocesses against both fake providers."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.test_ask import run
from tests.fakeprovider import FakeProvider, Reply, stream_of
from tui_chat.core.store import Store

KEY = "cpk_fake-test-key-not-real-0123.SECRET"


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "store.sqlite3"
    monkeypatch.setenv("TUI_CHAT_DB", str(path))
    return path


def both(chutes: FakeProvider, sutra: FakeProvider) -> dict[str, str]:
    return {"CHUTES_BASE_URL": chutes.url, "CHUTES_API_KEY": KEY,
            "SUTRA_BASE_URL": sutra.url, "SUTRA_API_KEY": "sutra-key-0001"}


def test_each_model_answers_in_turn_under_its_header_and_both_are_saved(
        db: Path, chutes_server: FakeProvider, sutra_server: FakeProvider) -> None:
    # The first model is the slower one: its reply still comes first, whole.
    chutes_server.script(Reply(stream_of(["one ", "two ", "three"]), delay=0.05))
    sutra_server.script(Reply(stream_of(["नमस्ते", " दुनिया"], flavour="sutra")))
    result = run("ask", "-m", "m1", "-m", "sutra:sutra-v2", "hello",
                 env=both(chutes_server, sutra_server))
    assert result.returncode == 0, result.stderr
    assert result.stdout == ("==> chutes:m1 <==\none two three\n\n"
                             "==> sutra:sutra-v2 <==\nनमस्ते दुनिया\n")
    assert result.stderr == ""
    for server in (chutes_server, sutra_server):
        assert server.requests[-1].body["messages"] == [{"role": "user", "content": "hello"}]
    with Store.open(db) as store:
        latest = store.latest_conversation()
        assert latest is not None
        tree = store.get_tree(latest.id)
    prompt, *replies = tree.messages
    assert [m.content for m in replies] == ["one two three", "नमस्ते दुनिया"]
    assert {m.parent_id for m in replies} == {prompt.id}
    assert [(m.provider, m.model) for m in replies] == [("chutes", "m1"), ("sutra", "sutra-v2")]


def test_one_model_failing_does_not_stop_the_other(
        chutes_server: FakeProvider, sutra_server: FakeProvider) -> None:
    chutes_server.script(Reply.error(401, {"detail": "Invalid token."}))
    sutra_server.script(Reply(stream_of(["fine"], flavour="sutra")))
    result = run("ask", "--no-save", "-p", "sutra", "--compare", "chutes:m1,sutra-v2", "q",
                 env=both(chutes_server, sutra_server))
    assert result.returncode == 3  # the first failure's code: authentication
    assert result.stdout == "==> chutes:m1 <==\n\n==> sutra:sutra-v2 <==\nfine\n"
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tui-chat: chutes:m1: ")
    assert "rejected the API key" in lines[0] and KEY not in result.stderr


def test_compare_needs_two_to_four_models(chutes_server: FakeProvider) -> None:
    env = {"CHUTES_BASE_URL": chutes_server.url, "CHUTES_API_KEY": KEY}
    one = run("ask", "--no-save", "--compare", "m1", "q", env=env)
    assert one.returncode == 2 and "two to four" in one.stderr
    five = run("ask", "--no-save", *[f"-m=m{i}" for i in range(5)], "q", env=env)
    assert five.returncode == 2 and "2 to 4" in five.stderr
    assert not chutes_server.requests


def test_a_persona_gives_its_prompt_parameters_and_model(
        isolated_dirs: Path, sutra_server: FakeProvider, chutes_server: FakeProvider) -> None:
    folder = isolated_dirs / "config" / "tui-chat" / "personas"
    folder.mkdir(parents=True)
    (folder / "poet.toml").write_text(
        'description = "Verse"\nsystem_prompt = "Answer in verse."\nprovider = "sutra"\n'
        'model = "sutra-v2"\n[parameters]\ntemperature = 0.9\n', encoding="utf-8")
    (folder / "broken.toml").write_text('system_prompt = "x"\ncolour = "red"\n',
                                        encoding="utf-8")
    sutra_server.script(Reply(stream_of(["roses"], flavour="sutra")))
    env = both(chutes_server, sutra_server)
    result = run("ask", "--no-save", "--persona", "poet", "q", env=env)
    assert (result.returncode, result.stdout) == (0, "roses")
    body = sutra_server.requests[-1].body
    assert body["messages"][0] == {"role": "system", "content": "Answer in verse."}
    assert body["model"] == "sutra-v2" and body["temperature"] == 0.9
    warning = result.stderr.strip().splitlines()
    assert len(warning) == 1 and "broken.toml" in warning[0] and "'colour'" in warning[0]
    # -m wins over the persona's model; the prompt and parameters stay.
    chutes_server.script(Reply(stream_of(["ok"])))
    chosen = run("ask", "--no-save", "--persona", "poet", "-p", "chutes", "-m", "m1", "q",
                 env=env)
    assert chosen.returncode == 0
    assert chutes_server.requests[-1].body["model"] == "m1"
    assert chutes_server.requests[-1].body["messages"][0]["content"] == "Answer in verse."
    unknown = run("ask", "--no-save", "--persona", "nobody", "q", env=env)
    assert unknown.returncode == 2 and "no persona called nobody" in unknown.stderr
    assert "poet" in unknown.stderr


def test_attachments_go_to_every_model_compared(
        tmp_path: Path, chutes_server: FakeProvider, sutra_server: FakeProvider) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("remember the milk\n", encoding="utf-8")
    image = tmp_path / "photo.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(24))
    env = both(chutes_server, sutra_server)
    result = run("ask", "--no-save", "--compare", "m1,sutra:sutra-v2", "-a", str(notes),
                 "what is in it?", env=env)
    assert result.returncode == 0, result.stderr
    sent = f"what is in it?\n\n{notes}\n```text\nremember the milk\n```"
    for server in (chutes_server, sutra_server):
        assert server.requests[-1].body["messages"] == [{"role": "user", "content": sent}]
    posts = len(chutes_server.requests) + len(sutra_server.requests)
    refused = run("ask", "--no-save", "--compare", "m1,sutra:sutra-v2", "-a", str(image),
                  "and this?", env=env)
    assert refused.returncode != 0 and "m1 does not read images" in refused.stderr
    assert len(chutes_server.requests) + len(sutra_server.requests) == posts  # none sent
