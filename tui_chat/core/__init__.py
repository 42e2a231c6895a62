"""The headless core of tui-chat: models, providers, streaming client, store, config.

Nothing in this package imports Textual; scripts and the `ask` command use it alone.
"""
