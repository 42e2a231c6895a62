"""tui-chat: a fast, keyboard-first terminal chat client."""

__version__ = "0.1.0"
