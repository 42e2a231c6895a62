"""Attachments: read and checked, stored with their message (schema 5), exported and imported,
and sent as the request body the loopback server receives, for a text-only and an image
model."""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path

import pytest

from tests.fakeprovider import PRICED_MODELS, FakeProvider
from tui_chat.core import export
from tui_chat.core.attachments import (
    MAX_IMAGE_BYTES,
    MAX_TEXT_BYTES,
    AttachmentError,
    attachment_from,
    complete_path,
    fenced,
    language_for,
    mentioned_paths,
    read_attachment,
)
from tui_chat.core.config import Settings
from tui_chat.core.models import Conversation, Message, Role
from tui_chat.core.session import ReplyFinished
from tui_chat.core.store import Store
from tui_chat.core.workspace import Workspace

PNG = b"\x89PNG\r\n\x1a\n" + b"\0\0\0\rIHDR" + bytes(20)
FIXTURE_V4 = Path(__file__).parent.parent / "fixtures" / "store-v4.sqlite3"


def write(path: Path, data: bytes | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_bytes(data)
    return path


# --- reading -------------------------------------------------------------------------------

def test_a_text_file_becomes_a_fenced_block_named_after_it(tmp_path: Path) -> None:
    path = write(tmp_path / "src" / "main.py", "print('```')\n")
    attachment = read_attachment(path, "src/main.py")
    assert (attachment.kind, attachment.language, attachment.size) == ("text", "python", 13)
    assert fenced(attachment) == "src/main.py\n````python\nprint('```')\n````"
    assert attachment.tokens > 0
    assert [language_for(n) for n in ("a.rs", "Makefile", "notes", "x.TOML")] == [
        "rust", "makefile", "", "toml"]


def test_images_are_known_by_their_bytes(tmp_path: Path) -> None:
    jpeg = read_attachment(write(tmp_path / "photo.png", b"\xff\xd8\xff\xe0" + bytes(10)))
    assert (jpeg.kind, jpeg.mime) == ("image", "image/jpeg")  # the name does not decide
    webp = attachment_from(b"RIFF\x10\0\0\0WEBPVP8 ", "w")
    gif = attachment_from(b"GIF89a" + bytes(8), "g")
    assert (webp.mime, gif.mime) == ("image/webp", "image/gif")


@pytest.mark.parametrize(("make", "said"), [
    (lambda p: write(p / "a.bin", b"\x7fELF\0\0\1"), "neither text, a PDF nor an image"),
    (lambda p: write(p / "latin1.txt", "café".encode("latin-1")),
     "neither text, a PDF nor an image"),
    (lambda p: write(p / "big.txt", "x" * (MAX_TEXT_BYTES + 1)),
     "is 1,048,577 bytes, larger than the 1,048,576 bytes"),
    (lambda p: write(p / "bigger.txt", "x" * (MAX_TEXT_BYTES * 3 // 2)),
     "is 1.5 MB, larger than the 1.0 MB"),
    (lambda p: write(p / "big.png", PNG + bytes(MAX_IMAGE_BYTES)), "larger than"),
    (lambda p: p, "is a folder"),
    (lambda p: p / "missing.txt", "There is no file"),
])
def test_what_cannot_be_attached_is_one_sentence(tmp_path: Path, make: object,
                                                 said: str) -> None:
    path = make(tmp_path)  # type: ignore[operator]
    with pytest.raises(AttachmentError) as caught:
        read_attachment(path)
    assert said in caught.value.message and caught.value.message.endswith(".")


def test_at_paths_in_a_prompt_name_existing_files(tmp_path: Path) -> None:
    write(tmp_path / "a.py", "x")
    write(tmp_path / "docs" / "b.md", "y")
    prompt = "look at @a.py and @docs/b.md, not @missing.txt or me@a.py; again @a.py."
    assert mentioned_paths(prompt, tmp_path) == [("a.py", tmp_path / "a.py"),
                                                 ("docs/b.md", tmp_path / "docs" / "b.md")]


def test_tab_completes_a_path_as_far_as_the_files_agree(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "src" / "main.py", "x")
    write(tmp_path / "src" / "make.py", "x")
    write(tmp_path / ".hidden", "x")
    write(tmp_path / "notes.txt", "x")
    assert complete_path("sr", tmp_path) == "src/"
    assert complete_path("src/m", tmp_path) == "src/ma"
    assert complete_path("src/mai", tmp_path) == "src/main.py"
    assert complete_path("src/x", tmp_path) is None
    assert complete_path("", tmp_path) is None  # notes.txt and src/ agree on nothing
    assert complete_path(".h", tmp_path) == ".hidden"
    assert complete_path(f"{tmp_path}/no", tmp_path) == f"{tmp_path}/notes.txt"
    root = [p for p in Path("/").iterdir() if not p.name.startswith(".")]
    alone = next(p for p in root if sum(o.name.startswith(p.name) for o in root) == 1)
    assert complete_path(str(alone), tmp_path) == str(alone) + ("/" if alone.is_dir() else "")
    monkeypatch.setenv("HOME", str(tmp_path / "src"))
    assert complete_path("~", tmp_path) == "~/"
    assert complete_path("~/mai", tmp_path) == "~/main.py"


# --- the store -----------------------------------------------------------------------------

def test_attachments_are_stored_with_their_message_and_go_with_it(store: Store) -> None:
    conversation = store.create_conversation(Conversation(title="t"))
    files = [attachment_from(b"hello\n", "a.txt"), attachment_from(PNG, "p.png")]
    message = store.add_message(Message(conversation_id=conversation.id, role=Role.USER,
                                        content="see"), attachments=files)
    shown = store.get_messages(conversation.id)[0]
    assert [(a.name, a.kind, a.size) for a in shown.attachments] == [
        ("a.txt", "text", 6), ("p.png", "image", len(PNG))]
    content = store.attachments_of([message.id])[message.id]
    assert (content[0].text, content[1].data) == ("hello\n", PNG)
    fork = store.fork(message.id)
    copied = store.get_messages(fork.id)[0]
    assert store.attachments_of([copied.id])[copied.id][1].data == PNG
    store.delete_conversation(conversation.id)
    assert store.attachments_of([message.id]) == {}
    assert store._conn.execute("SELECT count(*) FROM attachments").fetchone()[0] == 2  # fork's


def test_a_store_of_todays_code_takes_attachments_after_migrating(tmp_path: Path) -> None:
    path = tmp_path / "v4.sqlite3"
    shutil.copy(FIXTURE_V4, path)
    with Store.open(path) as store:
        cid = "d2" + "0" * 30
        assert all(m.attachments == [] for m in store.get_messages(cid))
        message = store.add_message(Message(conversation_id=cid, role=Role.USER, content="f"),
                                    attachments=[attachment_from(b"x = 1\n", "x.py")])
        assert store.get_message(message.id).attachments[0].language == "python"


def test_exports_carry_attachments_and_imports_take_them(store: Store,
                                                          tmp_path: Path) -> None:
    conversation = store.create_conversation(Conversation(title="files"))
    store.add_message(Message(conversation_id=conversation.id, role=Role.USER, content="see"),
                      attachments=[attachment_from(b"a\n", "a.txt"),
                                   attachment_from(PNG, "p.png")])
    text = export.export_json(store, [conversation.id])
    saved = json.loads(text)["conversations"][0]["messages"][0]["attachments"]
    assert saved[0]["text"] == "a\n" and base64.b64decode(saved[1]["data"]) == PNG
    assert "*Attached: a.txt (2 B, text)*" in export.export_markdown(store, [conversation.id])
    file = tmp_path / "e.json"
    file.write_text(text, encoding="utf-8")
    with Store.open(tmp_path / "other.sqlite3") as other:
        export.import_file(other, file)
        message = other.get_messages(conversation.id)[0]
        assert other.attachments_of([message.id])[message.id][1].data == PNG
    bad = json.loads(text)
    bad["conversations"][0]["messages"][0]["attachments"][1]["data"] = "bm90IGFuIGltYWdl"
    file.write_text(json.dumps(bad), encoding="utf-8")
    with Store.open(tmp_path / "third.sqlite3") as third, pytest.raises(Exception) as caught:
        export.import_file(third, file)
    assert "PNG, JPEG, WebP or GIF" in str(caught.value)


# --- the request ---------------------------------------------------------------------------

async def workspace_on(store: Store, server: FakeProvider, model: str) -> Workspace:
    server.models_list = PRICED_MODELS
    env = {"CHUTES_BASE_URL": server.url, "CHUTES_API_KEY": "cpk_attach-test-000001"}
    workspace = Workspace(Settings(), store, env=env, model=model)
    await workspace.catalog.refresh(workspace.provider)
    return workspace


async def test_a_text_file_reaches_the_model_inside_the_message(
        store: Store, chutes_server: FakeProvider) -> None:
    workspace = await workspace_on(store, chutes_server, "fake/small")
    events = [e async for e in workspace.send("review this", attachments=[
        attachment_from(b"def f():\n    return 1\n", "f.py")])]
    assert any(isinstance(e, ReplyFinished) for e in events)
    sent = chutes_server.requests[-1].body["messages"][-1]
    assert sent == {"role": "user", "content":
                    "review this\n\nf.py\n```python\ndef f():\n    return 1\n```"}
    await workspace.aclose()


async def test_an_image_goes_as_a_content_part_only_to_a_model_that_reads_images(
        store: Store, chutes_server: FakeProvider) -> None:
    workspace = await workspace_on(store, chutes_server, "fake/small")
    image = attachment_from(PNG, "chart.png")
    with pytest.raises(AttachmentError) as caught:
        workspace.send("what is this?", attachments=[image])
    assert "fake/small does not read images" in caught.value.message
    assert not [r for r in chutes_server.requests if r.method == "POST"]
    assert not workspace.session.is_saved  # nothing saved either
    workspace.choose("chutes", "fake/large")
    [e async for e in workspace.send("what is this?", attachments=[image])]
    content = chutes_server.requests[-1].body["messages"][-1]["content"]
    assert content == [{"type": "text", "text": "what is this?"},
                       {"type": "image_url", "image_url": {
                           "url": "data:image/png;base64," + base64.b64encode(PNG).decode()}}]
    workspace.choose("chutes", "fake/small")  # an earlier image, to a text-only model
    [e async for e in workspace.send("and now?")]
    first = chutes_server.requests[-1].body["messages"][0]["content"]
    assert isinstance(first, str) and "chart.png" in first and "not sent" in first
    await workspace.aclose()


async def test_attachments_count_in_the_context(store: Store,
                                                chutes_server: FakeProvider) -> None:
    workspace = await workspace_on(store, chutes_server, "fake/small")
    big = attachment_from(("word " * 2000).encode(), "words.txt")
    plan = workspace.context_plan("short", attachments=[big])
    assert plan.state == "over"  # 2,000 words do not fit a 2,048-token window
    assert workspace.context_plan("short").state == "fits"
    await workspace.aclose()


def test_an_at_folder_is_named_so_that_it_is_refused_not_sent_as_text(tmp_path: Path) -> None:
    write(tmp_path / "docs" / "b.md", "y")
    found = mentioned_paths("summarise @docs please", tmp_path)
    assert found == [("docs", tmp_path / "docs")]
    with pytest.raises(AttachmentError) as caught:
        read_attachment(found[0][1], found[0][0])
    assert caught.value.message == "docs is a folder; attach the files in it one by one."
