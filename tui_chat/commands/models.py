"""`tui-chat models`: the model ids of one provider, or of every provider, grouped."""

from __future__ import annotations

import argparse
import sys

from tui_chat.commands.context import Context
from tui_chat.core.errors import ExitCode
from tui_chat.core.text import sanitize

PROG = "tui-chat"


async def run_models(args: argparse.Namespace, context: Context) -> int:
    from tui_chat.core.model_catalog import ModelCatalog

    settings = context.settings()
    catalog = ModelCatalog(settings, env=context.env)
    names = [args.models_provider] if args.models_provider else settings.provider_names()
    grouped = len(names) > 1
    for index, name in enumerate(names):
        provider = settings.resolve_provider(name, context.env)
        models = await catalog.refresh(provider)
        if models.note:
            print(f"{PROG}: {sanitize(models.note)}", file=sys.stderr)
        if grouped:
            print(("\n" if index else "") + f"# {provider.display_name} ({provider.name})")
        for info in models.models:
            print(sanitize(info.id))
    return int(ExitCode.OK)
