"""The three apps the peers benchmark drives, each as a user runs it, with what differs:
how it is installed, started and configured for the loopback provider, which key sends a
prompt, what its ready screen shows, how its store is written and how a stored conversation
is opened from its own list.

Every run gets fresh, throwaway HOME, XDG config, data, cache and state directories. An
HTTPS proxy on a closed loopback port keeps any outside call an app makes on its own (oterm
asks PyPI for a newer version; litellm may fetch a model price list) from reaching the
network or depending on it; the loopback provider is reached directly (NO_PROXY).
"""

from __future__ import annotations

import importlib.metadata
import json
import re
import shutil
import subprocess
import sys
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from benchmarks.peers.terminal import Pane

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).parent
CONVERSATION_TITLE = "Long one"


@dataclass(frozen=True)
class Conversation:
    """A stored conversation, in every app's own store format."""

    title: str
    model: str
    messages: list[tuple[str, str]]  # (role, content), oldest first


def normalized(package: str) -> str:
    """A distribution's name as pip compares them (`elia_chat` is `elia-chat`)."""
    return re.sub(r"[-_.]+", "-", package).lower()


def base_env(folder: Path, path: str) -> dict[str, str]:
    for sub in ("home", "config", "data", "cache", "state"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    return {"HOME": str(folder / "home"), "XDG_CONFIG_HOME": str(folder / "config"),
            "XDG_DATA_HOME": str(folder / "data"), "XDG_CACHE_HOME": str(folder / "cache"),
            "XDG_STATE_HOME": str(folder / "state"), "PATH": f"{path}:/usr/bin:/bin",
            "TERM": "tmux-256color", "COLORTERM": "truecolor", "LANG": "C.UTF-8",
            "HTTPS_PROXY": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9",
            "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}


class InstallFailed(RuntimeError):
    """A peer could not be installed (no network, a pin no longer on the index, ...)."""


class App(ABC):
    name: str
    send_key: str = "Enter"
    ready_marker: str
    """Text on the screen once the app is up with its prompt focused (empty store)."""

    @property
    @abstractmethod
    def version(self) -> str: ...

    @abstractmethod
    def textual_version(self) -> str: ...

    @abstractmethod
    def argv(self, model: str) -> list[str]: ...

    @abstractmethod
    def env(self, folder: Path, url: str, model: str) -> dict[str, str]:
        """The environment of a run in `folder`, its config files written there."""

    @abstractmethod
    def write_store(self, folder: Path, conversations: list[Conversation]) -> None:
        """The app's own store in `folder` (as `env` lays it out), holding `conversations`."""

    @property
    def chat_ready_marker(self) -> str:
        """The same, with conversations in the store."""
        return self.ready_marker

    def chat_store(self, folder: Path, model: str) -> None:
        """What the store must hold for a prompt to be sent on start: nothing, but in oterm
        (one chat)."""
        return None

    def open_store(self, folder: Path, conversation: Conversation) -> None:
        """The store for opening `conversation` from the app's list."""
        self.write_store(folder, [conversation])

    @abstractmethod
    def open_first(self, pane: Pane, title: str, timeout: float) -> bool:
        """Bring the app to one key from opening the conversation `title` (the only one in
        its list, or named `title`); False if it did not get there in `timeout`."""

    open_key: str = "Enter"


class TuiChat(App):
    name = "tui-chat"
    ready_marker = "Enter sends"  # the prompt's placeholder

    @property
    def version(self) -> str:
        from tui_chat import __version__
        return __version__

    def textual_version(self) -> str:
        return importlib.metadata.version("textual")

    @staticmethod
    def command() -> list[str]:
        """`tui-chat` as installed in this interpreter's environment."""
        script = Path(sys.executable).parent / "tui-chat"
        return [str(script)] if script.exists() else [sys.executable, "-m", "tui_chat"]

    def argv(self, model: str) -> list[str]:
        return [*self.command(), "-m", model]

    def env(self, folder: Path, url: str, model: str) -> dict[str, str]:
        return {**base_env(folder, str(Path(sys.executable).parent)),
                "CHUTES_BASE_URL": url, "CHUTES_API_KEY": "bench-key"}

    def write_store(self, folder: Path, conversations: list[Conversation]) -> None:
        """Through `tui-chat import` and its documented JSON format (not the store's
        internals, which may change)."""
        when = datetime(2026, 1, 1, tzinfo=UTC)
        document = {"format": "tui-chat-conversations", "version": 1, "conversations": [
            {"id": f"bench-{index}", "title": item.title, "created": when.isoformat(),
             "updated": when.isoformat(), "provider": "chutes", "model": item.model,
             "messages": [{"id": f"bench-{index}-{k}", "role": role, "content": content,
                           "created": (when + timedelta(seconds=k)).isoformat(),
                           **({"provider": "chutes", "model": item.model}
                              if role == "assistant" else {})}
                          for k, (role, content) in enumerate(item.messages)]}
            for index, item in enumerate(conversations)]}
        source = folder / "import.json"
        source.write_text(json.dumps(document))
        subprocess.run([*self.command(), "import", str(source)],
                       env=self.env(folder, "http://127.0.0.1:9/v1", "bench/1"), check=True,
                       capture_output=True, timeout=300)
        source.unlink()

    def open_first(self, pane: Pane, title: str, timeout: float) -> bool:
        pane.keys("C-b")  # the sidebar, its list focused, the newest conversation highlighted
        return pane.wait_for(lambda screen: title in screen, timeout) is not None


class Peer(App):
    """An app installed from PyPI at a pinned version, with its whole dependency set pinned
    (constraints-NAME.txt, from `pip freeze` of the environment measured), in a virtual
    environment of its own under the benchmark cache, reused while its pins are unchanged."""

    package: str
    module: str

    def __init__(self) -> None:
        self.venv: Path | None = None
        constraints = (HERE / f"constraints-{self.name}.txt").read_text()
        pins = {normalized(name): version for name, _, version in
                (line.partition("==") for line in constraints.splitlines())
                if version and not name.startswith("#")}
        self._version = pins[normalized(self.package)]
        self._textual = pins["textual"]
        self._constraints = constraints

    @property
    def version(self) -> str:
        return self._version

    def textual_version(self) -> str:
        return self._textual

    @property
    def python(self) -> Path:
        assert self.venv is not None, "install() first"
        return self.venv / "bin" / "python"

    def install(self, cache: Path) -> None:
        venv = cache / "peers" / f"{self.name}-{self.version}"
        stamp = venv / "installed-with.txt"
        if stamp.exists() and stamp.read_text() == self._constraints:
            self.venv = venv
            return
        print(f"  installing {self.package}=={self.version} into {venv} (once; a few minutes)",
              flush=True)
        shutil.rmtree(venv, ignore_errors=True)
        venv.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pin_file = venv / "constraints.txt"
        pin_file.write_text(self._constraints)
        done = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q",
                               "--disable-pip-version-check", "-c", str(pin_file),
                               f"{self.package}=={self.version}"],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise InstallFailed(f"pip could not install {self.package}=={self.version} with "
                                f"its pins ({pin_file}); its last words:\n"
                                + "\n".join(done.stderr.splitlines()[-5:]))
        stamp.write_text(self._constraints)
        self.venv = venv

    def write_store(self, folder: Path, conversations: list[Conversation]) -> None:
        payload = json.dumps([{"title": c.title, "model": self.store_model(c.model),
                               "provider": "openai-compat/bench", "messages": c.messages}
                              for c in conversations])
        subprocess.run([str(self.python), str(HERE / "peer_store.py"), self.name],
                       input=payload, text=True, capture_output=True, check=True,
                       env=self.env(folder, "http://127.0.0.1:9/v1", "bench/1"), timeout=300)

    def store_model(self, model: str) -> str:
        return model


class Elia(Peer):
    name = "elia"
    package = "elia-chat"
    send_key = "C-j"  # Enter is a new line in elia's prompt
    ready_marker = "Enter your message"  # the home prompt's title
    MODEL_ID = "bench"

    def argv(self, model: str) -> list[str]:
        return [str(self.python), "-m", "elia_chat"]

    def env(self, folder: Path, url: str, model: str) -> dict[str, str]:
        env = base_env(folder, str(self.python.parent))
        config = folder / "config" / "elia"
        config.mkdir(parents=True, exist_ok=True)
        (config / "config.toml").write_text(
            f'default_model = "{self.MODEL_ID}"\n\n[[models]]\nid = "{self.MODEL_ID}"\n'
            f'name = "openai/{model}"\napi_base = "{url}"\napi_key = "bench-key"\n')
        # litellm's documented switch to use the price list it ships instead of fetching one
        return {**env, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}

    def store_model(self, model: str) -> str:
        return self.MODEL_ID  # elia stores the model's id from its config

    def open_first(self, pane: Pane, title: str, timeout: float) -> bool:
        pane.keys("Down")  # from the empty prompt to the history list, first chat highlighted
        return pane.wait_for(lambda screen: "1 / 1" in screen, timeout) is not None


class Oterm(Peer):
    name = "oterm"
    package = "oterm"
    ready_marker = "Welcome to oterm!"
    """With an empty store oterm shows a welcome text (no prompt until a chat exists)."""

    @property
    def chat_ready_marker(self) -> str:
        return "⏎ submit"  # the footer once a chat's prompt has the focus

    def argv(self, model: str) -> list[str]:
        return [str(self.python.parent / "oterm")]

    def env(self, folder: Path, url: str, model: str) -> dict[str, str]:
        env = base_env(folder, str(self.python.parent))
        data = folder / "data" / "oterm"
        data.mkdir(parents=True, exist_ok=True)
        # The splash screen is an animation that delays the first prompt on purpose: off.
        (data / "config.json").write_text(json.dumps({
            "theme": "textual-dark", "splash-screen": False,
            "openaiCompatible": {"bench": {"base_url": url, "api_key": "bench-key"}}}))
        return env

    def chat_store(self, folder: Path, model: str) -> None:
        self.write_store(folder, [Conversation("bench", model, [])])

    def open_store(self, folder: Path, conversation: Conversation) -> None:
        """oterm opens every stored chat in a tab at start and shows the first: an empty
        chat comes first, so that the conversation is opened by the user, as in the others."""
        self.write_store(folder, [Conversation("bench", conversation.model, []), conversation])

    def open_first(self, pane: Pane, title: str, timeout: float) -> bool:
        """oterm opens one tab per stored chat, the first one active: the conversation is
        the second tab, reached through its "go to chat" search (Ctrl+F)."""
        pane.keys("C-f")
        if pane.wait_for(lambda screen: "Search chats" in screen, timeout) is None:
            return False
        pane.type(title)
        time.sleep(0.5)  # the palette searches as it is typed; its list shows the one match
        return pane.wait_for(lambda screen: screen.count(title) >= 2, timeout) is not None


def all_apps() -> list[App]:
    return [TuiChat(), Elia(), Oterm()]


def describe(apps: list[App]) -> dict[str, Any]:
    return {app.name: {"version": app.version, "textual": app.textual_version()}
            for app in apps}
