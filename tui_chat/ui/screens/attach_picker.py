"""Pick a file to attach: type a path (Tab completes it, as in a shell) or choose it in the
tree of the current folder. Dismisses with the path as given (relative to the current folder
when it is inside it), or None."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DirectoryTree, Input, Label, Static

from tui_chat.core.attachments import complete_path
from tui_chat.core.text import one_line


class PathInput(Input):
    """An input whose Tab completes the path typed so far (or, with nothing to complete,
    moves on to the tree)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "complete", "Complete", id="attach.complete", show=False,
                tooltip="Complete the path, as far as the files agree"),
    ]

    def __init__(self, cwd: Path, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.cwd = cwd

    def action_complete(self) -> None:
        """Complete the path; with nothing to add, Tab goes on to the tree, as Tab does."""
        completed = complete_path(self.value, self.cwd) if self.value else None
        if completed is None or completed == self.value:
            self.screen.focus_next()
            return
        self.value = completed
        self.cursor_position = len(completed)


class FileTree(DirectoryTree):
    """The folder's tree, each name drawn inertly: a file name is untrusted text (a cloned
    repository or an unpacked archive chooses it), and escape sequences in one (OSC 52 sets
    the clipboard, OSC 0 the title, CSI 2J clears the screen) or a bidi override would reach
    the terminal as they are. Control characters go, a newline shows as a space."""

    def process_label(self, label: str | Text) -> Text:
        plain = label.plain if isinstance(label, Text) else label
        return super().process_label(one_line(plain, 200))


class AttachScreen(ModalScreen[str | None]):
    DEFAULT_CSS = """
    AttachScreen { align: center middle; }
    AttachScreen > Vertical {
        width: 90; max-width: 95%; height: 80%;
        border: thick $primary 70%; background: $surface; padding: 1 2;
    }
    AttachScreen DirectoryTree { height: 1fr; margin-top: 1; }
    AttachScreen .problem { color: $error; height: auto; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="attach.cancel"),
    ]

    def __init__(self, cwd: Path) -> None:
        super().__init__()
        self.cwd = cwd

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Attach a file: type its path (Tab completes) and press Enter, or "
                         "choose it below. Text files go as a fenced block; images (PNG, "
                         "JPEG, WebP, GIF) to models that read them.", markup=False)
            yield PathInput(self.cwd, placeholder="path/to/file", id="path")
            yield Label("", classes="problem", id="problem", markup=False)
            yield FileTree(self.cwd, id="tree")

    def on_mount(self) -> None:
        self.query_one("#path", PathInput).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        written = event.value.strip()
        path = Path(written).expanduser()
        if not written or not (path if path.is_absolute() else self.cwd / path).is_file():
            self.query_one("#problem", Label).update(
                f"There is no file {written!r}; type a path, or choose a file below."
                if written else "Type a path, or choose a file below.")
            return
        self.dismiss(written)

    def on_directory_tree_file_selected(self, event: DirectoryTree.FileSelected) -> None:
        event.stop()
        try:
            shown = str(event.path.relative_to(self.cwd))
        except ValueError:
            shown = str(event.path)
        self.dismiss(shown)

    def action_cancel(self) -> None:
        self.dismiss(None)
