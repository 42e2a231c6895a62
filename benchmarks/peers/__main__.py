"""`python -m benchmarks.peers`, the same as `python -m benchmarks peers`."""

import sys

from benchmarks.peers.runner import main

sys.exit(main(sys.argv[1:]))
