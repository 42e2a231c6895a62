"""Issue 12, Files: everything tui-chat writes that may hold conversations or keys is 0600, the
folders it creates 0700, whatever the umask; saving Settings keeps the user's config.toml
(comments, order, other keys) and writes through a symbolic link; a full disk says so."""

from __future__ import annotations

import errno
import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tui_chat.core.config import (
    Settings,
    load_settings,
    move_aside,
    save_settings,
    write_private_file,
)
from tui_chat.core.errors import StoreError
from tui_chat.core.files import os_error_reason
from tui_chat.core.model_catalog import ModelCatalog
from tui_chat.core.models import Conversation, Message, MessageStatus, ModelInfo, Role
from tui_chat.core.providers import Provider
from tui_chat.core.store import Store


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


@pytest.fixture(params=[0o000, 0o022], ids=["umask000", "umask022"])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


def created_folders(root: Path, leaf: Path) -> list[Path]:
    """`leaf` and each of its parents below `root` (all created by the code under test)."""
    folders = []
    while leaf != root:
        folders.append(leaf)
        leaf = leaf.parent
    return folders


def test_config_save_is_0600_in_0700_folders(tmp_path: Path, umask: int) -> None:
    path = tmp_path / "new" / "config" / "tui-chat" / "config.toml"
    save_settings(Settings(system_prompt="hi"), path)
    assert mode(path) == 0o600
    assert {folder.name: mode(folder) for folder in created_folders(tmp_path, path.parent)} == {
        "tui-chat": 0o700, "config": 0o700, "new": 0o700}


def test_store_and_its_wal_and_shm_are_private(tmp_path: Path, umask: int) -> None:
    path = tmp_path / "data" / "tui-chat" / "conversations.sqlite3"
    with Store.open(path) as store:
        chat = store.create_conversation(Conversation(title="t"))
        store.add_message(Message(conversation_id=chat.id, role=Role.USER, content="x",
                                  status=MessageStatus.COMPLETE))
        files = {p.name: mode(p) for p in path.parent.iterdir()}
    assert files == {"conversations.sqlite3": 0o600, "conversations.sqlite3-wal": 0o600,
                     "conversations.sqlite3-shm": 0o600}
    assert [mode(folder) for folder in created_folders(tmp_path, path.parent)] == [0o700] * 2


async def test_model_cache_is_private(tmp_path: Path, umask: int) -> None:
    cache = tmp_path / "cache" / "tui-chat" / "models.json"

    async def fetch(provider: Provider) -> list[ModelInfo]:
        return [ModelInfo(id="m1", provider=provider.name)]

    catalog = ModelCatalog(Settings(), cache_file=cache, fetch=fetch)
    await catalog.refresh(catalog.settings.resolve_provider("chutes", env={}))
    assert mode(cache) == 0o600
    assert [mode(folder) for folder in created_folders(tmp_path, cache.parent)] == [0o700] * 2


def test_an_export_into_new_folders_is_private(tmp_path: Path, umask: int) -> None:
    target = tmp_path / "exports" / "2026" / "chat.json"
    write_private_file(target, "{}")
    assert mode(target) == 0o600
    assert [mode(folder) for folder in created_folders(tmp_path, target.parent)] == [0o700] * 2


def test_existing_folders_are_left_as_they_are(tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o755)
    write_private_file(folder / "config.toml", "")
    assert mode(folder) == 0o755 and mode(folder / "config.toml") == 0o600


def test_a_file_moved_aside_is_private(tmp_path: Path, umask: int) -> None:
    path = tmp_path / "config.toml"
    path.write_text("api_key = 'sk-secret'  broken")
    path.chmod(0o644)
    moved = move_aside(path)
    assert moved.read_text().startswith("api_key") and mode(moved) == 0o600


def test_a_damaged_store_moved_aside_is_private_with_its_sidecars(tmp_path: Path) -> None:
    path = tmp_path / "conversations.sqlite3"
    path.write_bytes(b"not a database at all" * 100)
    (tmp_path / "conversations.sqlite3-wal").write_bytes(b"wal")
    for item in tmp_path.iterdir():
        item.chmod(0o644)
    with Store.open(path) as store:
        assert store.notice is not None
    aside = sorted(p for p in tmp_path.iterdir() if ".broken-" in p.name)
    assert {p.name.rpartition(".broken-")[0] for p in aside} == {"conversations.sqlite3"}
    assert any(p.name.endswith("-wal") for p in aside) and len(aside) >= 2
    assert {mode(p) for p in aside} == {0o600}


USER_FILE = """\
# My tui-chat settings: kept in git.
theme = "tui-chat-forest"   # the green one
default_provider = "chutes"

[timeouts]
read = 30  # my network is slow

[parameters]
temperature = 0.4

[providers.local]  # llama.cpp on the desk
display_name = "Desk"
base_url = "http://127.0.0.1:8080/v1"
headers = { X-Team = "blue" }
"""


def test_saving_keeps_comments_order_and_untouched_keys(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(USER_FILE)
    before = load_settings(path)
    changed = before.model_copy(update={
        "system_prompt": "Be brief.",
        "parameters": before.parameters.model_copy(update={"temperature": 0.9}),
    })
    save_settings(changed, path, base=before)
    text = path.read_text()
    provider_line = 'default_provider = "chutes"\n'
    assert text == USER_FILE.replace("temperature = 0.4", "temperature = 0.9").replace(
        provider_line, provider_line + 'system_prompt = "Be brief."\n')
    assert load_settings(path) == changed


def test_saving_only_writes_what_changed_since_the_form_opened(tmp_path: Path) -> None:
    """Another editor changed timeouts.read while Settings was open: the save keeps it."""
    path = tmp_path / "config.toml"
    path.write_text(USER_FILE)
    opened = load_settings(path)
    path.write_text(USER_FILE.replace("read = 30", "read = 45"))
    save_settings(opened.model_copy(update={"theme": "tui-chat-dawn"}), path, base=opened)
    saved = load_settings(path)
    assert saved.timeouts.read == 45 and saved.theme == "tui-chat-dawn"
    assert "# my network is slow" in path.read_text()


def test_clearing_a_setting_removes_only_that_key(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(USER_FILE.replace('theme = "tui-chat-forest"   # the green one\n',
                                      'theme = "tui-chat-forest"\nsystem_prompt = "x"\n'))
    before = load_settings(path)
    save_settings(before.model_copy(update={"system_prompt": None}), path)
    text = path.read_text()
    assert "system_prompt" not in text and "# llama.cpp on the desk" in text


def test_a_new_key_and_a_new_provider_section(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(USER_FILE)
    before = load_settings(path)
    data = before.model_dump()
    data["providers"]["sutra"] = {"api_key": "sk-sutra-secret"}
    save_settings(Settings.model_validate(data), path)
    saved = load_settings(path)
    assert saved.require_key(saved.resolve_provider("sutra", env={})) == "sk-sutra-secret"
    assert path.read_text().startswith(USER_FILE)


def test_a_symlinked_config_is_written_through_to_its_target(tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    target = dotfiles / "tui-chat.toml"
    target.write_text(USER_FILE)
    config = tmp_path / "config" / "config.toml"
    config.parent.mkdir()
    config.symlink_to(target)
    save_settings(load_settings(config).model_copy(update={"theme": "tui-chat-dawn"}), config)
    assert config.is_symlink() and os.readlink(config) == str(target)
    assert 'theme = "tui-chat-dawn"   # the green one' in target.read_text()
    assert mode(target) == 0o600
    assert sorted(p.name for p in dotfiles.iterdir()) == ["tui-chat.toml"]  # no temp left
    assert sorted(p.name for p in config.parent.iterdir()) == ["config.toml"]


def test_a_chain_of_links_and_a_dangling_link(tmp_path: Path) -> None:
    real = tmp_path / "real" / "config.toml"  # its folder does not exist yet
    middle = tmp_path / "middle.toml"
    middle.symlink_to(real)
    config = tmp_path / "config.toml"
    config.symlink_to(middle)
    save_settings(Settings(theme="tui-chat-dawn"), config)
    assert config.is_symlink() and middle.is_symlink()
    assert load_settings(real).theme == "tui-chat-dawn" and mode(real.parent) == 0o700


def test_a_broken_symlinked_config_is_moved_aside_beside_its_target(tmp_path: Path) -> None:
    target = tmp_path / "dotfiles" / "tui-chat.toml"
    target.parent.mkdir()
    target.write_text("this is not toml [")
    config = tmp_path / "config.toml"
    config.symlink_to(target)
    moved = save_settings(Settings(theme="tui-chat-dawn"), config)
    assert moved is not None and moved.parent == target.parent
    assert moved.read_text() == "this is not toml ["
    assert config.is_symlink() and load_settings(config).theme == "tui-chat-dawn"


def test_os_errors_name_their_cause() -> None:
    assert os_error_reason(OSError(errno.ENOSPC, "No space left on device")) == \
        "the disk is full"
    assert os_error_reason(OSError(errno.EACCES, "Permission denied")) == "permission denied"


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Path]:
    """A small tmpfs filled to the last byte: ENOSPC for real (needs root, as CI has)."""
    mount = tmp_path / "tmpfs"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip()})")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(mount: Path) -> None:
    with (mount / "filler").open("wb", buffering=0) as handle:
        try:
            while True:
                handle.write(b"\0" * 4096)
        except OSError as error:
            assert error.errno == errno.ENOSPC


def test_saving_settings_on_a_full_disk_keeps_the_old_file(full_disk: Path) -> None:
    path = full_disk / "config.toml"
    path.write_text(USER_FILE + "# " + "x" * 20_000 + "\n")
    original = path.read_bytes()
    fill(full_disk)
    with pytest.raises(OSError) as caught:
        save_settings(load_settings(path).model_copy(update={"theme": "tui-chat-dawn"}), path)
    assert os_error_reason(caught.value) == "the disk is full"
    assert path.read_bytes() == original
    assert sorted(p.name for p in full_disk.iterdir()) == ["config.toml", "filler"]


def test_a_store_on_a_full_disk_says_the_disk_is_full(full_disk: Path) -> None:
    with Store.open(full_disk / "store.sqlite3") as store:
        chat = store.create_conversation(Conversation(title="t"))
        fill(full_disk)
        with pytest.raises(StoreError) as caught:
            for _ in range(200):
                store.add_message(Message(conversation_id=chat.id, role=Role.USER,
                                          content="x" * 20_000,
                                          status=MessageStatus.COMPLETE))
    assert "the disk is full" in caught.value.message
    assert "permissions" not in caught.value.message
