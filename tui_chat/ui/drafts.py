"""The prompt is never lost: its unsent text follows the conversation it was written in.

The prompt's text belongs to the conversation on screen. When another one is shown (the
conversation screen posts `ConversationShown`), the text is kept as the draft of the one left
and the draft of the one shown (if any) takes its place; at quit, the text is kept too
(`core.drafts` writes them). While a message is being edited the prompt holds that message,
not a draft: it is not kept. A conversation not saved yet keeps its draft under `NEW`; once
it is saved (its first message sent), that draft is gone with the message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui_chat.core.drafts import NEW, Drafts

if TYPE_CHECKING:
    from tui_chat.core.session import ChatSession
    from tui_chat.core.workspace import Workspace
    from tui_chat.ui.widgets.prompt_input import PromptInput


def draft_key(session: ChatSession) -> str:
    return session.conversation.id if session.is_saved else NEW


class DraftKeeper:
    """Between the workspace's conversation and the prompt (see the module doc)."""

    def __init__(self, drafts: Drafts, workspace: Workspace) -> None:
        self.drafts = drafts
        self.workspace = workspace
        self._session: ChatSession | None = None  # whose text the prompt holds
        self._key = NEW  # that one's key when it was shown

    def shown(self, prompt: PromptInput, *, editing: bool) -> str | None:
        """The workspace's conversation is on screen: keep the prompt's text as the draft
        of the one before, and put this one's draft in the prompt. The sentence when the
        drafts could not be written, else None."""
        session = self.workspace.session
        if session is self._session:
            return None
        problem = self.keep(prompt, editing=editing)
        self._session, self._key = session, draft_key(session)
        draft = self.drafts.get(self._key)
        if draft != prompt.text:
            prompt.load_text(draft)
            prompt.move_cursor(prompt.document.end)
        return problem

    def keep(self, prompt: PromptInput, *, editing: bool) -> str | None:
        """Keep the prompt's text as the draft of the conversation it was written in, and
        write the drafts (the sentence when they could not be, else None)."""
        if self._session is not None and not editing:
            key = draft_key(self._session)
            if key != self._key:  # saved since it was shown: its draft went with its message
                self.drafts.put(self._key, "")
                self._key = key
            self.drafts.put(key, prompt.text)
        return self.drafts.save()
