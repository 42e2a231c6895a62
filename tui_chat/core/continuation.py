"""Continue any reply where it ends, as a new branch (issue 25, "continue a reply").

The request is the path up to the reply's prompt, then the reply's text as a final assistant
message, with `CONTINUE_FINAL`: vLLM and SGLang servers then render the chat template without
closing that message (`continue_final_message: true`) and without opening a new assistant
turn (`add_generation_prompt: false`), so the model's next tokens extend the text. The new
reply is stored as a sibling of the original (which stays), starting with its text.

Only where the provider says it can (`ProviderSpec.continue_final_message`, settable under
`[providers.NAME]` in config.toml): an OpenAI-compatible server that ignores the two keys
would answer the text as if it were a finished turn, a new reply after it, which is not a
continuation. Chutes: its API description (the chat completions OpenAPI/AsyncAPI pages) does
not list either key; its vLLM template hands the request to vLLM's own OpenAI chat server
(passthrough cords, chutesai/chutes `chute/template/vllm.py`), which takes both, and SGLang's
OpenAI server takes them too, so the built-in Chutes entry declares it. Not verified against
the live service; a chute on an engine that ignores them answers as if the reply were
complete (set `continue_final_message = false` under [providers.chutes] to turn it off).
SUTRA does not document them: off.
"""

from __future__ import annotations

from typing import Any

from tui_chat.core.errors import UsageError
from tui_chat.core.providers import ProviderSpec

CONTINUE_FINAL: dict[str, Any] = {"continue_final_message": True,
                                  "add_generation_prompt": False}
"""The request keys that make a vLLM or SGLang server continue the final assistant message."""


def check_can_continue(spec: ProviderSpec) -> None:
    """UsageError, with the one sentence the front-ends show, when `spec`'s provider cannot
    continue a final assistant message."""
    if not spec.continue_final_message:
        raise UsageError(
            f"{spec.display_name} cannot continue a reply where it ends (it takes no "
            "`continue_final_message`): regenerate it instead, or, for a vLLM or SGLang "
            f"server, set `continue_final_message = true` under [providers.{spec.name}] in "
            "config.toml.")
