"""The command line's commands. `tui_chat.cli` parses the arguments; `context.Context` is the
one place that reads the environment, loads the settings and opens the store."""
