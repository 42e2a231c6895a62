"""Stand-in editors for the tests of composing in $VISUAL / $EDITOR: small Python scripts."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def stand_in(folder: Path, name: str, body: str) -> Path:
    """An executable Python script `name` in `folder` that runs `body` with `path`, the file it
    is given; it first records what it saw (its arguments, its name, the file's mode and text)
    in `seen.json` beside it."""
    script = folder / name
    script.write_text(
        f"#!{sys.executable}\n"
        "import json, os, pathlib, stat, sys\n"
        "path = pathlib.Path(sys.argv[-1])\n"
        f"seen = pathlib.Path({str(folder / 'seen.json')!r})\n"
        "seen.write_text(json.dumps({'argv': sys.argv[1:], 'name': pathlib.Path(sys.argv[0]).name,"
        " 'mode': stat.S_IMODE(os.stat(path).st_mode), 'text': path.read_text('utf-8')}))\n"
        + body, encoding="utf-8")
    script.chmod(0o755)
    return script


def seen(folder: Path) -> dict[str, object]:
    """What the stand-in in `folder` recorded."""
    result: dict[str, object] = json.loads((folder / "seen.json").read_text("utf-8"))
    return result


def edited_file(folder: Path) -> Path:
    """The file the stand-in in `folder` was given."""
    argv = seen(folder)["argv"]
    assert isinstance(argv, list)
    return Path(argv[-1])
