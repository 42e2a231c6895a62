"""The Textual app: a thin layer over tui_chat.core."""
