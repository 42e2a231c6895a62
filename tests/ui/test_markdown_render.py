"""Our Markdown (markdown_render) is Rich's, made without a parser of its own per text: it
must hold what Rich's constructor sets, as Rich sets it, for Rich to draw it the same."""

from markdown_it.token import Token
from rich.markdown import Markdown

from tui_chat.ui.widgets.markdown_render import markdown_renderable

TEXT = ("# Title\n\nSome **bold**, ~~struck~~ and `code`.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
        "```python\nprint('x')\n```\n")


def test_it_holds_every_attribute_of_rich_markdown_as_rich_sets_it() -> None:
    ours = markdown_renderable(TEXT, "monokai")
    rich = Markdown(TEXT, code_theme="monokai", hyperlinks=False)
    mine = {key: value for key, value in vars(ours).items() if not key.startswith("_")}
    theirs = vars(rich)
    assert mine.keys() == theirs.keys()
    for key, value in theirs.items():
        if key == "parsed":  # tokens, with strikethrough and tables enabled as Rich does
            assert _flat(mine[key]) == _flat(value)
            assert {kind for kind, _ in _flat(value)} >= {"s_open", "table_open", "fence"}
        else:
            assert mine[key] == value, key


def _flat(tokens: list[Token]) -> list[tuple[str, str]]:
    return [pair for token in tokens
            for pair in [(token.type, token.content), *_flat(token.children or [])]]


def test_two_texts_drawn_in_turn_keep_their_own_tokens() -> None:
    first, second = markdown_renderable("one *a*", "monokai"), markdown_renderable(
        "two **b**", "monokai")
    assert "one" in first.parsed[1].content and "two" in second.parsed[1].content
