"""Tool names for the model, OpenAI's `tools`, results as text, and the approval rules."""

from __future__ import annotations

import base64
import json

from tui_chat.core.mcp.approval import Answer, Grants, needs_asking
from tui_chat.core.mcp.results import ERROR_HEAD, read_result, result_links, result_text
from tui_chat.core.mcp.tools import NAME_PATTERN, ToolSpec, openai_tools, qualified_names


def test_names_are_qualified_and_fit_the_pattern() -> None:
    names = qualified_names([("time", "get_current_time"), ("my server", "tool.with/odd:chars"),
                             ("s", "x" * 100), ("é", "日本")])
    assert names[0] == "time__get_current_time"
    assert names[1] == "my_server__tool_with_odd_chars"
    assert all(NAME_PATTERN.match(name) for name in names), names


def test_a_clash_is_resolved_not_dropped() -> None:
    pairs = [("a-b", "c"), ("a_b", "c"), ("a.b", "c"), ("s", "y" * 80), ("s", "y" * 81)]
    names = qualified_names(pairs)
    assert len(set(names)) == len(pairs)
    assert names[:3] == ["a-b__c", "a_b__c", "a_b__c_2"]
    assert all(NAME_PATTERN.match(name) for name in names), names


def test_openai_tools_carry_name_description_and_schema() -> None:
    spec = ToolSpec("time", "now", "time__now", "The time.",
                    {"properties": {"tz": {"type": "string"}}})
    bare = ToolSpec("s", "t", "s__t")
    assert openai_tools([spec, bare]) == [
        {"type": "function", "function": {
            "name": "time__now", "description": "The time.",
            "parameters": {"type": "object", "properties": {"tz": {"type": "string"}}}}},
        {"type": "function", "function": {
            "name": "s__t", "description": "",
            "parameters": {"type": "object", "properties": {}}}}]


def test_results_become_text() -> None:
    content = [{"type": "text", "text": "hello"},
               {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
               {"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt"},
               {"type": "resource", "resource": {"uri": "mem://x", "text": "inside"}},
               {"type": "resource", "resource": {"uri": "mem://b", "blob": "AAAA",
                                                 "mimeType": "application/zip"}}]
    assert result_text(content).split("\n") == [
        "hello", "[image: image/png, 8 bytes: image-1.png]", "[link: a.txt <file:///a.txt>]",
        "inside",
        "[resource: mem://b, application/zip, 3 bytes]"]


def test_images_are_kept_as_files_within_the_limit_and_links_are_found() -> None:
    png = base64.b64encode(b"\x89PNG" + b"x" * 996).decode()  # 1,000 bytes
    jpeg = base64.b64encode(b"y" * 2000).decode()
    content = [{"type": "image", "data": png, "mimeType": "image/png"},
               {"type": "image", "data": jpeg, "mimeType": "image/jpeg"},
               {"type": "image", "data": "not base64!", "mimeType": "image/gif"},
               {"type": "resource_link", "uri": "https://example.com/a", "name": "A"},
               {"type": "resource_link", "uri": "file:///etc/passwd", "name": "p"}]
    text = result_text(content, limit=1500)
    assert text.split("\n")[:3] == [
        "[image: image/png, 1,000 bytes: image-1.png]",
        "[image: image/jpeg, 2,000 bytes: too large to keep (over 1,500 bytes)]",
        "[image: image/gif, not base64: not kept]"]
    files = read_result(content, limit=1500).files
    assert [(f.name, f.kind, f.mime, f.size) for f in files] == [
        ("image-1.png", "image", "image/png", 1000)]
    assert files[0].data is not None and files[0].data.startswith(b"\x89PNG")
    too_big = result_text(content[:1], limit=999)
    assert too_big == "[image: image/png, 1,000 bytes: too large to keep (over 999 bytes)]"
    assert read_result(content[:1], limit=999).files == []
    assert result_links(text) == [("A", "https://example.com/a"), ("p", "file:///etc/passwd")]


def test_structured_content_is_pretty_json_in_place_of_its_text() -> None:
    data = {"b": [1, 2], "a": "ü"}
    pretty = json.dumps(data, indent=2, ensure_ascii=False)
    assert result_text([{"type": "text", "text": json.dumps(data)}], data) == pretty
    assert result_text([], data) == pretty
    assert result_text([{"type": "text", "text": "in words"}], data) == "in words"


def test_an_error_says_so_and_a_long_result_is_cut_visibly() -> None:
    assert result_text([{"type": "text", "text": "boom"}], is_error=True) == f"{ERROR_HEAD}\nboom"
    text = result_text([{"type": "text", "text": "x" * 5000}], limit=1000)
    assert text.startswith("x" * 1000 + "\n[… cut by tui-chat: the result was 5,000 characters")
    assert len(text) < 1100


def test_approval_follows_the_policy_and_the_grants() -> None:
    reader = ToolSpec("s", "read", "s__read", read_only=True)
    writer = ToolSpec("s", "write", "s__write")
    other = ToolSpec("t", "write", "t__write")
    grants = Grants()
    assert needs_asking(reader, "ask", grants) and needs_asking(writer, "ask", grants)
    assert not needs_asking(reader, "read-only", grants)
    assert needs_asking(writer, "read-only", grants)
    assert not needs_asking(writer, "always", grants)
    grants.record(writer, Answer.DENY)
    grants.record(writer, Answer.ONCE)
    assert needs_asking(writer, "ask", grants)
    grants.record(writer, Answer.ALWAYS_TOOL)
    assert not needs_asking(writer, "ask", grants)
    assert needs_asking(ToolSpec("s", "other", "s__other"), "ask", grants)
    grants.record(other, Answer.ALWAYS_SERVER)
    assert not needs_asking(ToolSpec("t", "any", "t__any"), "ask", grants)
