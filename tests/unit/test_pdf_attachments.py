"""PDF attachments: the text of each page, read with pypdf, goes as a text file's does; the
page count and tokens are shown; a PDF protected by a password, one with no text (images
only) and a damaged one are refused with one sentence, in the app's path and in `ask -a`.
The PDFs are made here, with pypdf."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

from tests.cli.test_ask import chutes_env, run
from tests.fakeprovider import FakeProvider, Reply, stream_of
from tui_chat.core.attachments import PDF_MIME, AttachmentError, read_attachment, wire_content
from tui_chat.ui.widgets.attachment_lines import attachment_line


def make_pdf(pages: list[str], password: str | None = None) -> bytes:
    """A PDF of one page per item: its text drawn in Helvetica ("": a page with no text)."""
    writer = PdfWriter()
    font = DictionaryObject({NameObject("/Type"): NameObject("/Font"),
                             NameObject("/Subtype"): NameObject("/Type1"),
                             NameObject("/BaseFont"): NameObject("/Helvetica")})
    for text in pages:
        page = writer.add_blank_page(612, 792)
        if text:
            stream = DecodedStreamObject()
            stream.set_data(f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode())
            # pypdf has no public call that draws text: the page's objects are added directly.
            page[NameObject("/Contents")] = writer._add_object(stream)
            page[NameObject("/Resources")] = DictionaryObject({NameObject("/Font"): (
                DictionaryObject({NameObject("/F1"): writer._add_object(font)}))})
    if password is not None:
        writer.encrypt(password)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_a_pdf_goes_as_the_text_of_its_pages(tmp_path: Path) -> None:
    path = tmp_path / "report.pdf"
    path.write_bytes(make_pdf(["Hello page one", "Second page here"]))
    attachment = read_attachment(path, "report.pdf")
    assert (attachment.kind, attachment.mime) == ("text", PDF_MIME)
    assert attachment.text == "[page 1]\nHello page one\n\n[page 2]\nSecond page here"
    assert attachment.tokens > 0
    line = attachment_line(attachment)
    assert "report.pdf" in line and "PDF, 2 pages" in line and "tokens" in line
    assert attachment_line(attachment.info()).endswith(f"· PDF · ~{attachment.tokens:,} tokens")
    sent = wire_content("Summarise", [attachment], takes_images=False)
    assert isinstance(sent, str) and "report.pdf\n```\n[page 1]\nHello page one" in sent


@pytest.mark.parametrize(("pdf", "said"), [
    (make_pdf(["secret"], password="pw"), "locked.pdf is protected by a password"),
    (make_pdf(["", ""]), "locked.pdf has no text to read (its 2 pages are images only"),
    (b"%PDF-1.7\nnot really a pdf", "locked.pdf could not be read as a PDF"),
], ids=["password", "images-only", "not-a-pdf"])  # the bytes differ per run: xdist needs ids
def test_a_pdf_without_readable_text_is_one_sentence(tmp_path: Path, pdf: bytes,
                                                     said: str) -> None:
    path = tmp_path / "locked.pdf"
    path.write_bytes(pdf)
    with pytest.raises(AttachmentError) as caught:
        read_attachment(path, "locked.pdf")
    message = caught.value.message
    assert message.startswith(said) and message.endswith(".") and "\n" not in message


def test_a_pdf_with_an_empty_user_password_is_read(tmp_path: Path) -> None:
    path = tmp_path / "owner-only.pdf"
    path.write_bytes(make_pdf(["Readable anyway"], password=""))
    assert "Readable anyway" in (read_attachment(path).text or "")


def test_ask_attaches_a_pdf(chutes_server: FakeProvider, tmp_path: Path) -> None:
    (tmp_path / "report.pdf").write_bytes(make_pdf(["Quarterly figures"]))
    (tmp_path / "scan.pdf").write_bytes(make_pdf([""]))
    chutes_server.script(Reply(stream_of(["ok"])))
    result = run("ask", "--no-save", "-a", str(tmp_path / "report.pdf"), "Summarise",
                 env=chutes_env(chutes_server))
    assert result.returncode == 0 and result.stdout == "ok"
    content = chutes_server.requests[-1].body["messages"][-1]["content"]
    assert "[page 1]\nQuarterly figures" in content
    refused = run("ask", "--no-save", "-a", str(tmp_path / "scan.pdf"), "Summarise",
                  env=chutes_env(chutes_server))
    assert refused.returncode != 0 and "has no text to read" in refused.stderr
    assert len(chutes_server.requests) == 1  # nothing sent for the scan
