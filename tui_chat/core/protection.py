"""How a reply was sent, in words a user can trust (issue 27): "end-to-end" when it was
encrypted to the model's instance (tui_chat.core.e2ee), "TEE" when the provider's model list
flags the model as running in a confidential-compute enclave (`confidential_compute: true`).
The TEE's attestation is not verified by tui-chat: the badge says only what the list says.
Kept apart from tui_chat.core.e2ee so that drawing a badge imports no HTTP stack."""

from __future__ import annotations

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
