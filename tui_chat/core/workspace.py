"""The conversation in progress, for every front-end: `tui-chat ask` and the app.

A `Workspace` is the one owner of
- the settings in force, and the environment they are resolved against;
- the store and the current `ChatSession` (one conversation at a time);
- the chosen provider and model;
- one `ProviderClient` per provider, leased to each exchange.

Front-ends ask it which provider, model, key and client to use; neither decides. A
comparison leases one client per target from the same pool. Usage::

    workspace = Workspace(settings, store, env=os.environ, provider="sutra")
    workspace.open_conversation(conversation_id)        # or open_latest(), new_conversation()
    async for event in workspace.send("नमस्ते"):          # SessionEvent, as ChatSession yields
        ...
    workspace.choose_several([("chutes", "deepseek-ai/DeepSeek-V3-0324"), ("sutra", "sutra-v2")])
    async for event in workspace.compare("नमस्ते"):       # CompareEvent, as core.compare yields
        ...
    workspace.choose_reply(reply_id)                     # continue from one compared reply
    change = await workspace.apply_settings(new_settings)  # what took effect, and where
    await workspace.aclose()

Settings change in one place, `apply_settings`, which decides field by field what takes effect
at once, what applies to the conversation on screen (only while nothing has been sent in it),
and what applies to new conversations only; it returns a `SettingsChange` saying which. A
client that a streaming reply is using is never closed under it: it is retired, the next request
gets a new client, and the old one closes when its last exchange ends.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from msgspec import Struct

from tui_chat.core import dialect
from tui_chat.core.asker import REFUSE, Asker
from tui_chat.core.attachments import check_images, check_total
from tui_chat.core.client_pool import ClientPool
from tui_chat.core.config import Settings
from tui_chat.core.context import ContextOverflowError, ContextPlan
from tui_chat.core.context_tracker import ContextTracker
from tui_chat.core.continuation import check_can_continue
from tui_chat.core.errors import Hint, TuiChatError, UsageError
from tui_chat.core.model_facts import merged
from tui_chat.core.models import (
    ActivePathChanged,
    Attachment,
    AttachmentInfo,
    Message,
    ModelInfo,
    Parameters,
    Role,
)
from tui_chat.core.providers import Provider
from tui_chat.core.session import ChatSession, ReplyFinished, SessionEvent
from tui_chat.core.summaries import (
    is_summary,
    summary_request,
    system_text,
    turns_before,
    write_summary,
)
from tui_chat.core.text import one_line
from tui_chat.core.tool_exchange import ToolBox

if TYPE_CHECKING:  # imported on first use: the app's start-up path has no HTTP stack
    from tui_chat.core.client import ProviderClient
    from tui_chat.core.compare import CompareEvent
    from tui_chat.core.dialect import UsageRefusals
    from tui_chat.core.mcp.approval import Grants
    from tui_chat.core.mcp.elicitation import ElicitAnswer, ElicitRequest
    from tui_chat.core.mcp.manager import ServerManager
    from tui_chat.core.model_catalog import ModelCatalog
    from tui_chat.core.personas import Persona
    from tui_chat.core.store import Store

ModelRef = tuple[str, str]
"""(provider name, model id)."""


class NoModelError(UsageError):
    """The provider has no default model and none was chosen. Carries the facts; each
    front-end adds how to choose one there."""

    def __init__(self, provider: Provider) -> None:
        super().__init__(f"No model is chosen for {provider.display_name}, and it has no "
                         "default model.")
        self.hinted(Hint.MODEL, provider.name)


def split_model_ref(settings: Settings, text: str, default_provider: str) -> ModelRef:
    """`provider:model` when the part before the first colon names a provider, else
    `text` as a model of `default_provider` (model ids may hold colons: `llama3:8b`)."""
    name, colon, model = text.partition(":")
    if colon and model and name in settings.provider_names():
        return name, model
    return default_provider, text


def default_model_for(settings: Settings, provider: Provider) -> str | None:
    """The model a new conversation on `provider` uses: Settings' default model when it is
    this provider's, else the provider's own default; None when there is neither."""
    if settings.default_model and provider.name == settings.default_provider:
        return settings.default_model
    return provider.default_model


class SettingsChange(Struct, frozen=True):
    """What `Workspace.apply_settings` did with new settings, in words a front-end can show.

    `now`: in force from the next request on (keys, base URLs, timeouts, retries), or at
    once (theme, reading width).
    `here`: applied to the conversation on screen, because nothing was sent in it yet.
    `later`: for new conversations only (the conversation on screen keeps its own)."""

    now: tuple[str, ...] = ()
    here: tuple[str, ...] = ()
    later: tuple[str, ...] = ()
    provider_removed: str | None = None
    """The provider in use was removed from the settings: the default provider replaced it."""


class Workspace:
    """One conversation at a time, its provider and model, and a client per provider."""

    def __init__(self, settings: Settings, store: Store, *, env: Mapping[str, str] | None = None,
                 provider: str | None = None, model: str | None = None,
                 clock: Callable[[], float] = time.monotonic, read_coalesce: float = 0.0) -> None:
        """`provider`/`model` (the command line's -p/-m) win over the defaults for this run.
        `read_coalesce`: see ProviderClient (the app reads a trickling stream every 0.1 s;
        `ask`, which prints each token as it comes, 0). Raises UnknownProviderError."""
        self._settings = settings
        self.store = store
        self.env: Mapping[str, str] = os.environ if env is None else env
        self.clock = clock
        self.read_coalesce = read_coalesce
        self._clients = ClientPool(self._build_client)
        self._refusals: UsageRefusals | None = None  # shared by the clients, made with them
        self._catalog: ModelCatalog | None = None
        self._startup_choice = (provider, model)
        self.provider = self.settings.resolve_provider(provider or settings.default_provider,
                                                       self.env)
        self.model: str | None = model or default_model_for(settings, self.provider)
        self._chosen_here = bool(provider or model)
        self.context = ContextTracker(self._facts)
        """Windows, token counts and prices (see context_tracker)."""
        self.session = self._new_session()
        self.compare_models: tuple[ModelRef, ...] = ()
        """Models chosen to compare on the next message (none: the current model alone)."""
        self.asker: Asker = REFUSE
        """How the exchange in progress asks the user (see core.asker): the one `send` or
        `compare` was given, while its events are read; `REFUSE` between exchanges."""
        self.approve_tools = False
        """Run every tool call without asking (`ask --approve-tools`)."""
        self._servers: ServerManager | None = None  # started on first use, closed by aclose
        self._grants: dict[str, Grants] = {}  # a conversation's "always" answers

    # --- what is in force -----------------------------------------------------------------

    @property
    def session(self) -> ChatSession:
        """The conversation in progress (one at a time)."""
        return self._session

    @session.setter
    def session(self, session: ChatSession) -> None:
        session.cost_of = self.context.cost_of  # every reply is priced as it finishes
        session.in_tee = lambda provider, model: self._facts(provider, model).confidential_compute
        session.longest_reply = lambda provider, model: self._facts(provider, model).max_output
        session.takes_reasoning = lambda provider, model: dialect.takes_reasoning(
            self._facts(provider, model))
        self._session = session

    @property
    def settings(self) -> Settings:
        return self._settings

    @property
    def provider_name(self) -> str:
        return self.provider.name

    @property
    def title(self) -> str:
        return self.session.conversation.title if self.session.is_saved else "New conversation"

    @property
    def catalog(self) -> ModelCatalog:
        """Model lists of every provider (one per workspace: its memory cache lives on)."""
        if self._catalog is None:
            from tui_chat.core.model_catalog import ModelCatalog

            self._catalog = ModelCatalog(self.settings, env=self.env)
        return self._catalog

    def require_model(self) -> str:
        """The model to send to (NoModelError when there is none)."""
        if self.model is None:
            raise NoModelError(self.provider)
        return self.model

    # --- which conversation ---------------------------------------------------------------

    def _new_session(self) -> ChatSession:
        return ChatSession.start(self.store, system_prompt=self.settings.system_prompt,
                                 parameters=self.settings.parameters, clock=self.clock)

    def new_conversation(self) -> None:
        """An empty conversation on the model the user last picked (`choose`), else on the
        defaults (-p/-m given at start, else Settings')."""
        self.session = self._new_session()
        self.compare_models = ()
        provider, model = self._startup_choice
        with contextlib.suppress(TuiChatError):  # a provider since removed: keep the current
            self.provider = self.settings.resolve_provider(
                provider or self.settings.default_provider, self.env)
            self.model = model or default_model_for(self.settings, self.provider)
        self._chosen_here = False

    def open_conversation(self, conversation_id: str, *, at_message: str | None = None,
                          newest: int | None = None) -> list[Message]:
        """Resume a stored conversation (an id prefix is fine); its messages, oldest first.
        The model last used in it becomes the current one when its provider still exists.
        `at_message`: a message on any branch (a search hit), whose path becomes active.
        `newest`: read only the last `newest` messages of the path, for a first frame that
        does not wait for a long one; when that many came back, the caller reads the rest
        (`session.messages_above` the first) and hands the whole path to `learn_path`."""
        full_id = self.store.resolve_id(conversation_id)
        self.session = ChatSession.resume(self.store, full_id, clock=self.clock)
        self.compare_models = ()
        if at_message is not None:
            with contextlib.suppress(TuiChatError):  # deleted since the search: as it is
                self.session.activate(at_message)
        conversation = self.session.conversation
        if conversation.provider and conversation.model:
            with contextlib.suppress(TuiChatError):
                self.choose(conversation.provider, conversation.model, persist=False)
        messages = self.session.messages(newest)
        if newest is None or len(messages) < newest:
            self.learn_path(messages)
        return messages

    def reader_above(self, newest: Sequence[Message], asked: int
                     ) -> Callable[[], list[Message]] | None:
        """What reads the rest of a path opened with `newest=asked` (None: `newest` is all
        of it): the path above its first message, with its text counted for the context
        estimate. Blocking, and safe in another thread: the UI runs it after its first
        frame, then hands the whole path to `learn_path`."""
        if not newest or len(newest) < asked:
            return None
        session, first = self.session, newest[0].id

        def read() -> list[Message]:
            older = session.messages_above(first)
            self.count_ahead(older)
            return older

        return read

    def count_ahead(self, messages: Sequence[Message]) -> None:
        """Count what the text of `messages` is made of for the context estimate now (safe
        in another thread: what the next plan would otherwise count on the event loop)."""
        counts = self.context.meter.counts
        for message in messages:
            counts(message)

    def learn_path(self, path: Sequence[Message]) -> None:
        """Calibrate the context estimate on the newest replies of the conversation just
        opened, whose whole active path is `path`."""
        conversation = self.session.conversation
        start, summary = self.session.context_start(path)
        self.context.learn_path(path, system_text(conversation.system_prompt, summary), start)

    def open_latest(self, *, newest: int | None = None) -> list[Message] | None:
        """The most recently updated conversation, or None (and nothing changes) when the
        store has none (`newest`: as for open_conversation)."""
        latest = self.store.latest_conversation()
        return self.open_conversation(latest.id, newest=newest) if latest else None

    def fork(self, message_id: str) -> list[Message]:
        """Continue in a new conversation holding the path up to `message_id` (the original
        stays as it is); the fork's messages."""
        self.session = self.session.fork(message_id)
        self.compare_models = ()
        return self.session.messages()

    def apply_persona(self, persona: Persona, *, keep_model: bool = False) -> None:
        """The persona's system prompt and parameters for the conversation on screen, and its
        provider and model unless `keep_model` (-p/-m given) or it names none."""
        if persona.provider is not None and not keep_model:
            resolved = self.settings.resolve_provider(persona.provider, self.env)
            self.provider = resolved
            self.model = persona.model or default_model_for(self.settings, resolved)
            self._chosen_here = True
        self.session.apply_persona(persona)

    def forget_conversation(self, conversation_id: str) -> bool:
        """Another front-end or process deleted `conversation_id`: when it is the current one,
        start a new one (True)."""
        if self.session.conversation.id != conversation_id:
            return False
        self.new_conversation()
        return True

    # --- provider and model ---------------------------------------------------------------

    def choose(self, provider: str, model: str, *, persist: bool = True) -> None:
        """Use `model` of `provider` from the next message on (UnknownProviderError)."""
        self.provider = self.settings.resolve_provider(provider, self.env)
        self.model = model
        self.compare_models = ()
        self._chosen_here = True
        if persist:  # the user's pick (F2), not a conversation reopened: Ctrl+N keeps it
            self._startup_choice = (provider, model)
        conversation = self.session.conversation
        if persist and self.session.is_saved:
            conversation.provider, conversation.model = provider, model
            self.store.update_conversation(conversation)

    def choose_several(self, models: Sequence[ModelRef]) -> None:
        """Compare these 2-4 models on the next message (UsageError for another count,
        UnknownProviderError); the current model stays for the messages after it."""
        from tui_chat.core.compare import MAX_TARGETS, MIN_TARGETS

        unique = tuple(dict.fromkeys(models))
        if not MIN_TARGETS <= len(unique) <= MAX_TARGETS:
            raise UsageError(f"Compare takes {MIN_TARGETS} to {MAX_TARGETS} different models, "
                             f"not {len(unique)}: choose again.")
        for provider, _ in unique:
            self.settings.resolve_provider(provider, self.env)
        self.compare_models = unique

    def override(self, provider: str | None, model: str | None) -> None:
        """Apply -p/-m given on the command line over the model a conversation last used."""
        if provider is None and model is None:
            return
        name = provider or self.provider_name
        resolved = self.settings.resolve_provider(name, self.env)
        chosen = model or (self.model if name == self.provider_name
                           else default_model_for(self.settings, resolved))
        self.provider, self.model, self._chosen_here = resolved, chosen, True

    def recent_models(self, limit: int = 5) -> list[tuple[str, str]]:
        """(provider, model) pairs of the most recently used conversations, newest first."""
        pairs: list[tuple[str, str]] = []
        for summary in self.store.list_conversations(limit=30):
            pair = (summary.provider or "", summary.model or "")
            if all(pair) and pair not in pairs:
                pairs.append(pair)
        return pairs[:limit]

    # --- clients --------------------------------------------------------------------------

    def _build_client(self, provider: Provider) -> ProviderClient:
        from tui_chat.core.client import ProviderClient
        from tui_chat.core.dialect import UsageRefusals

        if self._refusals is None:
            self._refusals = UsageRefusals()
        return ProviderClient(provider, self.settings.require_key(provider),
                              timeouts=self.settings.timeouts,
                              max_retries=self.settings.max_retries,
                              coalesce=self.read_coalesce, env=self.env,
                              refusals=self._refusals)

    def client(self) -> ProviderClient:
        """The current provider's client (MissingKeyError and friends when it cannot be
        built)."""
        return self._clients.get(self.provider)

    # --- settings -------------------------------------------------------------------------

    async def apply_settings(self, new: Settings) -> SettingsChange:
        """Put `new` in force, field by field (see the module docstring)."""
        old, self._settings = self._settings, new
        self._catalog = None
        now: list[str] = []
        if old.providers != new.providers:
            now.append("keys and base URLs")
        if old.timeouts != new.timeouts:
            now.append("timeouts")
        if old.max_retries != new.max_retries:
            now.append("retries")
        if old.theme != new.theme:
            now.append("theme")
        if old.reading_width != new.reading_width:
            now.append("reading width")
        await self._clients.retire_all()  # whatever changed, the next request starts afresh
        removed = self._reresolve_provider()
        here, later = self._apply_defaults(old, new)
        return SettingsChange(tuple(now), tuple(here), tuple(later), removed)

    def _reresolve_provider(self) -> str | None:
        """The provider in use, resolved again under the new settings (a key may have been
        added, a URL changed); the default provider when it no longer exists."""
        try:
            self.provider = self.settings.resolve_provider(self.provider_name, self.env)
            return None
        except TuiChatError:
            removed = self.provider.display_name
            self.provider = self.settings.resolve_provider(self.settings.default_provider,
                                                           self.env)
            self.model = default_model_for(self.settings, self.provider)
            return removed

    def _apply_defaults(self, old: Settings, new: Settings) -> tuple[list[str], list[str]]:
        """Defaults for new conversations also reach the conversation on screen while nothing
        has been sent in it; a conversation with messages keeps its own."""
        changed: list[str] = []
        if (old.default_provider, old.default_model) != (new.default_provider,
                                                         new.default_model):
            changed.append("default model")
            self._startup_choice = (None, None)  # a new default wins over -p/-m from now on
        if old.system_prompt != new.system_prompt:
            changed.append("system prompt")
        if old.parameters != new.parameters:
            changed.append("parameters")
        if not changed or self.session.is_saved:
            return [], changed
        if "default model" in changed and self._chosen_here:
            # The user picked a model for this conversation: the new default waits for the next.
            self.session = self._new_session()
            return [c for c in changed if c != "default model"], ["default model"]
        self.new_conversation()
        return changed, []

    def apply_defaults_here(self) -> None:
        """Give the conversation on screen Settings' system prompt and parameters."""
        self.session.set_system_prompt(self.settings.system_prompt)
        self.session.set_parameters(self.settings.parameters)

    # --- context and cost -----------------------------------------------------------------

    def _facts(self, provider: str, model: str) -> ModelInfo:
        """What is known now about `model` of `provider` (the catalog's lists, config.toml's
        `[models]`), without any request."""
        try:
            resolved = self.settings.resolve_provider(provider, self.env)
        except TuiChatError:  # a provider since removed: only config.toml can say
            return merged(None, provider, model, self.settings.model_settings(provider, model))
        return self.catalog.facts(resolved, model)

    def facts(self) -> ModelInfo | None:
        """What is known about the current model (None: no model is chosen)."""
        return self._facts(self.provider_name, self.model) if self.model else None

    def context_plan(self, draft: str = "", *, path: list[Message] | None = None,
                     parameters: Parameters | None = None,
                     attachments: Sequence[AttachmentInfo] = ()) -> ContextPlan:
        """What a request of the active path (or `path`) and `draft` (with `attachments`)
        would hold, against the current model's window (see `context`)."""
        session = self.session
        conversation = session.conversation
        sent = (parameters or conversation.parameters).max_tokens
        path = session.messages() if path is None else path
        start, summary = session.context_start(path)
        extra = sum(a.tokens for a in attachments)
        plan = self.context.plan(
            path, provider=self.provider_name, model=self.model,
            system_prompt=system_text(conversation.system_prompt, summary),
            context_from=start, context_from_set=conversation.context_from_set,
            max_tokens=sent, draft=draft, draft_extra=extra)
        last = path[-1] if path else None
        if (plan.keep_from is None and plan.state == "over" and summary is not None
                and last is not None and last.role is Role.ASSISTANT):
            # The summary in force leaves no room: the message may go alone, the summary
            # left out with everything before it (keeping from the last reply: see
            # core.context), unless even that does not fit.
            alone = self.context.plan(
                path, provider=self.provider_name, model=self.model,
                system_prompt=conversation.system_prompt, context_from=last.id,
                max_tokens=sent, draft=draft, draft_extra=extra)
            if alone.state != "over":
                ids = [m.id for m in path]
                begin = ids.index(start) if start in ids else 0
                return ContextPlan(plan.use, "over", plan.max_tokens, keep_from=last.id,
                                   left_out=len(path) - begin)
        return plan

    def leave_out_before(self, message_id: str | None) -> None:
        """From the next request on, send the active path from `message_id` on (None: all);
        the messages before it stay, out of the context."""
        self.session.set_context_from(message_id)

    async def summarise_before(self, keep_from: str, model: ModelRef | None = None
                               ) -> Message:
        """Ask `model` (None: the current one) for a summary of the active path's turns
        before `keep_from` (those sent now: after a summary in force, which it covers too),
        store it as a node of the tree and send it in their place from the next request on
        (see core.summaries). The turns stay in the conversation. UsageError when there is
        nothing before `keep_from`; ProviderError as the request fails (nothing stored)."""
        path = self.session.messages()
        start, earlier = self.session.context_start(path)
        turns = turns_before(path, keep_from)
        sent_from = next((i for i, m in enumerate(turns) if m.id == start), 0)
        turns = turns[sent_from:]
        if not turns:
            raise UsageError("There are no earlier turns to summarise before this message.")
        provider, name = model or (self.provider_name, self.require_model())
        client = self._clients.get(self.settings.resolve_provider(provider, self.env))
        async with self._clients.lease(client):
            text = await write_summary(client, name, summary_request(turns, earlier))
        summary = Message(conversation_id=self.session.conversation.id, role=Role.SYSTEM,
                          parent_id=turns[-1].id, content=text, provider=provider, model=name)
        self.store.add_message(summary, activate=False)
        self.leave_out_before(summary.id)
        return summary

    def summary(self) -> Message | None:
        """The summary sent in place of the oldest turns, if one is in force."""
        return self.session.context_start(self.session.messages())[1]

    def edit_summary(self, summary_id: str, text: str) -> Message:
        """Replace a summary's text (UsageError for an empty one or a message that is not a
        summary); the next request sends the new text."""
        summary = self.store.get_message(summary_id)
        if not is_summary(summary):
            raise UsageError("Only a summary can be edited here.")
        if not text.strip():
            raise UsageError("The summary is empty: write what the model should remember, "
                             "or send the whole conversation again (leave nothing out).")
        summary.content = text.strip()
        self.store.update_message(summary)
        self.session.set_context_from(summary.id)
        return summary

    def conversation_cost(self) -> tuple[float | None, int]:
        """(USD spent on the conversation on screen, every branch; the replies with usage
        but no price): None when nothing priced is known."""
        if not self.session.is_saved:
            return None, 0
        return self.store.conversation_cost(self.session.conversation.id)

    def _fit(self, plan: ContextPlan) -> None:
        """Refuse a request that would not fit; lower `max_tokens` for one that would not
        leave it room; say whether the model reads images."""
        if plan.state == "over":
            raise ContextOverflowError(plan, self.require_model(), self.provider_name)
        self.session.max_tokens_limit = plan.max_tokens if plan.clamped else None
        facts = self.facts()
        self.session.takes_images = facts is not None and facts.takes_images

    def check_attachments(self, attachments: Sequence[AttachmentInfo]) -> None:
        """Refuse, with one sentence, attachments the current model cannot take: images for a
        model that does not read them, more than a message may carry."""
        check_total(attachments)
        facts = self.facts()
        check_images(attachments, self.require_model(), facts is not None and facts.takes_images,
                     self.provider_name)

    def _prompt_path(self, reply_id: str | None = None) -> list[Message]:
        """The path up to the prompt a regenerated reply answers (`reply_id`, or the one
        the active path ends with)."""
        if reply_id is not None:
            target = self.store.get_message(reply_id)
            prompt_id = target.id if target.role is Role.USER else target.parent_id
            return self.store.path_to(prompt_id) if prompt_id else []
        path = self.session.messages()
        while path and path[-1].role is not Role.USER:
            path.pop()
        return path

    # --- tools ----------------------------------------------------------------------------

    def tool_servers(self) -> list[str]:
        """The tool servers on for the conversation on screen: those enabled in config.toml
        that it did not turn off (`Parameters.tools_off`, kept with it)."""
        off = set(self.session.conversation.parameters.tools_off or ())
        return [name for name in self.settings.mcp.enabled_servers() if name not in off]

    def set_tool_server(self, name: str, on: bool) -> None:
        """Turn server `name` on or off for the conversation on screen (kept with it)."""
        parameters = self.session.conversation.parameters
        off = [n for n in parameters.tools_off or () if n != name] + ([] if on else [name])
        self.session.set_parameters(parameters.model_copy(update={"tools_off": off or None}))

    def tools_offered(self) -> int | None:
        """How many tools the next message offers: 0 when no server is on or the model takes
        none; None when the servers on have not started yet (they start with the first
        message that offers tools), else the count of their tools as last listed."""
        servers = self.tool_servers()
        if not servers or not self.takes_tools():
            return 0
        if self._servers is None:
            return None
        listed = [spec for spec in self._servers.listed() if spec.server in servers]
        started = {spec.server for spec in self._servers.listed()}
        return len(listed) if started else None

    # --- reasoning ------------------------------------------------------------------------

    @property
    def reasoning(self) -> str:
        """The conversation's reasoning setting: "default" or a `Parameters.reasoning`."""
        return self.session.conversation.parameters.reasoning or "default"

    def set_reasoning(self, choice: str) -> str | None:
        """Set the conversation's reasoning (one of dialect.REASONING_CHOICES; kept with it);
        returns `reasoning_note()`."""
        if choice not in dialect.REASONING_CHOICES:
            raise ValueError(f"not a reasoning setting: {choice!r}")
        parameters = self.session.conversation.parameters
        value = None if choice == "default" else choice
        self.session.set_parameters(parameters.model_copy(update={"reasoning": value}))
        return self.reasoning_note()

    def reasoning_note(self) -> str | None:
        """The sentence that says a reasoning setting is not sent to the current model (it
        is not known to take one), else None."""
        if self.reasoning == "default" or self.model is None:
            return None
        if dialect.takes_reasoning(self.facts()):
            return None
        model = one_line(self.model, 80)  # a model id is untrusted text
        return (f"Reasoning {self.reasoning} is not sent: {model} is not known to take a "
                f"reasoning setting (say reasoning = true under [models.\"{self.provider_name}:"
                f"{model}\"] in config.toml if it does).")

    def takes_tools(self) -> bool:
        """Whether the current model may be offered tools (see ModelInfo.takes_tools)."""
        facts = self.facts()
        return facts is not None and facts.takes_tools

    async def learn_whether_model_takes_tools(self) -> None:
        """Read the provider's model list when the current model is not known to take tools
        and the list never was read (a fresh machine, or a message sent before the app's
        start-up list arrived): Chutes says which models take tools there. Only with tool
        servers on, and when config.toml does not say (`tools = …`); a failure leaves it
        unknown (`no_tools_reason` says so)."""
        if (self.model is None or not self.tool_servers() or self.takes_tools()
                or self.catalog.knows_facts(self.provider)):
            return
        own = self.settings.model_settings(self.provider_name, self.model)
        if own is not None and own.tools is not None:
            return
        await self.catalog.refresh(self.provider)

    def no_tools_sentence(self) -> str:
        """That the current model does not take tools, why, and (unless config.toml says
        so) how to say it does; no full stop."""
        model = one_line(self.model or "", 80)  # a model id is untrusted text
        own = self.settings.model_settings(self.provider_name, self.model or "")
        fix = ("" if own is not None and own.tools is False else
               f' (if it does, say tools = true under [models."{self.provider_name}:{model}"]'
               " in config.toml)")
        return f"{model} does not take tools: {self.no_tools_reason()}{fix}"

    def no_tools_reason(self) -> str:
        """Why the current model is not offered tools, as a clause naming where that was
        learnt (the provider's list, its API, config.toml)."""
        provider, model = self.provider, self.model or ""
        name = one_line(provider.display_name, 40)
        name += "'" if name.endswith("s") else "'s"  # Chutes' list, SUTRA's API
        own = self.settings.model_settings(provider.name, model)
        if own is not None and own.tools is False:
            return (f'config.toml says tools = false under [models."{provider.name}:'
                    f'{one_line(model, 80)}"]')
        if not provider.spec.has_models_endpoint:
            return f"{name} API documents no tools"
        known = self.catalog.cached(provider)
        if known.source not in ("live", "cache") or (known.note is not None and not any(
                info.id == model for info in known.models)):
            return f"{name} model list could not be read to learn whether it does"
        listed = next((info for info in known.models if info.id == model), None)
        if listed is None:
            return f"{name} model list does not have it"
        if listed.features:
            return f"{name} model list does not name tools among its supported features"
        return f"{name} model list does not say whether it takes them"

    def compare_note(self) -> str | None:
        """The sentence a comparison shows when the conversation has tool servers on."""
        servers = self.tool_servers()
        if not servers:
            return None
        return (f"Compare sends no tools: the tool servers on for this conversation "
                f"({', '.join(servers)}) are offered only when one model answers.")

    def _toolbox(self, asker: Asker) -> ToolBox | None:
        servers = self.tool_servers()
        if not servers:
            return None
        from tui_chat.core.mcp.approval import Grants
        from tui_chat.core.mcp.exchange import McpToolBox
        from tui_chat.core.mcp.manager import ServerManager

        if self._servers is None:
            self._servers = ServerManager(self.settings.mcp, env=self.env,
                                          elicit=self._elicit)
        grants = self._grants.setdefault(self.session.conversation.id, Grants())
        return McpToolBox(self._servers, servers, asker, grants,
                          approve_all=self.approve_tools)

    async def _elicit(self, request: ElicitRequest) -> ElicitAnswer:
        """A server's request for input (MCP elicitation), put to the user by the asker of
        the exchange in progress, or declined by one that cannot ask."""
        from tui_chat.core.mcp.elicitation import elicit_through

        return await elicit_through(self.asker, request)

    async def _with_tools(self, box: ToolBox | None,
                          start: Callable[[ToolBox | None], AsyncGenerator[SessionEvent, None]]
                          ) -> AsyncGenerator[SessionEvent, None]:
        """The exchange `start` makes, with `box` when the model takes tools; for one that
        does not, sent without them only when the user agrees (else UsageError, nothing
        sent)."""
        if box is not None and not self.takes_tools():
            await self.learn_whether_model_takes_tools()
        if box is not None and not self.takes_tools():
            said = self.no_tools_sentence()
            if not await self.asker.confirm(f"{said}. Send this message without them?"):
                raise UsageError(f"{said}, so nothing was sent: choose a model that takes "
                                 "tools, or turn the tool servers off (for this conversation "
                                 "with F8 in the app; enabled = false under "
                                 "[mcp.servers.NAME] in config.toml).")
            box = None
        async with contextlib.aclosing(start(box)) as events:
            async for event in events:
                yield event

    # --- exchanges ------------------------------------------------------------------------

    def send(self, prompt: str, parameters: Parameters | None = None,
             attachments: Sequence[Attachment] = (), *,
             continue_partial: bool = False,
             asker: Asker = REFUSE) -> AsyncGenerator[SessionEvent, None]:
        """Save `prompt` (with `attachments`), stream and save the reply of the current model.
        Before anything is saved: ContextOverflowError when it would not fit the model's
        window, AttachmentError for attachments the model cannot take. `continue_partial`:
        the reply cut off by a failure that the path ends with is sent as context (the user
        chose to continue from it). `asker`: how the exchange asks the user (`self.asker`
        while it runs)."""
        client, model = self.client(), self.require_model()
        self.check_attachments(attachments)
        self._fit(self.context_plan(prompt, parameters=parameters, attachments=attachments))
        return self._leased(client, self._with_tools(
            self._toolbox(asker), lambda box: self.session.send(
                prompt, client=client, model=model, parameters=parameters,
                continue_partial=continue_partial, attachments=attachments, tools=box)), asker)

    def compare(self, prompt: str, parameters: Parameters | None = None,
                attachments: Sequence[Attachment] = (), *, asker: Asker = REFUSE
                ) -> AsyncGenerator[CompareEvent, None]:
        """Save `prompt` (with `attachments`) and stream one reply from each of
        `compare_models` at once (see core.compare), each through its provider's client;
        `compare_models` is then spent. Before anything is saved: AttachmentError when one
        of the models cannot take the attachments (images, for a model that reads none).
        `asker`: how the exchange asks the user (`self.asker` while it runs)."""
        from tui_chat.core.compare import CompareTarget, compare

        if not self.compare_models:
            raise UsageError("No models are chosen to compare: choose two to four first.")
        check_total(attachments)
        for name, model in self.compare_models:
            check_images(attachments, model, self._facts(name, model).takes_images, name)
        targets = [CompareTarget(self._clients.get(self.settings.resolve_provider(name,
                                                                                  self.env)),
                                 model) for name, model in self.compare_models]
        self.compare_models = ()
        # Every model compared reads the images, or there are none (checked above).
        self.session.takes_images = any(a.kind == "image" for a in attachments)
        return self._leased_all([t.client for t in targets],
                                compare(self.session, prompt, targets, parameters=parameters,
                                        attachments=attachments), asker)

    def choose_reply(self, reply_id: str) -> ActivePathChanged | None:
        """Continue from the compared reply `reply_id` (the others stay as its siblings), with
        its model from the next message on."""
        from tui_chat.core.compare import choose

        change = choose(self.session, reply_id)
        reply = self.store.get_message(reply_id)
        if reply.provider and reply.model:
            with contextlib.suppress(TuiChatError):  # a provider since removed: keep ours
                self.choose(reply.provider, reply.model)
        return change

    def regenerate(self, reply_id: str | None = None, *, asker: Asker = REFUSE
                   ) -> AsyncGenerator[SessionEvent, None]:
        """A reply again in place of `reply_id` (None: the last), the old one kept as a
        branch (see ChatSession.regenerate)."""
        client, model = self.client(), self.require_model()
        self._fit(self.context_plan(path=self._prompt_path(reply_id)))
        return self._leased(client, self._with_tools(
            self._toolbox(asker), lambda box: self.session.regenerate(
                client=client, model=model, reply_id=reply_id, tools=box)), asker)

    def edit_and_resend(self, message_id: str, text: str, *, asker: Asker = REFUSE
                        ) -> AsyncGenerator[SessionEvent, None]:
        if not text.strip():
            raise UsageError("The message is empty: type some text to send.")
        client, model = self.client(), self.require_model()
        parent = self.store.get_message(message_id).parent_id
        self._fit(self.context_plan(text, path=self.store.path_to(parent) if parent else []))
        return self._leased(client, self._with_tools(
            self._toolbox(asker), lambda box: self.session.edit_and_resend(
                message_id, text, client=client, model=model, tools=box)), asker)

    def continue_reply(self, reply_id: str, *, asker: Asker = REFUSE
                       ) -> AsyncGenerator[SessionEvent, None]:
        """Continue reply `reply_id` where it ends, as a new branch beside it (the original
        stays): core.continuation. UsageError, before anything is sent, where the provider
        cannot, or for a reply without text."""
        check_can_continue(self.provider.spec)
        client, model = self.client(), self.require_model()
        self._fit(self.context_plan(path=self.store.path_to(reply_id)))
        return self._leased(client, self.session.continue_reply(
            reply_id, client=client, model=model), asker)

    async def _leased(self, client: ProviderClient,
                      events: AsyncGenerator[SessionEvent, None], asker: Asker = REFUSE
                      ) -> AsyncGenerator[SessionEvent, None]:
        """`events`, with `client` kept open until they end (settings saved meanwhile retire
        it instead of closing it) and `asker` in force; each reply that finishes teaches
        calibration."""
        async with (self._clients.lease(client), self._asking(asker),
                    contextlib.aclosing(events) as stream):
            async for event in stream:
                if isinstance(event, ReplyFinished) and event.message.usage is not None:
                    self._learn(event.message)
                yield event

    async def _leased_all(self, clients: Sequence[ProviderClient],
                          events: AsyncGenerator[CompareEvent, None], asker: Asker
                          ) -> AsyncGenerator[CompareEvent, None]:
        async with contextlib.AsyncExitStack() as stack:
            for client in dict.fromkeys(clients):  # one lease per client: two models may share
                await stack.enter_async_context(self._clients.lease(client))
            async with self._asking(asker), contextlib.aclosing(events) as stream:
                async for event in stream:
                    yield event

    @contextlib.asynccontextmanager
    async def _asking(self, asker: Asker) -> AsyncIterator[None]:
        """`asker` is `self.asker` until the exchange ends, however it ends."""
        before, self.asker = self.asker, asker
        try:
            yield
        finally:
            self.asker = before

    def _learn(self, reply: Message) -> None:
        if reply.parent_id is None:
            return
        with contextlib.suppress(TuiChatError):  # calibration is a nicety: never a failure
            sent = self.session.request(reply.parent_id)
            if all(isinstance(message.content, str) for message in sent):  # no image in it
                self.context.learn(reply, [message.text for message in sent])

    async def aclose(self) -> None:
        await self._clients.aclose()
        if self._servers is not None:
            await self._servers.aclose()
            self._servers = None
