"""Runs the real app headless in its own process, for the crash and two-instance tests.

    python -m tests.faults.app_driver PROMPT [PROMPT ...] [--continue] [--hold]

Settings and store come from the environment exactly as for `tui-chat` (build_services). Each
prompt is typed and sent, one reply at a time; "sent N" and "done N" lines on stdout tell the
test where it is. With --hold the process keeps the app running after the last send (until
it is killed); otherwise it quits with Ctrl+Q once every reply has ended.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from tui_chat.commands.app import build_services
from tui_chat.ui.app import TuiChatApp


async def drive(prompts: list[str], *, continue_last: bool, hold: bool) -> int:
    services = build_services()
    app = TuiChatApp(services, continue_last=continue_last)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            screen = app.conversation_screen
            assert screen is not None
            for index, prompt in enumerate(prompts):
                screen.prompt.insert(prompt)
                await pilot.press("enter")
                print(f"sent {index}", flush=True)
                if hold and index == len(prompts) - 1:
                    await asyncio.sleep(3600)
                await pilot.pause(0.05)
                while screen.streaming:
                    await pilot.pause(0.02)
                print(f"done {index}", flush=True)
            await pilot.press("ctrl+q")
    finally:
        services.store.close()
    return int(app.return_code or 0)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("prompts", nargs="+")
    parser.add_argument("--continue", dest="continue_last", action="store_true")
    parser.add_argument("--hold", action="store_true")
    args = parser.parse_args()
    return asyncio.run(drive(args.prompts, continue_last=args.continue_last, hold=args.hold))


if __name__ == "__main__":
    sys.exit(main())
