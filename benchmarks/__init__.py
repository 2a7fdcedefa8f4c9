"""bordir benchmarks: run them all with ``python -m benchmarks``; see benchmarks/README.md."""
