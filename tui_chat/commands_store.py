"""The store's commands: history, show, search, export, import, rm, rename, usage.

Text that came from models, providers or imported files is sanitized before it reaches a
terminal. Markdown (`show`, `export --format markdown`) is always sanitized, since it is meant
to be read; a JSON export written to a pipe or a file holds the text exactly as stored.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from tui_chat.core.context import short_tokens
from tui_chat.core.costs import cost_text
from tui_chat.core.errors import ExitCode, UsageError
from tui_chat.core.export_files import write_export
from tui_chat.core.models import SearchHit
from tui_chat.core.store import Store
from tui_chat.core.store_usage import Spent
from tui_chat.core.text import cleaner_for, one_line

PROG = "tui-chat"
SHORT_ID = 8
BOLD, RESET = "\x1b[1m", "\x1b[0m"
STORE_COMMANDS = ("history", "show", "search", "export", "import", "rm", "rename", "usage")


def add_store_commands(commands: Any) -> None:
    """Add the store's subcommands to an argparse subparsers object."""
    history = commands.add_parser("history", help="list saved conversations, newest first",
                                  description="List saved conversations, newest first: id, "
                                  "last update, model, tokens and cost, title.")
    history.add_argument("-n", "--limit", type=int, default=20,
                         help="how many to list (default 20)")
    show = commands.add_parser("show", help="print one conversation",
                               description="Print a conversation's active path (the branch "
                               "shown in the app) as Markdown, or with --tree every branch as "
                               "an outline.")
    show.add_argument("id", help="conversation id, or a unique prefix of it")
    show.add_argument("--tree", action="store_true",
                      help="every branch as an outline: id, role, model, first line; "
                      "* marks the active path")
    search = commands.add_parser("search", help="search every saved message",
                                 description="Full-text search of every saved message, in any "
                                 "script; every word must match, newest first.")
    search.add_argument("query", nargs="+", help="words to find (parts of words match too)")
    search.add_argument("-n", "--limit", type=int, default=20,
                        help="how many results (default 20)")
    exp = commands.add_parser("export", help="export conversations as Markdown or JSON",
                              description="Export one conversation, or all, to stdout or a file.")
    which = exp.add_mutually_exclusive_group(required=True)
    which.add_argument("id", nargs="?", help="conversation id, or a unique prefix of it")
    which.add_argument("--all", action="store_true", help="every conversation")
    exp.add_argument("--format", choices=["markdown", "json"],
                     help="default: json if FILE ends in .json, else markdown")
    exp.add_argument("-o", "--output", type=Path, metavar="FILE", help="write to FILE")
    exp.add_argument("--force", action="store_true", help="overwrite FILE if it exists")
    exp.add_argument("--all-branches", action="store_true",
                     help="Markdown: every branch after the active path (JSON always holds "
                     "every branch)")
    imp = commands.add_parser("import", help="import a JSON export",
                              description="Import conversations from a JSON export; "
                              "conversations and messages already present are skipped.")
    imp.add_argument("file", type=Path)
    rm = commands.add_parser("rm", help="delete a conversation",
                             description="Delete a conversation and its messages.")
    rm.add_argument("id", help="conversation id, or a unique prefix of it")
    rm.add_argument("-y", "--yes", action="store_true", help="do not ask for confirmation")
    rename = commands.add_parser("rename", help="rename a conversation")
    rename.add_argument("id", help="conversation id, or a unique prefix of it")
    rename.add_argument("title", nargs="+", help="the new title")
    usage = commands.add_parser("usage", help="tokens and cost per day and model",
                                description="Tokens and cost of the replies of the last days, "
                                "per day and per provider and model, newest first.")
    usage.add_argument("--days", type=int, default=30,
                       help="how many days back, today included (default 30)")


def run_store_command(args: argparse.Namespace, store: Store, *, stdout: TextIO | None = None,
                      stderr: TextIO | None = None, stdin: TextIO | None = None) -> int:
    """Run a store command on `store`, opened by the composition root (tui_chat.cli)."""
    out, err = stdout or sys.stdout, stderr or sys.stderr
    handlers: dict[str, Callable[..., int]] = {
        "history": _history, "show": _show, "search": _search, "export": _export,
        "import": _import, "rm": _rm, "rename": _rename, "usage": _usage,
    }
    if store.notice:
        print(f"{PROG}: {store.notice}", file=err)
    return handlers[args.command](store, args, out, err, stdin or sys.stdin)


def _history(store: Store, args: argparse.Namespace, out: TextIO, err: TextIO,
             _in: TextIO) -> int:
    if args.limit < 1:
        raise UsageError("-n must be at least 1.")
    rows = store.list_conversations(limit=args.limit)
    if not rows:
        print(f"{PROG}: no saved conversations yet; start one with: tui-chat ask PROMPT",
              file=err)
        return int(ExitCode.OK)
    models = [one_line(_model(r.provider, r.model), 40) for r in rows]
    width = max(len(m) for m in models)
    spent = store.spent_by_conversation([row.id for row in rows])
    for row, model in zip(rows, models, strict=True):
        when = row.updated.astimezone().strftime("%Y-%m-%d %H:%M")
        figures = spent.get(row.id)
        tokens = f"{short_tokens(figures.tokens)} tok" if figures else "-"
        cost = _cost(figures) if figures else "-"
        print(f"{row.id[:SHORT_ID]}  {when}  {model:<{width}}  {tokens:>9}  {cost:>14}  "
              f"{one_line(row.title, 80)}", file=out)
    return int(ExitCode.OK)


def _cost(spent: Spent) -> str:
    """A cost with its unit; "-" when no reply was priced, "+" when some were not."""
    if spent.cost_usd is None:
        return "-"
    return cost_text(spent.cost_usd) + ("+" if spent.unpriced else "")


def _usage(store: Store, args: argparse.Namespace, out: TextIO, err: TextIO,
           _in: TextIO) -> int:
    if args.days < 1:
        raise UsageError("--days must be at least 1.")
    rows = store.usage_by_day(args.days, datetime.now(UTC))
    since = "today" if args.days == 1 else f"the last {args.days} days"
    quota = _quota_lines()
    if not rows:
        print(f"{PROG}: no reply with token usage in {since}.", file=err)
        for said in quota:
            print(said, file=out)
        return int(ExitCode.OK)
    table = [("day", "provider/model", "replies", "input", "output", "cost")]
    for row in rows:
        table.append((row.day, one_line(_model(row.provider, row.model), 50),
                      str(row.spent.replies), f"{row.spent.prompt_tokens:,}",
                      f"{row.spent.completion_tokens:,}", _cost(row.spent)))
    total = _total([row.spent for row in rows])
    table.append(("total", "", str(total.replies), f"{total.prompt_tokens:,}",
                  f"{total.completion_tokens:,}", _cost(total)))
    widths = [max(len(line[i]) for line in table) for i in range(6)]
    for line in table:
        left = f"{line[0]:<{widths[0]}}  {line[1]:<{widths[1]}}"
        right = "  ".join(f"{cell:>{width}}" for cell, width in zip(line[2:], widths[2:],
                                                                     strict=True))
        print(f"{left}  {right}".rstrip(), file=out)
    if total.unpriced:
        print(f"{total.unpriced} repl{'y' if total.unpriced == 1 else 'ies'} had no known price "
              "(\"+\" marks a cost without them); set input_price and output_price under "
              "[models.\"provider:model-id\"] in config.toml to price a model.", file=out)
    for said in quota:
        print(said, file=out)
    return int(ExitCode.OK)


def _quota_lines() -> list[str]:
    """What each provider last said of its quota (tui_chat.core.quota)."""
    from tui_chat.core.providers import BUILTIN_PROVIDERS
    from tui_chat.core.quota import QuotaBook, quota_lines

    names = {name: spec.display_name for name, spec in BUILTIN_PROVIDERS.items()}
    return quota_lines(QuotaBook().read(), names)


def _total(rows: list[Spent]) -> Spent:
    costs = [row.cost_usd for row in rows if row.cost_usd is not None]
    return Spent(replies=sum(r.replies for r in rows),
                 prompt_tokens=sum(r.prompt_tokens for r in rows),
                 completion_tokens=sum(r.completion_tokens for r in rows),
                 cost_usd=sum(costs) if costs else None,
                 unpriced=sum(r.unpriced for r in rows))


def _model(provider: str | None, model: str | None) -> str:
    if not model:
        return "-"
    return f"{provider}/{model}" if provider else model


def _show(store: Store, args: argparse.Namespace, out: TextIO, _err: TextIO,
          _in: TextIO) -> int:
    from tui_chat.core import export  # JSON import/export: not on the app's start-up path

    cid = store.resolve_id(args.id)
    if args.tree:
        from tui_chat.core.tree_outline import outline

        out.write(outline(store.get_tree(cid)))  # one_line has cleaned every text in it
        return int(ExitCode.OK)
    text = export.conversation_to_markdown(store.get_conversation(cid), store.get_messages(cid))
    out.write(cleaner_for(out)(text))
    return int(ExitCode.OK)


def _search(store: Store, args: argparse.Namespace, out: TextIO, err: TextIO,
            _in: TextIO) -> int:
    query = " ".join(args.query)
    if not query.strip():
        raise UsageError("The search is empty: give some words to find.")
    hits = store.search(query, limit=max(1, args.limit))
    if not hits:
        print(f"{PROG}: no saved message contains {one_line(query, 60)!r}.", file=err)
        return int(ExitCode.FAILURE)
    bold = out.isatty()
    for hit in hits:
        when = hit.created.astimezone().strftime("%Y-%m-%d %H:%M")
        print(f"{hit.conversation_id[:SHORT_ID]}  {when}  {hit.role.value:<9}  "
              f"{one_line(hit.title, 60)}", file=out)
        print(f"    {_highlight(hit) if bold else hit.snippet}", file=out)
    return int(ExitCode.OK)


def _highlight(hit: SearchHit) -> str:
    """The snippet with its matches in bold (the snippet is already sanitized)."""
    parts, last = [], 0
    for start, end in hit.spans:
        parts += [hit.snippet[last:start], BOLD, hit.snippet[start:end], RESET]
        last = end
    parts.append(hit.snippet[last:])
    return "".join(parts)


def _export(store: Store, args: argparse.Namespace, out: TextIO, err: TextIO,
            _in: TextIO) -> int:
    from tui_chat.core import export  # JSON import/export: not on the app's start-up path

    target: Path | None = args.output
    if target is not None and os.path.lexists(target) and not args.force:
        raise _exists(target)  # before the work of exporting
    fmt = args.format or ("json" if target and target.suffix.lower() == ".json" else "markdown")
    if args.all:
        ids = [s.id for s in store.list_conversations(limit=-1)][::-1]
        if not ids:
            print(f"{PROG}: there are no saved conversations to export.", file=err)
            return int(ExitCode.FAILURE)
    else:
        ids = [store.resolve_id(args.id)]
    if fmt == "json":
        text = export.export_json(store, ids)
    else:
        text = export.export_markdown(store, ids, all_branches=args.all_branches)
    if target is None:
        out.write(cleaner_for(out)(text))
        return int(ExitCode.OK)
    try:
        write_export(target, text, force=args.force)
    except FileExistsError:
        raise _exists(target) from None
    except OSError as error:
        raise UsageError(f"Cannot write {target}: {error.strerror}.") from None
    print(f"{PROG}: wrote {len(ids)} conversation{'' if len(ids) == 1 else 's'} to {target}.",
          file=err)
    return int(ExitCode.OK)


def _exists(target: Path) -> UsageError:
    return UsageError(f"{target} already exists; pass --force to overwrite it, or choose "
                      "another file.")


def _import(store: Store, args: argparse.Namespace, out: TextIO, _err: TextIO,
            _in: TextIO) -> int:
    from tui_chat.core import export  # JSON import/export: not on the app's start-up path

    result = export.import_file(store, args.file)
    print(result.describe(), file=out)
    return int(ExitCode.OK)


def _rm(store: Store, args: argparse.Namespace, out: TextIO, err: TextIO,
        stdin: TextIO) -> int:
    cid = store.resolve_id(args.id)
    conversation = store.get_conversation(cid)
    title = one_line(conversation.title, 60)
    if not args.yes:
        if not stdin.isatty():
            raise UsageError("rm needs confirmation: pass --yes to delete without asking.")
        count = store.count_messages(cid)
        err.write(f"Delete \"{title}\" ({count} message{'' if count == 1 else 's'})? [y/N] ")
        err.flush()
        if stdin.readline().strip().lower() not in ("y", "yes"):
            print(f"{PROG}: nothing deleted.", file=err)
            return int(ExitCode.FAILURE)
    store.delete_conversation(cid)
    print(f"Deleted {cid[:SHORT_ID]} \"{title}\".", file=out)
    return int(ExitCode.OK)


def _rename(store: Store, args: argparse.Namespace, out: TextIO, _err: TextIO,
            _in: TextIO) -> int:
    cid = store.resolve_id(args.id)
    conversation = store.rename_conversation(cid, " ".join(args.title))
    print(f"Renamed {cid[:SHORT_ID]} to \"{one_line(conversation.title, 80)}\".", file=out)
    return int(ExitCode.OK)
