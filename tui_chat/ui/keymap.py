"""The user's keys: `[keys]` in config.toml maps binding ids to one or more keys.

    [keys]
    "conversation.model" = "f4"              # one key
    "messages.copy" = ["c", "ctrl+c"]         # several

Every binding of the app has an id (`app.quit`, `conversation.new`, `messages.copy`, …; the
README lists them all). Textual applies the map (`App.set_keymap`), so the footer shows the
user's keys; the help screen and the palette show them too (`remapped`). An unknown id, a key
that is not a key, or two bindings of one screen on the same key is one sentence naming the
file and the entry; the rest of the map still applies.

A key the prompt uses while you type (its own keys, and those it inherits from Textual's
TextArea: F6 selects the line, Ctrl+Y redoes, ...) never reaches a binding of the screen or
the app behind it: given to one of those, it is named as a conflict and left out, so the
action keeps the key it had rather than disappearing (`_taken_by_the_prompt`).

A map of any size is checked in time linear in its size (config.toml itself is at most
MAX_CONFIG_BYTES), at most MAX_KEYS_PER_BINDING keys a binding apply, and at most
MAX_PROBLEMS sentences are said (then one that counts the rest).
"""

from __future__ import annotations

import dataclasses
import pkgutil
import re
from collections.abc import Iterable, Mapping
from importlib import import_module

from textual.binding import Binding, BindingType
from textual.dom import DOMNode

from tui_chat.core.text import one_line

BINDING_CLASSES = (
    "tui_chat.ui.app:TuiChatApp",
    "tui_chat.ui.screens.attach_picker:AttachScreen",
    "tui_chat.ui.screens.attach_picker:PathInput",
    "tui_chat.ui.screens.confirm:ConfirmScreen",
    "tui_chat.ui.screens.confirm:TextPromptScreen",
    "tui_chat.ui.screens.context_offer:ContextOverflowScreen",
    "tui_chat.ui.screens.conversation:ConversationScreen",
    "tui_chat.ui.screens.conversation_settings:ConversationSettingsScreen",
    "tui_chat.ui.screens.elicitation:ElicitFormScreen",
    "tui_chat.ui.screens.elicitation:ElicitUrlScreen",
    "tui_chat.ui.screens.help:HelpScreen",
    "tui_chat.ui.screens.model_picker:ModelPickerScreen",
    "tui_chat.ui.screens.settings:SettingsScreen",
    "tui_chat.ui.screens.tool_approval:ToolApprovalScreen",
    "tui_chat.ui.widgets.attachment_list:AttachmentList",
    "tui_chat.ui.widgets.compare_view:CompareView",
    "tui_chat.ui.widgets.conversation_list:ConversationList",
    "tui_chat.ui.widgets.message_list:MessageList",
    "tui_chat.ui.widgets.prompt_input:PromptInput",
)
"""Every class that declares bindings with ids, as `binding_classes` derives them from the
code: a test holds this copy to the derivation (the copy imports only these modules when a
map is checked at start-up; the derivation imports all of tui_chat.ui)."""


def binding_classes() -> list[str]:
    """The place (`module:Class`) of every class of the UI that declares bindings with ids,
    found by importing every module of tui_chat.ui and walking DOMNode's subclasses."""
    import tui_chat.ui

    for info in pkgutil.walk_packages(tui_chat.ui.__path__, "tui_chat.ui."):
        import_module(info.name)
    found: set[str] = set()
    pending: list[type[DOMNode]] = [DOMNode]
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        declared: Iterable[BindingType] = cls.__dict__.get("BINDINGS", [])
        if cls.__module__.startswith("tui_chat.ui.") and any(
                binding.id for binding in Binding.make_bindings(declared)):
            found.add(f"{cls.__module__}:{cls.__qualname__}")
    return sorted(found)


PROMPT = "tui_chat.ui.widgets.prompt_input:PromptInput"
BEHIND_THE_PROMPT = ("tui_chat.ui.app:TuiChatApp",
                     "tui_chat.ui.screens.conversation:ConversationScreen")
"""The classes whose bindings a key the prompt uses never reaches while the prompt has focus."""
MAX_KEYS_PER_BINDING = 8
MAX_PROBLEMS = 5

_KEY = re.compile(r"^(?:(?:ctrl|shift|alt|meta|super|hyper)\+)*[a-z0-9_]+$|^.$")


def declared_bindings() -> dict[str, list[Binding]]:
    """Each binding class's own bindings, by the class's place (`module:Class`)."""
    found: dict[str, list[Binding]] = {}
    for place in BINDING_CLASSES:
        module, name = place.split(":")
        cls = getattr(import_module(module), name)
        declared: Iterable[BindingType] = cls.__dict__.get("BINDINGS", [])
        found[place] = list(Binding.make_bindings(declared))
    return found


def keys_of(value: str | list[str]) -> list[str]:
    """A map entry as a list of keys ("a,b", "a" or ["a", "b"])."""
    items = value if isinstance(value, list) else value.split(",")
    return [item.strip() for item in items if item.strip()]


def check_keymap(keys: Mapping[str, str | list[str]], source: str
                 ) -> tuple[dict[str, str], list[str]]:
    """(the map to apply, one sentence per problem). `source` names the file for the user."""
    declared = declared_bindings()
    known = {b.id for bindings in declared.values() for b in bindings if b.id}
    keymap: dict[str, str] = {}
    problems: list[str] = []
    for binding_id, value in keys.items():
        wanted = keys_of(value)
        bad = [key for key in wanted if not _KEY.match(key)]
        if binding_id not in known:
            problems.append(f"{source} [keys]: '{one_line(binding_id, 40)}' is not a binding id "
                            "(the README lists them); it was left out.")
        elif not wanted or bad:
            what = f"'{one_line(bad[0], 20)}' is not a key" if bad else "no key is given"
            problems.append(f"{source} [keys] '{binding_id}': {what} (write keys like "
                            "\"ctrl+e\", \"f4\" or \"pageup\"); it was left out.")
        else:
            if len(wanted) > MAX_KEYS_PER_BINDING:
                problems.append(f"{source} [keys] '{binding_id}': {len(wanted)} keys are more "
                                f"than a binding takes; the first {MAX_KEYS_PER_BINDING} "
                                "apply.")
            keymap[binding_id] = ",".join(wanted[:MAX_KEYS_PER_BINDING])
    problems.extend(_taken_by_the_prompt(declared, keymap, source))
    for bindings in declared.values():
        problems.extend(_clashes(bindings, keymap, source))
    if len(problems) > MAX_PROBLEMS:
        more = len(problems) - MAX_PROBLEMS + 1
        problems[MAX_PROBLEMS - 1:] = [f"{source} [keys]: {more} more entries have problems "
                                       "like these; they were left out."]
    return keymap, problems


def _taken_by_the_prompt(declared: Mapping[str, list[Binding]], keymap: dict[str, str],
                         source: str) -> list[str]:
    """Keys given to a binding behind the prompt that the prompt itself uses: each named, and
    taken out of `keymap` (a binding left with none keeps its own key)."""
    prompt_class = getattr(import_module(PROMPT.split(":")[0]), PROMPT.split(":")[1])
    uses: dict[str, str] = {}
    # As Textual merges them: a class's binding on a key replaces its bases' on that key.
    for cls in reversed(prompt_class.__mro__):
        for binding in Binding.make_bindings(cls.__dict__.get("BINDINGS", [])):
            uses[binding.key] = binding.description or binding.action
    own = declared.get(PROMPT, [])
    for binding in own:
        if binding.id in keymap:  # moved away: its key is free (the base's went with it)
            uses.pop(binding.key, None)
    for binding in remapped(own, keymap):
        uses[binding.key] = binding.description or binding.action
    problems: list[str] = []
    for place in BEHIND_THE_PROMPT:
        for binding in declared.get(place, []):
            if binding.priority or binding.id not in keymap:
                continue
            keys = keymap[binding.id].split(",")
            kept = [key for key in keys if key not in uses]
            for key in keys:
                if key in uses:
                    problems.append(
                        f"{source} [keys] '{binding.id}': {key} is the prompt's key for "
                        f"'{one_line(uses[key], 40)}', so while you type it would never reach "
                        f"'{binding.id}'; it was left out (choose another key).")
            if kept:
                keymap[binding.id] = ",".join(kept)
            else:
                del keymap[binding.id]  # the binding keeps the key it had
    return problems


def _clashes(bindings: list[Binding], keymap: Mapping[str, str], source: str) -> list[str]:
    """Two bindings of one class now on one key: the remapped one is named."""
    owner: dict[str, Binding] = {}
    problems: list[str] = []
    for binding in remapped(bindings, keymap):
        other = owner.setdefault(binding.key, binding)
        if other is not binding and other.action != binding.action and (
                binding.id in keymap or other.id in keymap):
            moved = binding if binding.id in keymap else other
            kept = other if moved is binding else binding
            problems.append(f"{source} [keys] '{moved.id}': {binding.key} is already "
                            f"'{kept.id}' on the same screen; one of them will not work.")
    return problems


def remapped(bindings: Iterable[Binding], keymap: Mapping[str, str]) -> list[Binding]:
    """`bindings` with the user's keys in place of those declared (for the help screen, the
    palette and the checks above; Textual itself applies the map to the live bindings)."""
    result: list[Binding] = []
    for binding in bindings:
        keys = keymap.get(binding.id) if binding.id else None
        if keys is None:
            result.append(binding)
            continue
        result.extend(dataclasses.replace(binding, key=key, key_display=None)
                      for key in keys.split(","))
    return result

