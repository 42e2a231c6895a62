"""The exchange can ask: the asker given to `send` or `compare` is the workspace's while the
exchange runs (whatever runs inside it asks through `Workspace.asker`), and the default,
refusing at once, is back when it ends, however it ends."""

from __future__ import annotations

from collections.abc import Sequence

from tests.fakeprovider import FakeProvider, Reply, stream_of
from tests.unit.test_workspace import env_for
from tui_chat.core.asker import REFUSE
from tui_chat.core.compare import TargetEvent
from tui_chat.core.config import Settings
from tui_chat.core.events import ContentDelta
from tui_chat.core.store import Store
from tui_chat.core.workspace import Workspace


class FakeAsker:
    """Answers yes, and the last choice; remembers every question."""

    def __init__(self) -> None:
        self.questions: list[str] = []

    async def confirm(self, question: str) -> bool:
        self.questions.append(question)
        return True

    async def ask(self, question: str, choices: Sequence[str]) -> str | None:
        self.questions.append(question)
        return choices[-1]


async def test_send_asks_through_the_given_asker_while_it_runs(
        store: Store, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["one ", "two"])))
    workspace = Workspace(Settings(), store, env=env_for(chutes_server))
    asker = FakeAsker()
    assert workspace.asker is REFUSE
    answers = []
    async for event in workspace.send("q", asker=asker):
        if isinstance(event, ContentDelta) and not answers:  # mid-reply
            answers = [await workspace.asker.confirm("Run get_weather?"),
                       await workspace.asker.ask("Which city?", ["Paris", "Pune"])]
    assert answers == [True, "Pune"]
    assert asker.questions == ["Run get_weather?", "Which city?"]
    assert workspace.asker is REFUSE
    assert await workspace.asker.confirm("Run it?") is False
    assert await workspace.asker.ask("Which?", ["a"]) is None


async def test_an_exchange_given_no_asker_refuses(store: Store,
                                                  chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["one ", "two"])))
    workspace = Workspace(Settings(), store, env=env_for(chutes_server))
    seen = []
    async for event in workspace.send("q"):
        if isinstance(event, ContentDelta):
            seen.append(await workspace.asker.confirm("Run it?"))
    assert seen and not any(seen)


async def test_a_stopped_exchange_gives_the_asker_back(store: Store,
                                                      chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["one ", "two", " three"])))
    workspace = Workspace(Settings(), store, env=env_for(chutes_server))
    asker = FakeAsker()
    events = workspace.send("q", asker=asker)
    async for event in events:
        if isinstance(event, ContentDelta):
            assert workspace.asker is asker
            break
    await events.aclose()  # Esc: the exchange is closed mid-reply
    assert workspace.asker is REFUSE


async def test_compare_asks_through_the_given_asker_while_it_runs(
        store: Store, chutes_server: FakeProvider) -> None:
    chutes_server.script(Reply(stream_of(["a"])), Reply(stream_of(["b"])))
    workspace = Workspace(Settings(), store, env=env_for(chutes_server))
    workspace.choose_several([("chutes", "deepseek-ai/DeepSeek-V3-0324"),
                              ("chutes", "Qwen/Qwen3-32B")])
    asker = FakeAsker()
    during = []
    async for event in workspace.compare("q", asker=asker):
        if isinstance(event, TargetEvent) and isinstance(event.event, ContentDelta):
            during.append(await workspace.asker.confirm(f"target {event.target}?"))
    assert during == [True, True] and len(asker.questions) == 2
    assert workspace.asker is REFUSE
