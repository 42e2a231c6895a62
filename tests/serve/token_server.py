"""`tui-chat serve` as it runs on an address other than loopback, but bound to 127.0.0.1 so
that tests never listen on the network: `python -m tests.serve.token_server PORT TOKEN
[NAME]`. NAME (default 127.0.0.1) is the address the server is served at, as `--host NAME`
would give it: a name that is not loopback (the browser test maps it to 127.0.0.1) makes the
guard an off-loopback one."""

from __future__ import annotations

import asyncio
import sys

from tui_chat.commands.serve import _serve, make_server

if __name__ == "__main__":
    port, token = int(sys.argv[1]), sys.argv[2]
    name = sys.argv[3] if len(sys.argv) > 3 else "127.0.0.1"
    asyncio.run(_serve(make_server(name, port, token), name, port, token, bind="127.0.0.1"))
