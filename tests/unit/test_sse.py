"""The SSE parser against the WHATWG rules, one rule a test."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tui_chat.core.sse import SSEEvent, SSEParser, StrayLine


def parse(*reads: bytes) -> list[SSEEvent | StrayLine]:
    parser = SSEParser()
    out: list[SSEEvent | StrayLine] = []
    for read in reads:
        out += parser.feed(read)
    return out + parser.close()


def datas(items: list[SSEEvent | StrayLine]) -> list[str]:
    return [item.data for item in items if isinstance(item, SSEEvent)]


def test_data_lines_become_events() -> None:
    assert datas(parse(b"data: one\n\ndata: two\n\n")) == ["one", "two"]


def test_one_leading_space_is_removed_and_only_one() -> None:
    assert datas(parse(b"data:x\n\ndata:  y\n\n")) == ["x", " y"]


def test_multi_line_data_joins_with_newline() -> None:
    assert datas(parse(b"data: a\ndata: b\ndata:\n\n")) == ["a\nb\n"]


def test_comments_are_ignored() -> None:
    assert parse(b": keep-alive\n\n: another\ndata: x\n\n") == [SSEEvent("x")]


def test_event_and_id_fields_are_carried() -> None:
    items = parse(b"event: update\nid: 7\ndata: x\n\ndata: y\n\n")
    assert items == [SSEEvent("x", "update", "7"), SSEEvent("y", "message", "7")]


def test_id_with_nul_is_ignored() -> None:
    parser = SSEParser()
    parser.feed(b"id: a\x00b\ndata: x\n\n")
    assert parser.last_event_id == ""


def test_retry_field_only_takes_digits() -> None:
    parser = SSEParser()
    parser.feed(b"retry: 2500\n\nretry: soon\n\n")
    assert parser.retry_ms == 2500


def test_empty_data_is_an_event_but_no_data_is_not() -> None:
    assert datas(parse(b"data:\n\n")) == [""]
    assert datas(parse(b"event: ping\n\n")) == []


def test_cr_lf_and_crlf_line_ends() -> None:
    assert datas(parse(b"data: a\r\rdata: b\r\n\r\ndata: c\n\n")) == ["a", "b", "c"]


def test_crlf_split_between_reads_is_one_line_end() -> None:
    assert datas(parse(b"data: a\r", b"\ndata: b\r", b"\n\r\n")) == ["a\nb"]


def test_leading_bom_is_dropped_once() -> None:
    items = parse(b"\xef\xbb\xbfdata: x\n\n")
    assert datas(items) == ["x"]
    assert datas(parse(b"\xef\xbb", b"\xbfdata: y\n\n")) == ["y"]


def test_utf8_split_mid_character() -> None:
    raw = "data: नमस्ते 👋\n\n".encode()
    assert datas(parse(*[raw[i:i + 1] for i in range(len(raw))])) == ["नमस्ते 👋"]


def test_unterminated_last_event_is_discarded() -> None:
    assert datas(parse(b"data: a\n\ndata: b")) == ["a"]


def test_bare_json_line_is_reported_as_stray() -> None:
    items = parse(b'data: a\n\n{"detail": "boom"}\n')
    assert items == [SSEEvent("a"), StrayLine('{"detail": "boom"}')]


def test_bare_json_without_final_newline_is_reported() -> None:
    assert parse(b'data: a\n\n{"error": "x"}')[-1] == StrayLine('{"error": "x"}')


def test_invalid_utf8_is_replaced_not_fatal() -> None:
    assert datas(parse(b"data: a\xffb\n\n")) == ["a\ufffdb"]


events_text = st.lists(st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=30),
                       min_size=1, max_size=12)


@given(payloads=events_text, cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=20),
       newline=st.sampled_from(["\n", "\r\n", "\r"]))
def test_any_split_of_a_stream_gives_the_same_events(
    payloads: list[str], cuts: list[int], newline: str
) -> None:
    raw = "".join(f"data: {p}{newline}{newline}" for p in payloads).encode()
    points = sorted({c % (len(raw) + 1) for c in cuts})
    pieces = [raw[a:b] for a, b in zip([0, *points], [*points, len(raw)], strict=True)]
    assert datas(parse(*pieces)) == payloads


def test_event_type_carries_into_a_following_single_event_read() -> None:
    parser = SSEParser()
    items = parser.feed(b"data: first\n\n") + parser.feed(b"event: custom\n")
    items += parser.feed(b"data: second\n\n")
    assert items == [SSEEvent("first"), SSEEvent("second", "custom")]
