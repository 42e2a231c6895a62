"""How an attachment reads in one line: listed above the prompt (`attachment_list`) and,
folded, in a sent message (`message_view`). Apart from the list's widget, which is imported
with the first attachment: a sent message is drawn without it."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from tui_chat.core.attachments import PDF_MIME, size_text
from tui_chat.core.models import Attachment, AttachmentInfo
from tui_chat.core.pdf_text import pages_in
from tui_chat.core.text import one_line


def attachment_line(info: AttachmentInfo) -> str:
    """"📎 src/main.py · 2.3 KB · ~600 tokens" (an image: "· image"; a PDF: "· PDF, 12 pages",
    the pages where its text is at hand)."""
    kind = " · image" if info.kind == "image" else ""
    if info.mime == PDF_MIME:
        text = info.text if isinstance(info, Attachment) else None
        pages = pages_in(text) if text else 0
        kind = f" · PDF, {pages} page{'' if pages == 1 else 's'}" if pages else " · PDF"
    return f"📎 {one_line(info.name, 80)} · {size_text(info.size)}{kind} · ~{info.tokens:,} tokens"


def folded_attachments(infos: Sequence[AttachmentInfo]) -> list[Text]:
    """A sent message's attachments, one folded line each (their content is not shown)."""
    return [Text(f"▶ {attachment_line(info)}", style="dim") for info in infos]
