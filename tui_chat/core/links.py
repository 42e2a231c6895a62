"""Which links tui-chat hands to the user's browser: http and https ones with a host, wherever
the link comes from (a reply, a tool's result, a tool server's page to open), and only after
the user says yes. Any other scheme (`file:`, `javascript:`, a desktop program's own scheme
such as `vscode:` or `ms-settings:`) would hand text a model or a server chose to a program
on the user's machine other than the browser."""

from __future__ import annotations

from urllib.parse import urlsplit

OPENED_SCHEMES = ("http", "https")
NOT_OPENED = "tui-chat opens only http and https links"
"""Why a link is not opened: a clause."""


def _parts(url: str) -> tuple[str, str]:
    """(scheme, host) of `url`, lower case; ("", "") when it cannot be read."""
    try:
        parts = urlsplit(url.strip())
        return parts.scheme.lower(), (parts.hostname or "").lower()
    except ValueError:
        return "", ""


def host_of(url: str) -> str:
    """The host `url` would open ("" when it has none, or cannot be read)."""
    return _parts(url)[1]


def opens_in_browser(url: str) -> bool:
    """Is `url` a link tui-chat offers to open (http or https, with a host)?"""
    scheme, host = _parts(url)
    return scheme in OPENED_SCHEMES and bool(host)
