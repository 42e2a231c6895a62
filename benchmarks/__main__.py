"""Run every benchmark: `python -m benchmarks [NAME ...]` (names: client, store, ui, ...).

`python -m benchmarks peers [OPTIONS]` runs the comparison with elia and oterm instead
(benchmarks/peers: it installs them, needs tmux and takes far longer; never run by default).
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import sys
from pathlib import Path

from benchmarks.common import RESULTS, Figure, report


def main(argv: list[str]) -> int:
    if argv[:1] == ["peers"]:
        from benchmarks.peers.runner import main as peers

        return peers(argv[1:])
    here = Path(__file__).parent
    names = [m.name.removeprefix("bench_") for m in pkgutil.iter_modules([str(here)])
             if m.name.startswith("bench_")]
    chosen = argv or sorted(names)
    everything: dict[str, Figure] = {}
    for name in chosen:
        module = importlib.import_module(f"benchmarks.bench_{name}")
        print(f"== {name}", flush=True)
        figures: dict[str, Figure] = module.run()
        report(name, figures)
        everything.update(figures)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "all.json").write_text(json.dumps(everything, indent=2) + "\n")
    missed = [key for key, item in everything.items() if not item["ok"]]
    print(f"\n{len(everything) - len(missed)} of {len(everything)} figures meet their targets"
          + (f"; missed: {', '.join(missed)}" if missed else "."))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
