"""Opening a tool's image (`o` on its result: widgets/tool_files): asked first, as a link
is; then its bytes, read from the store, are written to a private folder (mode 0700, made
once per run) under the name tui-chat gave it (`image-1.png`: never the server's), and
handed to the user's viewer as a file:// URL (`App.open_url`, which says where none opens)."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from tui_chat.core.attachments import size_text
from tui_chat.core.mcp.results import IMAGE_EXTENSIONS, image_name
from tui_chat.core.models import AttachmentInfo, Message

if TYPE_CHECKING:
    from textual.app import App

    from tui_chat.core.store import Store

_folder: Path | None = None
_EXTENSIONS = "|".join([*IMAGE_EXTENSIONS.values(), "bin"])
_OWN_NAME = re.compile(rf"image-[0-9]{{1,6}}\.(?:{_EXTENSIONS})")
"""A name tui-chat gives an image of a result (core.mcp.results.image_name)."""


def image_folder() -> Path:
    """The private folder the images opened in this run are written to."""
    global _folder
    if _folder is None or not _folder.is_dir():
        _folder = Path(tempfile.mkdtemp(prefix="tui-chat-images-"))
    return _folder


def write_image(message: Message, info: AttachmentInfo, data: bytes) -> Path:
    """`data` written as `<message id>-image-N.ext` in the private folder; its path. N is
    the one its name has (an earlier image too large to keep has a number and no file);
    a name tui-chat did not give (an imported store) is numbered by its place."""
    if _OWN_NAME.fullmatch(info.name):
        name = info.name
    else:
        number = message.attachments.index(info) + 1 if info in message.attachments else 1
        name = image_name(number, info.mime)
    path = image_folder() / f"{message.id}-{name}"
    path.write_bytes(data)
    path.chmod(0o600)
    return path


def open_tool_file(app: App[object], store: Store, message: Message,
                   info: AttachmentInfo) -> None:
    """Ask, then open `info` (an image of the tool message `message`) in the user's viewer."""
    from tui_chat.ui.screens.confirm import ConfirmScreen

    if info.mime not in IMAGE_EXTENSIONS:
        return
    found = store.attachments_of([message.id]).get(message.id, [])
    data = next((a.data for a in found if a.name == info.name), None)
    if data is None:
        app.notify("That image is no longer in the store.", markup=False, severity="warning")
        return

    def answered(yes: bool | None) -> None:
        if yes:
            app.open_url(write_image(message, info, data).as_uri())

    app.push_screen(ConfirmScreen(
        f"Open {info.name} ({info.mime}, {size_text(info.size)}), an image from the tool's "
        "result, in your image viewer?", yes="Open"), answered)
