"""Which links tui-chat offers to open (core/links.py): one rule for replies, tool results
and a tool server's page to open."""

from __future__ import annotations

import pytest

from tui_chat.core.links import opens_in_browser


@pytest.mark.parametrize("url", ["https://a.example/x", "HTTP://A.example", " http://[::1]:8/ "])
def test_http_and_https_with_a_host_open(url: str) -> None:
    assert opens_in_browser(url)


@pytest.mark.parametrize("url", ["file:///etc/passwd", "javascript:alert(1)", "vscode://x/y",
                                 "ms-settings:", "https:///no-host", "http://[::1", "#top",
                                 "./notes.md", "mailto:a@b.example", ""])
def test_anything_else_does_not(url: str) -> None:
    assert not opens_in_browser(url)
