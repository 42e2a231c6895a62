"""Files attached to a message: read, checked, and put into the request.

A text file (UTF-8; no NUL byte) goes to the model inside the message, as a fenced block
named after the file, with a language from its extension. An image (PNG, JPEG, WebP or GIF,
known by its first bytes, not its name) goes as an OpenAI content part, `image_url` with a
`data:` URL, and only to a model that reads images (its provider's `input_modalities`, or
`images = true` under `[models."provider:model"]`): for any other model a new image is refused
before the request with a sentence naming the model, and an image of an earlier message is
replaced by a line saying it was not sent. A PDF (known by its first bytes) goes as a text
file does, its pages' text read with pypdf (`pdf_text`: one without text, or protected by a
password, is refused with a sentence). Any other file is refused with a sentence.

A symbolic link is followed only while it stays in the folder the user is in: one that leads
out of it is refused with a sentence saying where it leads (`link_outside`), so a folder's
harmless-looking `notes.txt` cannot send ~/.ssh/id_rsa under its own name.

Limits, checked when a file is attached and again before sending: MAX_TEXT_BYTES a text file
(and a PDF's text), MAX_IMAGE_BYTES an image, MAX_PDF_BYTES a PDF, MAX_MESSAGE_BYTES all of
one message's attachments.

`@path` in a prompt (`mentioned_paths`) attaches the file at `path` (relative to the current
folder; `~` is the home folder): an `@` at the start or after a space, and a path naming a file
that exists. A path naming a folder is named too, so that it is refused with a sentence rather
than sent as plain text. The prompt keeps its text as written.
"""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tui_chat.core.errors import UsageError
from tui_chat.core.files import FileTooLargeError, NotAFileError, read_bounded
from tui_chat.core.models import Attachment, AttachmentInfo
from tui_chat.core.pdf_text import PdfRefused, is_pdf, pdf_text
from tui_chat.core.text import one_line
from tui_chat.core.tokens import estimate_tokens

MAX_TEXT_BYTES = 1024 * 1024
MAX_IMAGE_BYTES = 5 * 1024 * 1024
MAX_MESSAGE_BYTES = 10 * 1024 * 1024
MAX_PDF_BYTES = MAX_MESSAGE_BYTES
"""A PDF file; its text (`pdf_text`) may be at most MAX_TEXT_BYTES, as a text file."""
PDF_MIME = "application/pdf"
IMAGE_TOKENS = 1024
"""What an image is estimated at in the context (providers count a few hundred to a couple of
thousand tokens, by its size)."""

_IMAGE_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)
LANGUAGES = {
    "py": "python", "pyi": "python", "js": "javascript", "mjs": "javascript", "jsx": "jsx",
    "ts": "typescript", "tsx": "tsx", "rs": "rust", "go": "go", "c": "c", "h": "c",
    "cc": "cpp", "cpp": "cpp", "hpp": "cpp", "cs": "csharp", "java": "java", "kt": "kotlin",
    "swift": "swift", "rb": "ruby", "php": "php", "pl": "perl", "lua": "lua", "r": "r",
    "sh": "bash", "bash": "bash", "zsh": "zsh", "fish": "fish", "ps1": "powershell",
    "html": "html", "htm": "html", "css": "css", "scss": "scss", "xml": "xml", "svg": "xml",
    "json": "json", "jsonl": "json", "toml": "toml", "yaml": "yaml", "yml": "yaml",
    "ini": "ini", "cfg": "ini", "sql": "sql", "md": "markdown", "rst": "rst", "tex": "latex",
    "csv": "csv", "diff": "diff", "patch": "diff", "dockerfile": "dockerfile",
    "makefile": "makefile", "txt": "text",
}
_MENTION = re.compile(r"(?:^|(?<=\s))@(\S+)")


class AttachmentError(UsageError):
    """A file that cannot be attached, or an attachment the model cannot take."""


def size_text(size: int) -> str:
    """"512 B", "2.3 KB", "1.4 MB"."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def sizes_apart(size: int, limit: int) -> tuple[str, str]:
    """`size` and `limit` as text that tells them apart: "1.3 MB" and "1.0 MB"; in bytes when
    rounding would show the same figure ("1,048,577 bytes" and "1,048,576 bytes")."""
    if size_text(size) != size_text(limit):
        return size_text(size), size_text(limit)
    return f"{size:,} bytes", f"{limit:,} bytes"


def image_mime(data: bytes) -> str | None:
    """The image type of `data` from its first bytes (PNG, JPEG, GIF, WebP), else None."""
    for magic, mime in _IMAGE_MAGIC:
        if data.startswith(magic):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def language_for(name: str) -> str:
    """The fence's language for a file name ("" when unknown)."""
    base = name.rsplit("/", 1)[-1].lower()
    if base in LANGUAGES:  # Makefile, Dockerfile
        return LANGUAGES[base]
    return LANGUAGES.get(base.rsplit(".", 1)[-1], "") if "." in base else ""


def read_attachment(path: Path, name: str | None = None, folder: Path | None = None
                    ) -> Attachment:
    """The file at `path` as an attachment called `name` (default: the path as given);
    AttachmentError with one sentence when it cannot be one. `folder` (default: the current
    one) is the folder the user is in: a link that leads out of it is refused (`link_outside`)."""
    shown = one_line(name or str(path), 120)
    target = path.expanduser()
    try:
        leads_to = link_outside(target, Path.cwd() if folder is None else folder)
        if leads_to is not None:
            where = one_line(str(leads_to), 120)
            raise AttachmentError(f"{shown} is a link that leads out of its folder, to {where}; "
                                  "attach that path itself if you mean to send it.")
        if target.is_dir():
            raise AttachmentError(f"{shown} is a folder; attach the files in it one by one.")
        data = read_bounded(target, max(MAX_IMAGE_BYTES, MAX_TEXT_BYTES, MAX_PDF_BYTES))
    except FileTooLargeError as error:
        raise AttachmentError(f"{shown} is {size_text(error.size)}, larger than an attachment "
                              f"may be ({size_text(MAX_PDF_BYTES)} for a PDF, "
                              f"{size_text(MAX_IMAGE_BYTES)} for an image, "
                              f"{size_text(MAX_TEXT_BYTES)} for text).") from None
    except NotAFileError as error:
        raise AttachmentError(f"Cannot attach {shown}: {error.strerror}; attach a regular "
                              "file.") from None
    except FileNotFoundError:
        raise AttachmentError(f"There is no file {shown}.") from None
    except OSError as error:
        raise AttachmentError(f"Cannot read {shown}: {error.strerror or 'unreadable'}.") from None
    return attachment_from(data, shown)


def link_outside(path: Path, folder: Path) -> Path | None:
    """Where `path` really leads, when a symbolic link on the way takes it out of the folder
    it is named in (`folder`, the folder the user is in, for a path inside it; else the path's
    own folder); None when it stays (or is no link). A repository's `notes.txt` that points
    into ~/.ssh is not sent under its own name: the user names the real file or nothing goes.
    """
    named = Path(os.path.abspath(folder / path))  # as written: `..` undone, links kept
    real = named.resolve()
    if real == named:
        return None
    inside = named.is_relative_to(os.path.abspath(folder))
    base = (folder if inside else named.parent).resolve()
    return None if real.is_relative_to(base) else real


def attachment_from(data: bytes, name: str) -> Attachment:
    """`data` as an attachment called `name` (see `read_attachment`)."""
    mime = image_mime(data)
    if mime is not None:
        if len(data) > MAX_IMAGE_BYTES:
            size, limit = sizes_apart(len(data), MAX_IMAGE_BYTES)
            raise AttachmentError(f"The image {name} is {size}, larger than the {limit} an "
                                  "image may be.")
        return Attachment(name=name, kind="image", mime=mime, size=len(data),
                          tokens=IMAGE_TOKENS, data=data)
    if is_pdf(data):
        return pdf_attachment(data, name)
    if len(data) > MAX_TEXT_BYTES:
        size, limit = sizes_apart(len(data), MAX_TEXT_BYTES)
        raise AttachmentError(f"{name} is {size}, larger than the {limit} a text attachment "
                              "may be.")
    text = _text_of(data)
    if text is None:
        raise AttachmentError(f"{name} is neither text, a PDF nor an image (PNG, JPEG, WebP, "
                              "GIF), so it cannot be attached.")
    language = language_for(name)
    attachment = Attachment(name=name, kind="text", mime="text/plain", size=len(data),
                            language=language, text=text)
    attachment.tokens = estimate_tokens(fenced(attachment))
    return attachment


def pdf_attachment(data: bytes, name: str) -> Attachment:
    """A PDF as a text attachment: its pages' text (`pdf_text`), or one sentence saying why
    it has none."""
    if len(data) > MAX_PDF_BYTES:
        size, limit = sizes_apart(len(data), MAX_PDF_BYTES)
        raise AttachmentError(f"{name} is {size}, larger than the {limit} a PDF may be.")
    try:
        text, _ = pdf_text(data, name)
    except PdfRefused as refused:
        raise AttachmentError(str(refused)) from None
    if len(text.encode()) > MAX_TEXT_BYTES:
        size, limit = sizes_apart(len(text.encode()), MAX_TEXT_BYTES)
        raise AttachmentError(f"The text of {name} is {size}, larger than the {limit} a text "
                              "attachment may be.")
    attachment = Attachment(name=name, kind="text", mime=PDF_MIME, size=len(data), text=text)
    attachment.tokens = estimate_tokens(fenced(attachment))
    return attachment


def _text_of(data: bytes) -> str | None:
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


def fenced(attachment: Attachment) -> str:
    """A text attachment as the model gets it: its name, then a fenced block longer than any
    run of backticks inside it."""
    text = attachment.text or ""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    ending = "" if text.endswith("\n") else "\n"
    return f"{attachment.name}\n{fence}{attachment.language}\n{text}{ending}{fence}"


def check_total(attachments: Sequence[AttachmentInfo]) -> None:
    total = sum(a.size for a in attachments)
    if total > MAX_MESSAGE_BYTES:
        raise AttachmentError(f"The attachments come to {size_text(total)}, more than the "
                              f"{size_text(MAX_MESSAGE_BYTES)} one message may carry; remove "
                              "some.")


def check_images(attachments: Sequence[AttachmentInfo], model: str, takes_images: bool,
                 provider: str) -> None:
    """Refuse images for a model that does not read them (before any request)."""
    images = [a.name for a in attachments if a.kind == "image"]
    if images and not takes_images:
        named = ", ".join(images[:3]) + ("…" if len(images) > 3 else "")
        raise AttachmentError(
            f"{one_line(model, 80)} does not read images, so {named} cannot be sent to it: "
            "remove the image, or pick a model that reads images (F2, or -m); if this one "
            f"does, set images = true under [models.\"{provider}:{one_line(model, 80)}\"] in "
            "config.toml.")


def wire_content(text: str, attachments: Sequence[Attachment], *,
                 takes_images: bool) -> str | list[dict[str, Any]]:
    """A user message's content as sent: its text with each text attachment's block after it;
    with images (to a model that reads them), a list of content parts instead."""
    blocks = [text]
    images: list[dict[str, Any]] = []
    for attachment in attachments:
        if attachment.kind == "text":
            blocks.append(fenced(attachment))
        elif takes_images and attachment.data is not None:
            encoded = base64.b64encode(attachment.data).decode("ascii")
            images.append({"type": "image_url",
                           "image_url": {"url": f"data:{attachment.mime};base64,{encoded}"}})
        else:
            blocks.append(f"[The image {attachment.name} was attached here; this model does "
                          "not read images, so it was not sent.]")
    joined = "\n\n".join(block for block in blocks if block)
    if not images:
        return joined
    return [{"type": "text", "text": joined}, *images]


def mentioned_paths(prompt: str, cwd: Path) -> list[tuple[str, Path]]:
    """(as written, the path) for each `@path` of `prompt` that names a file or a folder (which
    `read_attachment` refuses, with a sentence), in order, once each."""
    found: list[tuple[str, Path]] = []
    for match in _MENTION.finditer(prompt):
        written = match.group(1).rstrip(".,;:!?)")
        path = Path(written).expanduser()
        if not path.is_absolute():
            path = cwd / path
        try:
            exists = path.is_file() or path.is_dir()
        except OSError:
            continue
        if exists and written not in [w for w, _ in found]:
            found.append((written, path))
    return found


def complete_path(written: str, cwd: Path, limit: int = 5000) -> str | None:
    """`written` completed as far as the files in its folder agree (a folder gets its "/"),
    else None: what Tab does in a shell. Hidden files only when asked for with a ".";
    `~` is the home folder."""
    if written == "~":
        return "~/"
    folder_part, slash, stem = written.rpartition("/")
    shown = folder_part + slash
    folder = Path(shown).expanduser() if slash else Path(".")  # "/x": the root's "x"
    if not folder.is_absolute():
        folder = cwd / folder
    try:
        names = sorted(entry.name + ("/" if entry.is_dir() else "")
                       for _, entry in zip(range(limit), folder.iterdir(), strict=False))
    except OSError:
        return None
    matches = [name for name in names if name.startswith(stem)
               and (stem.startswith(".") or not name.startswith("."))]
    if not matches:
        return None
    common = matches[0]
    for name in matches[1:]:
        while not name.startswith(common):
            common = common[:-1]
    return shown + common if len(common) > len(stem) or len(matches) == 1 else None
