"""`tui-chat models`: the model ids of one provider, or of every provider, grouped.

When a provider's list cannot be read, what is known (the last list, or the built-in one) is
still printed, one sentence on stderr says why and what to do, and the exit code is that of
the failure (3 for a rejected key), so that a script can tell a stale list from a fresh one;
with several providers, that of the first one that failed.
"""

from __future__ import annotations

import argparse
import sys

from tui_chat.commands.advice import advice
from tui_chat.commands.context import Context
from tui_chat.core.errors import ExitCode, TuiChatError
from tui_chat.core.secrets import scrub
from tui_chat.core.text import sanitize

PROG = "tui-chat"


async def run_models(args: argparse.Namespace, context: Context) -> int:
    from tui_chat.core.model_catalog import ModelCatalog

    settings = context.settings()
    catalog = ModelCatalog(settings, env=context.env)
    names = [args.models_provider] if args.models_provider else settings.provider_names()
    grouped = len(names) > 1
    code = ExitCode.OK
    for index, name in enumerate(names):
        provider = settings.resolve_provider(name, context.env)
        models = await catalog.refresh(provider)
        failure = catalog.failures.get(provider.name)
        if models.note:
            print(f"{PROG}: {failure_sentence(models.note, failure)}", file=sys.stderr)
        if failure is not None and code is ExitCode.OK:
            code = failure.exit_code
        if grouped:
            heading = sanitize(f"# {provider.display_name} ({provider.name})")
            print(("\n" if index else "") + heading)
        for info in models.models:
            print(sanitize(info.id))
    return int(code)


def failure_sentence(note: str, failure: TuiChatError | None) -> str:
    """The catalog's note ("Could not list Chutes's models: …; showing the known ones.") with
    what to do about the failure: the command line's advice, or the message's own (after its
    ';': a certificate, a proxy)."""
    extra = advice(failure) if failure is not None else ""
    if failure is not None and not extra and ";" in failure.message:
        extra = failure.message.split(";", 1)[1].strip()
        extra = extra[:1].upper() + extra[1:]
    return sanitize(scrub(f"{note} {extra}".strip()))
