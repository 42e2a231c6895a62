"""What the larger frames of an encrypted reply cost below tui-chat (issue 27): httpx (h11,
httpcore) reading 20,000 chunked-encoding frames of 221 bytes (bench_e2ee's plain reply: 4.43
MB) and of 350 bytes (its encrypted reply: 7.00 MB), nothing parsed, from a loopback server in
a thread of this process (its writes, 16 KB each, are a small share of the CPU counted).

Run: `python -m benchmarks.e2ee_frames [RUNS]` (default 7; the median of each). A measuring
tool, not a figure: not part of `python -m benchmarks`.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx

from benchmarks.common import median

FRAMES = 20_000
SIZES = (221, 350)


class _Frames(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        frame = b"x" * (int(self.path[1:]) - 2) + b"\n\n"
        body = b"".join(b"%x\r\n%s\r\n" % (len(frame), frame) for _ in range(FRAMES))
        self.send_response(200)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for start in range(0, len(body), 16384):
            self.wfile.write(body[start:start + 16384])
        self.wfile.write(b"0\r\n\r\n")


async def measure(url: str, runs: int) -> dict[int, float]:
    cpu: dict[int, list[float]] = {size: [] for size in SIZES}
    async with httpx.AsyncClient() as client:
        for _ in range(runs):
            for size in SIZES:
                async with client.stream("GET", f"{url}{size}") as response:
                    start = time.process_time()
                    async for _piece in response.aiter_bytes():
                        pass
                    cpu[size].append(time.process_time() - start)
    return {size: median(values) / FRAMES * 1e6 for size, values in cpu.items()}


def main(runs: int) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Frames)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        figures = asyncio.run(measure(f"http://127.0.0.1:{server.server_address[1]}/", runs))
    finally:
        server.shutdown()
        server.server_close()
    print(", ".join(f"{size}-byte frames: {us:.2f} us of CPU a frame"
                    for size, us in figures.items())
          + f" (medians of {runs} reads of {FRAMES:,} frames)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if sys.argv[1:] else 7)
