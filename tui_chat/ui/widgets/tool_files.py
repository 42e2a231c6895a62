"""What a tool's result offers the user besides its text: its images, kept as files of the
tool message (`core.mcp.results.read_result`), and its resource links. Each is one row under
the result (folded or not): `📎 image-1.png · image/png · 1.2 KB · o opens it`, `🔗 A
https://example.com/a · o opens it`. `o` (the message list's open-link key) offers them in
turn, as it offers a reply's links, and asks first. Only http and https links are opened (the
rule of core.links, as in replies); a link of any other scheme is shown with a sentence
saying it is not opened.
Only the raster image types of `IMAGE_EXTENSIONS` are opened (an SVG could run scripts in
the viewer a file:// URL goes to). Names, types and URIs are the server's: sanitized."""

from __future__ import annotations

from rich.text import Text

from tui_chat.core.attachments import size_text
from tui_chat.core.links import NOT_OPENED as NOT_OPENED_WHY
from tui_chat.core.links import opens_in_browser
from tui_chat.core.mcp.results import IMAGE_EXTENSIONS, result_links
from tui_chat.core.models import AttachmentInfo, Message, Role
from tui_chat.core.text import one_line

NOT_OPENED = f"not opened: {NOT_OPENED_WHY}"
NOT_SHOWN_TYPE = "not opened: tui-chat opens only PNG, JPEG, GIF and WebP images"


def opens_file(info: AttachmentInfo) -> bool:
    return info.kind == "image" and info.mime in IMAGE_EXTENSIONS


def file_rows(message: Message) -> list[Text]:
    """The rows of a tool message's files and links (none for any other message)."""
    if message.role is not Role.TOOL:
        return []
    rows: list[Text] = []
    for info in message.attachments:
        how = "o opens it" if opens_file(info) else NOT_SHOWN_TYPE
        rows.append(_row(f"  📎 {one_line(info.name, 80)} · {one_line(info.mime, 60)} · "
                         f"{size_text(info.size)} · {how}"))
    for name, uri in result_links(message.content):
        how = "o opens it" if opens_in_browser(uri) else NOT_OPENED
        rows.append(_row(f"  🔗 {one_line(name, 80)} {one_line(uri, 200)} · {how}"))
    return rows


def _row(text: str) -> Text:
    return Text(text, style="dim", no_wrap=True, overflow="ellipsis")


def tool_targets(message: Message) -> list[str | AttachmentInfo]:
    """What `o` offers on a tool message, in the order shown: its images that open, then its
    http(s) links."""
    files: list[str | AttachmentInfo] = [i for i in message.attachments if opens_file(i)]
    return [*files, *(uri for _, uri in result_links(message.content) if opens_in_browser(uri))]


def nothing_to_open(message: Message) -> str:
    """Why `o` opens nothing on a tool message."""
    if result_links(message.content) or message.attachments:
        return f"Nothing in that result can be opened here ({NOT_OPENED}, and PNG, JPEG, " \
               "GIF and WebP images)."
    return "That result has no link and no image."
