"""Where the encrypted reply's extra CPU goes (issue 27), inside the benchmark's own pipeline:
bench_e2ee's reads (the loopback fake in its own process, plain and encrypted in pairs), with
the decrypting reader's common path (one chunk event a read) doing, in turn:

- `whole`: strict base64, then ChaCha20-Poly1305 (as tui_chat.core.e2ee does);
- `base64`: the base64 only, handing on the plaintext recorded from an earlier reply;
- `neither`: only the recorded plaintext.

`whole - base64` is the decryption's share, `base64 - neither` the base64's (and its slice),
`neither` over plain what is left: the reader's generator and checks, the larger frames
through h11 and more reads. The last 200 chunks of a reply are always decrypted (the number
read by the common path varies a little from reply to reply, and the last one carries the
finish reason). A measuring tool, not a figure: the reader is a copy of today's with its
common path replaced (an assertion stops it when that path's code changes).

Run: `python -m benchmarks.e2ee_parts [PAIRS]` (default 7; not part of `python -m
benchmarks`, which runs the bench_* modules).
"""

from __future__ import annotations

import asyncio
import sys
import types
from pathlib import Path
from typing import Any

import msgspec

from benchmarks.bench_e2ee import CHUNKS, fake_e2ee_process, read
from benchmarks.common import median
from tui_chat.core import e2ee
from tui_chat.core.client import ProviderClient
from tui_chat.core.config import Settings

COMMON_PATH = '''                try:
                    box = b64decode(data[start:stop], None, True)
                except base64_error:
                    pass  # not Chutes' shape after all: read line by line below
                else:
                    yield aead.decrypt(box[:12], box[12:], None) + b"\\n\\n"
                    continue
'''
REPLACED = '''                yield _part(data[start:stop], aead, b64decode)
                continue
'''


class Parts:
    """The common path's work, as chosen by `mode`."""

    def __init__(self) -> None:
        self.mode, self.recorded, self.index = "record", [], 0  # type: ignore[var-annotated]

    def __call__(self, sealed: bytes, aead: Any, b64decode: Any) -> bytes:
        mode, index = self.mode, self.index
        self.index = index + 1
        if mode == "neither" and index < CHUNKS - 200:
            return self.recorded[index]  # type: ignore[no-any-return]
        box = b64decode(sealed, None, True)
        if mode == "base64" and index < CHUNKS - 200:
            return self.recorded[index]  # type: ignore[no-any-return]
        plain: bytes = aead.decrypt(box[:12], box[12:], None) + b"\n\n"
        if mode == "record":
            self.recorded.append(plain)
        return plain


def patched_reader(parts: Parts) -> Any:
    source = Path(e2ee.__file__).read_text()
    assert COMMON_PATH in source, "tui_chat.core.e2ee's common path changed: update this tool"
    module = types.ModuleType("e2ee_parts")
    module.__dict__["_part"] = parts
    exec(compile(source.replace(COMMON_PATH, REPLACED), "e2ee_parts", "exec"), module.__dict__)
    return module._decrypted


async def measure(url: str, pairs: int) -> None:
    parts = Parts()
    e2ee._decrypted = patched_reader(parts)
    provider = Settings().resolve_provider("chutes", env={"CHUTES_BASE_URL": url})
    provider = msgspec.structs.replace(provider, spec=msgspec.structs.replace(
        provider.spec, e2ee="auto"))
    extra: dict[str, list[float]] = {"whole": [], "base64": [], "neither": []}
    plain_cpu: list[float] = []
    async with ProviderClient(provider, "cpk_bench_key_0123456789") as client:
        await read(client, "off")
        await read(client, "required")  # records the plaintext
        for _ in range(pairs):
            for mode, values in extra.items():
                parts.mode, parts.index = mode, 0
                _, plain = await read(client, "off")
                _, private = await read(client, "required")
                values.append((private - plain) / CHUNKS * 1e6)
                plain_cpu.append(plain / CHUNKS * 1e6)
    whole, b64, neither = (median(extra[k]) for k in ("whole", "base64", "neither"))
    print(f"plain: {median(plain_cpu):.2f} us of CPU a chunk; encrypted, over it: "
          f"{whole:.2f} us = decryption {whole - b64:.2f} + base64 {b64 - neither:.2f} "
          f"+ the rest {neither:.2f} (medians of {pairs} pairs)")


if __name__ == "__main__":
    with fake_e2ee_process() as address:
        asyncio.run(measure(address, int(sys.argv[1]) if sys.argv[1:] else 7))
