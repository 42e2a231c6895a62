"""Run inside a tmux window: print each string of a JSON list at the start of a cleared row,
ask the terminal where its cursor is (CSI 6n), and write the columns as a JSON list."""

from __future__ import annotations

import json
import os
import sys
import termios
import tty
from pathlib import Path


def main(source: str, target: str) -> None:
    strings = json.loads(Path(source).read_text(encoding="utf-8"))
    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    tty.setraw(fd)
    columns = []
    try:
        for text in strings:
            os.write(sys.stdout.fileno(), ("\r\x1b[2K" + text + "\x1b[6n").encode())
            reply = b""
            while not reply.endswith(b"R"):
                reply += os.read(fd, 1)
            columns.append(int(reply[reply.rindex(b";") + 1:-1]) - 1)
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
    partial = Path(target + ".partial")
    partial.write_text(json.dumps(columns))
    partial.replace(target)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
