"""Runnable figures with their targets: `python -m benchmarks` runs every bench_*.py module."""
