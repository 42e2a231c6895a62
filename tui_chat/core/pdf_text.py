"""The text of a PDF attachment, read with pypdf, or one sentence saying why it has none.

A PDF is known by its first bytes (`%PDF-`). Its text goes to the model as a text attachment
does (a fenced block named after the file), each page under a `[page N]` line, so that the
model can cite pages and the page count can be read back from the text (`pages_in`). Refused,
with one sentence: a PDF protected by a password (one that opens with an empty password, as
many "owner password" files do, is read), one with no text at all (scanned pages, images
only), and one that pypdf cannot read.

pypdf is imported on the first PDF: the app's start-up path does not pay for it.
"""

from __future__ import annotations

import io
import re

from tui_chat.core.text import one_line

PDF_MAGIC = b"%PDF-"
_PAGE_LINE = re.compile(r"^\[page \d+\]$", re.MULTILINE)


class PdfRefused(ValueError):
    """The PDF has no text that can be read; the message is the sentence to show."""


def is_pdf(data: bytes) -> bool:
    return data.startswith(PDF_MAGIC)


def pdf_text(data: bytes, name: str) -> tuple[str, int]:
    """(the text of each page under its `[page N]` line, the number of pages); PdfRefused
    when there is none to read."""
    from pypdf import PdfReader

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise PdfRefused(f"{name} is protected by a password, so its text cannot be read: "
                             "remove the password (or save it as text) and attach it again.")
        pages = [(page.extract_text() or "").strip() for page in reader.pages]
    except PdfRefused:
        raise
    except Exception as error:  # pypdf raises many kinds on a damaged file
        reason = one_line(str(error), 120) or type(error).__name__
        raise PdfRefused(f"{name} could not be read as a PDF ({reason}), so it cannot be "
                         "attached.") from None
    if not any(pages):
        count = f"its {len(pages)} pages are" if len(pages) != 1 else "its page is"
        raise PdfRefused(f"{name} has no text to read ({count} images only, as a scan's "
                         "are), so it cannot be attached: attach a text version, or the pages "
                         "as images.")
    text = "\n\n".join(f"[page {number}]\n{page}" for number, page in enumerate(pages, 1))
    return text, len(pages)


def pages_in(text: str) -> int:
    """The number of pages of a PDF attachment's text (as `pdf_text` wrote it)."""
    return len(_PAGE_LINE.findall(text))
