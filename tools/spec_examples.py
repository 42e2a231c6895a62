"""Extract the examples of the CommonMark and GFM specifications into tests/ (a JSON file).

The examples are the inputs of tests/ui/test_streamed_equals_whole.py: each one, streamed
through the live reply in any chunking, must draw the rows it draws whole. Run from the
repository's root, with the two `spec.txt` files (CommonMark's at its 0.31.2 tag, and
cmark-gfm's test/spec.txt for the extensions):

    python tools/spec_examples.py COMMONMARK_SPEC_TXT GFM_SPEC_TXT

From the GFM file only the examples of its extensions are kept (tables, strikethrough,
autolinks, tag filter, and the task lists, marked "disabled" there): the rest is an older
copy of CommonMark's. The specifications are CC-BY-SA 4.0: the notice goes with the data
(see tests/ui/spec/README.md).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

FENCE = "`" * 32
OUT = Path("tests/ui/spec/examples.json")
LICENCE = (
    "The examples are taken from the CommonMark Spec, version 0.31.2, Copyright (C) 2014-16 "
    "John MacFarlane (https://spec.commonmark.org/0.31.2/), and from the GitHub Flavored "
    "Markdown Spec, version 0.29-gfm, by GitHub, Inc., based on the CommonMark Spec "
    "(https://github.github.com/gfm/). Both are released under the Creative Commons "
    "CC-BY-SA 4.0 license: https://creativecommons.org/licenses/by-sa/4.0/. This file is "
    "a derived work under the same license; the extraction changed only the tab marker "
    "(U+2192) back into a tab, as the specs' own test scripts do.")
EXTENSIONS = {"table": "table", "strikethrough": "strikethrough", "autolink": "autolink",
              "tagfilter": "tagfilter", "disabled": "tasklist"}


def examples(spec: str) -> list[dict[str, Any]]:
    """Every example of `spec` (a spec.txt): its number, section, extension and Markdown."""
    found: list[dict[str, Any]] = []
    section = ""
    lines = iter(spec.splitlines())
    number = 0
    for line in lines:
        heading = re.match(r"#{1,6} +(.*)", line)
        if heading:
            section = heading.group(1).strip()
        if not line.startswith(FENCE + " example"):
            continue
        number += 1
        extension = line.removeprefix(FENCE + " example").strip()
        body: list[str] = []
        for inner in lines:
            if inner == ".":
                break
            body.append(inner + "\n")
        for inner in lines:  # the HTML expected: not needed here
            if inner == FENCE:
                break
        found.append({"example": number, "section": section,
                      "extension": EXTENSIONS.get(extension, extension),
                      "markdown": "".join(body).replace("\u2192", "\t")})
    return found


def main(commonmark: str, gfm: str) -> None:
    common = [dict(item, spec="CommonMark 0.31.2")
              for item in examples(Path(commonmark).read_text(encoding="utf-8"))]
    extended = [dict(item, spec="GFM 0.29")
                for item in examples(Path(gfm).read_text(encoding="utf-8"))
                if item["extension"]]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"licence": LICENCE, "examples": common + extended},
                              ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{len(common)} CommonMark and {len(extended)} GFM extension examples -> {OUT}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
