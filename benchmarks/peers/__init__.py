"""tui-chat beside its peers, elia and oterm, in a real terminal: `python -m benchmarks peers`.

Not part of the test suite, nor of `python -m benchmarks` without arguments: it installs
other apps and takes 15–30 minutes.

What it does:
- installs elia (`elia-chat`) and oterm at pinned versions, every dependency pinned too
  (`constraints-elia.txt`, `constraints-oterm.txt`), each into a virtual environment of its
  own outside the repository, under `$TMPDIR/tui-chat-bench-cache/peers` (or
  `$TUI_CHAT_BENCH_CACHE/peers`), reused on later runs; tui-chat is the one in this checkout;
- starts the loopback fake provider (`python -m tests.fakeprovider`) in its own process and
  points each app at it as an OpenAI-compatible base URL (tui-chat: `CHUTES_BASE_URL`; elia:
  a model in its config.toml with `api_base`; oterm: an `openaiCompatible` endpoint in its
  config.json), each run in fresh throwaway HOME/XDG directories;
- drives each app in tmux at 120×40 (`send-keys`, `capture-pane -p`; terminal.py) through
  the scenarios of scenarios.py, run by run interleaved across the apps, and prints the
  medians and their ratios to tui-chat as a Markdown table (the README's Speed section shows
  one), with the versions, the machine, its reference speed and load before and after;
  every run goes to benchmarks/results/peers.json.

Needs tmux (`apt-get install -y tmux` on Debian/Ubuntu); without it, it says so and stops.
Options: `--runs N` (default 3), `--timeout S` (per run, default 60), `--only reply,paced,
open500,open2000,startup`, `--apps tui-chat,elia,oterm`; `--show` prints the last table again.
"""
