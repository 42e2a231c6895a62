"""How a reply was sent, in words a user can trust (issue 27): "end-to-end" when it was
encrypted to the model's instance (tui_chat.core.e2ee), "TEE" when the provider's model list
flags the model as running in a confidential-compute enclave (`confidential_compute: true`).
The TEE's attestation is not verified by tui-chat: the badge says only what the list says.
Kept apart from tui_chat.core.e2ee so that drawing a badge imports no HTTP stack."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from tui_chat.core.config import Settings

END_TO_END = "end-to-end"
TEE = "TEE"
BADGES = {END_TO_END: "🔒 end-to-end", TEE: "TEE"}


def sent_as(*, end_to_end: bool, tee: bool) -> str | None:
    """The stored form (`Message.sent_as`): "end-to-end", "TEE", "end-to-end TEE" or None."""
    words = [word for word, on in ((END_TO_END, end_to_end), (TEE, tee)) if on]
    return " ".join(words) or None


def with_end_to_end(value: str | None) -> str:
    """`value` (a stored form) with "end-to-end" added."""
    return sent_as(end_to_end=True, tee=TEE in (value or "").split()) or END_TO_END


def protection_badges(value: str | None) -> str:
    """What a header or status line shows for `Message.sent_as`: "" for neither."""
    if not value:
        return ""
    return " · ".join(BADGES[word] for word in value.split() if word in BADGES)


RESEARCH_HOSTS = ("research.chutes.ai",)
"""Chutes' research proxy records what passes through it for research (its documentation says
not to send it anything sensitive): any of these hosts, or a subdomain of one."""


def is_research_proxy(base_url: str) -> bool:
    """Whether `base_url` points at Chutes' research proxy (see RESEARCH_HOSTS)."""
    try:
        host = (urlsplit(base_url).hostname or "").lower()
    except ValueError:
        return False
    return any(host == known or host.endswith("." + known) for known in RESEARCH_HOSTS)


def research_warning(display_name: str, base_url: str) -> str:
    return (f"The base URL of {display_name}, {base_url}, is Chutes' research proxy: it "
            "records what passes through it for research, so do not send it anything private.")


def research_warnings(settings: Settings, env: Mapping[str, str] | None = None) -> list[str]:
    """The warning for each configured provider whose base URL is the research proxy (once a
    start: under e2ee "required" it is refused besides, tui_chat.core.e2ee)."""
    from tui_chat.core.errors import TuiChatError

    warnings = []
    for name in settings.provider_names():
        try:
            provider = settings.resolve_provider(name, env)
        except TuiChatError:
            continue
        if is_research_proxy(provider.base_url):
            warnings.append(research_warning(provider.display_name, provider.base_url))
    return warnings
