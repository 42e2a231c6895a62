"""The Textual app: a thin layer over tui_chat.core. Importing it makes Rich and Textual
measure text with the terminal's cell widths (`cells.install`), before anything is measured."""

from tui_chat.ui import cells

cells.install()
