"""Benchmarks and reproductions of synthleak (run as ``python -m benchmarks.<script>``)."""
