"""The model picker: every provider's models, grouped, filtered as you type; recent ones first.
Each row's details are columns lined up across the rows: context, prices, then the rest the
provider says (quantization, the longest reply, what it supports, TEE).

With `several`, models can be marked (Ctrl+T) to compare 2-4 of them on the next message:
Enter then returns a `Comparison` of the marked models and the highlighted one.

Without it, Chutes models can be put together as a routing pool (Ctrl+O; Ctrl+L for how
Chutes picks: failover, latency, throughput; tui_chat.core.routing): Enter then returns a
`ModelChoice` whose model is the pool, as Chutes reads it ("a,b:latency").

With `min_window` (the overflow dialog's "Other model"), only the models whose window is
larger than that many tokens are listed, of every provider, largest window first (each row
with its provider's name); the filter still narrows them.

Lists come from a `ModelCatalog` (memory, disk cache, known list) at once and are refreshed in
the background. Model ids are untrusted: sanitized and drawn as `rich.text.Text`, never markup.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from tui_chat.core.config import Settings
from tui_chat.core.models import ModelInfo
from tui_chat.core.providers import Provider
from tui_chat.core.routing import (
    DESCRIBED,
    MAX_POOL,
    Strategy,
    is_pool,
    next_strategy,
    pool_model,
    takes_pools,
)
from tui_chat.core.text import one_line
from tui_chat.ui.highlight import find_terms, highlighted_content

if TYPE_CHECKING:  # imported when the picker opens: the HTTP stack is not on the start-up path
    from tui_chat.core.model_catalog import ModelCatalog, ProviderModels

MAX_SHOWN = 500
"""Rows drawn at most; more matches are counted in the status line."""


@dataclass(frozen=True)
class ModelChoice:
    """What the picker returns: a provider name and one of its model ids."""

    provider: str
    model: str


@dataclass(frozen=True)
class Comparison:
    """What the picker returns when several models are chosen: 2-4, in the order marked."""

    models: tuple[ModelChoice, ...]


MAX_COMPARED = 4
COMPARE_HINT = ("Ctrl+T marks a model to compare (2–4); Enter compares the marked ones and "
                "the highlighted one.")


POOL_HINT = ("Ctrl+O adds the model to a routing pool (Chutes picks one model of it for "
             "each reply); Ctrl+L changes how it picks; Enter asks the pool.")


@dataclass(frozen=True)
class _Row:
    choice: ModelChoice
    info: ModelInfo | None


@dataclass(frozen=True)
class _Pending:
    """A row found for the list, drawn once every row's columns are known."""

    option_id: str
    row: _Row
    spans: list[tuple[int, int]]
    cells: tuple[str, ...]
    provider: str = ""
    """The provider's name, shown after the id (a recent row)."""

    def id_cells(self) -> int:
        suffix = cell_len(f" · {self.provider}") if self.provider else 0
        return cell_len(one_line(self.row.choice.model, 120)) + suffix


ID_WIDTH = 46
"""Cells the model id column takes at most (a longer id runs into the next column)."""


def columns(info: ModelInfo | None) -> tuple[str, ...]:
    """A row's details, a column each: the context length, the input and output prices (USD
    per million tokens), the rest the provider says (quantization, the longest reply, what
    it supports, TEE); "" where it says nothing."""
    if info is None:
        return ("", "", "", "")
    context = f"{info.context_length:,} ctx" if info.context_length else ""
    if info.input_price is not None and info.output_price is not None:
        prices = (f"${info.input_price:g}/M in", f"${info.output_price:g}/M out")
    else:
        prices = (one_line(info.price, 40) if info.price else "", "")
    return (context, *prices, extras(info))


FEATURE_WORDS = {"reasoning": "reasoning", "json_mode": "json", "structured_outputs": "json"}


def extras(info: ModelInfo) -> str:
    """"fp8 · out 8,192 · tools images reasoning json · TEE" (each part when known)."""
    parts = [one_line(info.quantization, 12)] if info.quantization else []
    if info.max_output:
        parts.append(f"out {info.max_output:,}")
    can = ["tools"] if info.takes_tools else []
    if info.takes_images:
        can.append("images")
    can += [FEATURE_WORDS[f] for f in info.features if f in FEATURE_WORDS]
    if can:
        parts.append(" ".join(dict.fromkeys(can)))
    if info.confidential_compute:
        parts.append("TEE")
    return " · ".join(parts)


def model_prompt(model: str, cells: Sequence[str], spans: Iterable[tuple[int, int]],
                 current: bool, mark: str | None = None, *, id_width: int = 0,
                 widths: Sequence[int] = (), provider: str = "") -> Content:
    """One row: a mark (its place among the models to compare or in the pool, or ● for the
    current one), the model id with the filter's matches (and `provider`'s name: a recent
    row, as two providers may serve one model id), then what the provider says of it, each
    column padded to `widths` (cells) so that the rows line up."""
    shown = mark if mark is not None else ("● " if current else "  ")
    name = highlighted_content(model, spans, limit=120)
    if provider:
        name = Content.assemble(name, (f" · {provider}", "dim"))
    parts: list[Content | tuple[str, str]] = [(shown, "bold"), name]
    if any(cells):
        pad = max(id_width - name.cell_length, 0) + 3
        details = []
        for index, cell in enumerate(cells):
            width = widths[index] if index < len(widths) else 0
            gap = " " * max(width - cell_len(cell), 0)
            # Figures line up on the right; words (names, the rest) on the left.
            details.append(gap + cell if cell[:1] == "$" or cell.endswith(" ctx")
                           else cell + gap)
        parts.append((" " * pad + "  ".join(details).rstrip(), "dim"))
    return Content.assemble(*parts)


class ModelPickerScreen(ModalScreen[ModelChoice | Comparison | None]):
    """Pick a model; dismisses with a `ModelChoice` (or with `several`, maybe a
    `Comparison`), or None on Esc."""

    CSS_PATH = Path(__file__).with_suffix(".tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="picker.cancel"),
        Binding("down", "cursor(1)", "Next model", show=False, id="picker.down"),
        Binding("up", "cursor(-1)", "Previous model", show=False, id="picker.up"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="picker.pagedown"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="picker.pageup"),
        Binding("ctrl+r", "refresh", "Refresh lists", id="picker.refresh"),
        Binding("ctrl+t", "toggle_mark", "Mark to compare", id="picker.mark",
                tooltip="Mark the highlighted model to compare 2-4 models on the next message"),
        Binding("ctrl+o", "toggle_pool", "Add to pool", id="picker.pool",
                tooltip="Add the highlighted Chutes model to a routing pool (or take it out)"),
        Binding("ctrl+l", "pool_strategy", "Pool strategy", id="picker.pool_strategy",
                tooltip="How Chutes picks from the pool: failover, latency or throughput"),
    ]

    class ListsRefreshed(Message):
        """A provider's list came back from the background refresh."""

        def __init__(self, models: ProviderModels) -> None:
            super().__init__()
            self.models = models

    def __init__(self, settings: Settings, *, catalog: ModelCatalog | None = None,
                 recent: Sequence[ModelChoice] = (), current: ModelChoice | None = None,
                 refresh: bool = True, recent_limit: int = 5, several: bool = False,
                 marked: Sequence[ModelChoice] = (), min_window: int | None = None) -> None:
        super().__init__()
        self.min_window = min_window
        """Only models whose window is larger than this, largest first (None: all)."""
        self.several = several
        self.marked: list[ModelChoice] = list(dict.fromkeys(marked))[:MAX_COMPARED]
        self.pool: list[ModelChoice] = []
        """The models of a routing pool being put together (one provider's: Chutes)."""
        self.strategy: Strategy = "failover"
        if catalog is None:
            from tui_chat.core.model_catalog import ModelCatalog

            catalog = ModelCatalog(settings)
        self.catalog = catalog
        self.recent = list(dict.fromkeys(recent))[:recent_limit]
        self.current = current
        self._refresh_on_mount = refresh
        providers = self.catalog.providers()
        self._lists: dict[str, ProviderModels] = {p.name: self.catalog.cached(p)
                                                  for p in providers}
        self._providers = providers
        self._rows: dict[str, _Row] = {}
        self._hidden = 0
        self._refreshing: set[str] = set()

    def compose(self) -> ComposeResult:
        with Vertical(id="picker") as box:
            box.border_title = "Pick models to compare" if self.several and self.marked \
                else "Pick a model with a larger window" if self.min_window is not None \
                else "Pick a model"
            yield Input(placeholder="Type to filter models…", id="filter", select_on_focus=False)
            yield OptionList(id="models", markup=False)
            yield Static("", id="status", markup=False)

    def on_mount(self) -> None:
        self.query_one("#filter", Input).focus()
        self._rebuild(keep=self.current)
        if self._refresh_on_mount:
            self._start_refresh([p for p in self._providers if not self.catalog.is_fresh(p)])

    @property
    def option_list(self) -> OptionList:
        return self.query_one("#models", OptionList)

    def _terms(self) -> list[str]:
        return self.query_one("#filter", Input).value.casefold().split()

    def _rebuild(self, keep: ModelChoice | None = None, *, same_option: bool = True) -> None:
        listing = self.option_list
        highlighted = listing.highlighted_option if same_option else None
        keep_id = highlighted.id if highlighted is not None else None
        terms = self._terms()
        found: list[Option | _Pending | None] = []
        self._rows = {}
        self._hidden = 0
        names = {provider.name: provider.display_name for provider in self._providers}

        def provider_name(row: _Row) -> str:
            return one_line(names.get(row.choice.provider, row.choice.provider), 40)

        if self.min_window is not None:
            found += self._section("larger", Text(
                f"Windows larger than {self.min_window:,} tokens, largest first",
                style="bold"), self._larger_rows(self.min_window), terms,
                provider=provider_name)
        else:
            recent = [self._row_for(choice) for choice in self.recent]
            found += self._section("recent", Text("Recently used", style="bold"), recent,
                                   terms, provider=provider_name)
            for provider in self._providers:
                entry = self._lists[provider.name]
                rows = [_Row(ModelChoice(provider.name, m.id), m) for m in entry.models]
                found += self._section(f"p-{provider.name}", self._header(entry), rows, terms)
            found += self._typed_section()
        listing.set_options(self._drawn(found)[1:])  # no separator above the first group
        self._highlight(keep, keep_id)
        self._show_status()

    def _drawn(self, found: Sequence[Option | _Pending | None]) -> list[Option | None]:
        """The options, each row's columns lined up with the others' (a row of one note, as
        the typed ones, is not a column)."""
        pending = [item for item in found if isinstance(item, _Pending)]
        id_width = min(max((p.id_cells() for p in pending), default=0), ID_WIDTH)
        widths: list[int] = []
        for row in pending:
            if len(row.cells) < 2:
                continue
            widths += [0] * (len(row.cells) - len(widths))
            for index, cell in enumerate(row.cells):
                widths[index] = max(widths[index], cell_len(cell))
        options: list[Option | None] = []
        for item in found:
            if not isinstance(item, _Pending):
                options.append(item)
                continue
            choice = item.row.choice
            prompt = model_prompt(choice.model, item.cells, item.spans, choice == self.current,
                                  self._mark(choice), id_width=id_width,
                                  widths=widths if len(item.cells) > 1 else (),
                                  provider=item.provider)
            options.append(Option(prompt, id=item.option_id))
        return options

    def _mark(self, choice: ModelChoice) -> str | None:
        if choice in self.marked:
            return f"{self.marked.index(choice) + 1}✓"
        if choice in self.pool:
            return f"{self.pool.index(choice) + 1}+"
        return None

    def _section(self, key: str, title: Text, rows: Sequence[_Row], terms: Sequence[str],
                 details: Callable[[_Row], tuple[str, ...]] | None = None, *,
                 provider: Callable[[_Row], str] | None = None,
                 capped: bool = True) -> list[Option | _Pending | None]:
        """A group: its title, then the rows that match `terms` (each with `details`, by
        default what the provider says of the model; `provider`, its name after the id), up
        to MAX_SHOWN rows in all if `capped`."""
        shown: list[Option | _Pending | None] = []
        for index, row in enumerate(rows):
            spans = find_terms(row.choice.model, terms) if terms else []
            if spans is None:
                continue
            if capped and len(self._rows) >= MAX_SHOWN:  # a long list costs at every keystroke
                self._hidden += 1
                continue
            option_id = f"{key}:{index}"
            self._rows[option_id] = row
            cells = details(row) if details is not None else columns(row.info)
            shown.append(_Pending(option_id, row, spans, cells,
                                  provider(row) if provider is not None else ""))
        if not shown:
            return []
        return [None, Option(title, id=f"{key}:header", disabled=True), *shown]

    def _larger_rows(self, window: int) -> list[_Row]:
        """Every provider's models whose window is larger than `window`, largest first (the
        order of the lists among equals)."""
        rows = [_Row(ModelChoice(provider.name, m.id), m) for provider in self._providers
                for m in self._lists[provider.name].models
                if m.context_length is not None and m.context_length > window]
        return sorted(rows, key=lambda row: -(row.info.context_length or 0) if row.info else 0)

    def _typed_section(self) -> list[Option | _Pending | None]:
        """The filter as a model id, for each provider that does not list it: providers add
        models before their lists show them, and some lists are only the known few."""
        typed = self.query_one("#filter", Input).value.strip()
        if not typed or any(char.isspace() for char in typed):
            return []
        names = {provider.name: provider.display_name for provider in self._providers}
        rows = [_Row(ModelChoice(name, typed), None) for name in names
                if not any(info.id == typed for info in self._lists[name].models)]
        return self._section("typed", Text("Use the model id you typed", style="bold"), rows,
                             [], lambda row: (f"on {one_line(names[row.choice.provider], 40)}, "
                                              "as typed",), capped=False)

    def _header(self, entry: ProviderModels) -> Text:
        title = Text(one_line(entry.display_name, 40), style="bold")
        title.append(f" ({one_line(entry.provider, 40)})")
        if entry.provider in self._refreshing:
            title.append("  refreshing…", style="italic")
        elif entry.source != "live":
            source = "cached list" if entry.source == "cache" else "built-in list"
            title.append(f"  {source}", style="italic")
        if not entry.has_key:
            title.append("  no key", style="italic")
        return title

    def _row_for(self, choice: ModelChoice) -> _Row:
        entry = self._lists.get(choice.provider)
        info = next((m for m in entry.models if m.id == choice.model), None) if entry else None
        return _Row(choice, info)

    def _highlight(self, keep: ModelChoice | None, keep_id: str | None = None) -> None:
        """Highlight the same option as before, else the same model, else the first one."""
        ids = [option.id for option in self.option_list.options]
        target = ids.index(keep_id) if keep_id in ids else None
        if target is None and keep is not None:
            target = next((i for i, oid in enumerate(ids)
                           if oid in self._rows and self._rows[oid].choice == keep), None)
        if target is None:
            target = next((i for i, oid in enumerate(ids) if oid in self._rows), None)
        self.option_list.highlighted = target
        if target is not None:
            self.option_list.scroll_to_highlight()

    def _show_status(self) -> None:
        notes = [entry.note for entry in self._lists.values() if entry.note]
        if self.several:
            chosen = ", ".join(one_line(m.model, 40) for m in self.marked)
            notes.insert(0, f"Marked: {chosen}. {COMPARE_HINT}" if self.marked
                         else COMPARE_HINT)
        if self.pool:
            chosen = ", ".join(one_line(m.model, 40) for m in self.pool)
            notes.insert(0, f"Pool ({DESCRIBED[self.strategy]}): {chosen}. {POOL_HINT}")
        notes += self.catalog.problems
        if self.min_window is not None:
            notes.insert(0, "Only the models whose window holds this message are listed."
                         if self._rows else
                         f"No listed model has a window larger than {self.min_window:,} "
                         "tokens: shorten the message, or leave the oldest turns out.")
        elif all(key.startswith("typed:") for key in self._rows):  # none listed, or no row
            notes.insert(0, "No listed model matches the filter." if self._rows
                         else "No model matches the filter.")
        if self._hidden:
            notes.insert(0, f"Showing {MAX_SHOWN:,} models; {self._hidden:,} more match: "
                            "type to narrow the list.")
        elif self._refreshing:
            notes.append("Refreshing model lists in the background…")
        self.query_one("#status", Static).update(Text("\n".join(notes)))

    def highlighted_choice(self) -> ModelChoice | None:
        option = self.option_list.highlighted_option
        row = self._rows.get(option.id or "") if option is not None else None
        return row.choice if row else None

    def on_key(self, event: events.Key) -> None:
        """Typing while the list has focus goes to the filter."""
        field = self.query_one("#filter", Input)
        if event.is_printable and event.character and self.focused is not field:
            event.stop()
            field.focus()
            field.insert_text_at_cursor(event.character)

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._rebuild(keep=None, same_option=False)  # the best match is the first one

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        choice = self.highlighted_choice()
        if choice is not None:
            self._choose(choice)

    def _choose(self, choice: ModelChoice) -> None:
        """One model, or with models marked, those and `choice` compared; with a pool put
        together, the pool (and `choice`, when it is the same provider's)."""
        if self.pool:
            self.dismiss(self._pool_choice(choice))
            return
        models = list(self.marked)
        if choice not in models and len(models) < MAX_COMPARED:
            models.append(choice)
        self.dismiss(Comparison(tuple(models)) if len(models) > 1 else models[0])

    def _pool_choice(self, choice: ModelChoice) -> ModelChoice:
        models = list(self.pool)
        if (choice not in models and choice.provider == models[0].provider
                and not is_pool(choice.model) and len(models) < MAX_POOL):
            models.append(choice)
        if len(models) == 1:
            return models[0]
        return ModelChoice(models[0].provider,
                           pool_model([m.model for m in models], self.strategy))

    def action_toggle_pool(self) -> None:
        """Add the highlighted model to the routing pool, or take it out (Ctrl+O)."""
        choice = self.highlighted_choice()
        if choice is None:
            return
        problem = self._pool_problem(choice)
        if problem:
            self.notify(problem, markup=False, severity="warning")
            return
        if choice in self.pool:
            self.pool.remove(choice)
        else:
            self.pool.append(choice)
        self._retitle()
        self._rebuild(keep=choice)

    def _pool_problem(self, choice: ModelChoice) -> str:
        """Why `choice` cannot join the pool, in one sentence ("" when it can)."""
        if self.several:
            return ("Models are compared here; put a routing pool together from the model "
                    "picker (F2 without comparing).")
        provider = next((p for p in self._providers if p.name == choice.provider), None)
        name = one_line(provider.display_name if provider else choice.provider, 40)
        if provider is None or not takes_pools(provider):
            return f"Only Chutes takes routing pools; {name} does not."
        if self.pool and choice.provider != self.pool[0].provider:
            return "A routing pool's models all come from one provider."
        if is_pool(choice.model):
            return "That is a pool already; add its models one by one."
        if choice not in self.pool and len(self.pool) >= MAX_POOL:
            return f"A routing pool holds at most {MAX_POOL} models."
        return ""

    def action_pool_strategy(self) -> None:
        """How Chutes picks from the pool: failover, latency, throughput, in turn (Ctrl+L)."""
        self.strategy = next_strategy(self.strategy)
        self._show_status()

    def _retitle(self) -> None:
        self.query_one("#picker").border_title = (
            "Pick a routing pool" if self.pool
            else "Pick models to compare" if self.marked else "Pick a model")

    def action_toggle_mark(self) -> None:
        if not self.several:
            self.notify("Compare models from the conversation (F2, or “Compare models…” in "
                        "the palette).", markup=False, severity="warning")
            return
        choice = self.highlighted_choice()
        if choice is None:
            return
        if choice in self.marked:
            self.marked.remove(choice)
        elif len(self.marked) >= MAX_COMPARED:
            self.notify(f"At most {MAX_COMPARED} models can be compared at once.",
                        markup=False, severity="warning")
            return
        elif self.pool:
            self.notify("A routing pool is being put together; take its models out (Ctrl+O) "
                        "to compare instead.", markup=False, severity="warning")
            return
        else:
            self.marked.append(choice)
        self._retitle()
        self._rebuild(keep=choice)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        row = self._rows.get(event.option.id or "")
        if row is not None:
            self._choose(row.choice)

    def action_cursor(self, step: int) -> None:
        if step > 0:
            self.option_list.action_cursor_down()
        else:
            self.option_list.action_cursor_up()

    async def action_page(self, step: int) -> None:
        await self.option_list.run_action("page_down" if step > 0 else "page_up")

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_refresh(self) -> None:
        """Ask every provider again, now (Ctrl+R)."""
        self._start_refresh(self._providers)

    def _start_refresh(self, providers: Sequence[Provider]) -> None:
        if not providers:
            return
        self._refreshing |= {p.name for p in providers}
        self._rebuild(keep=self.highlighted_choice() or self.current)
        self._refresh_lists(list(providers))

    @work(exclusive=False, group="model-lists", exit_on_error=False)
    async def _refresh_lists(self, providers: list[Provider]) -> None:
        async def one(provider: Provider) -> None:
            try:
                entry = await self.catalog.refresh(provider)
            except Exception as error:  # a bug must not leave "refreshing…" forever
                entry = self.catalog.mark_failed(provider, type(error).__name__)
            self.post_message(self.ListsRefreshed(entry))

        await asyncio.gather(*(one(provider) for provider in providers))

    def on_model_picker_screen_lists_refreshed(self, event: ListsRefreshed) -> None:
        event.stop()
        self._lists[event.models.provider] = event.models
        self._refreshing.discard(event.models.provider)
        self._rebuild(keep=self.highlighted_choice() or self.current)
