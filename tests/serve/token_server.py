"""`tui-chat serve` as it runs on an address other than loopback (with a token), but bound to
127.0.0.1 so that tests never listen on the network: `python -m tests.serve.token_server
PORT TOKEN`."""

from __future__ import annotations

import asyncio
import sys

from tui_chat.commands.serve import _serve, make_server

if __name__ == "__main__":
    port, token = int(sys.argv[1]), sys.argv[2]
    asyncio.run(_serve(make_server("127.0.0.1", port, token), "127.0.0.1", port, token))
