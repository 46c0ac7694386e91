"""Answer sampled counting queries with bitsets in every process of a benchmark run.

``synthleak.queries.subset_counts`` computes all ``2^F`` answers of a dataset (dense histogram +
zeta transform) whenever ``F <= MAX_DENSE_BITS`` (20), even when only ``N`` of them are used.
With the risk maps' ``N = 1,000`` queries per record, bitsets are 10x (Adult, F = 15) to 50x
(UK Census, F = 17) faster on datasets of 500 records, with identical answers (both paths are
exact). Putting this directory first on ``PYTHONPATH`` makes Python import this file at start-up
in the main process *and* in every spawned worker, and sets ``MAX_DENSE_BITS = 0`` (bitsets
always). Only the ground-truth and screening maps of ``benchmarks/riskmap_truth.py`` are run this
way (see ``benchmarks/RESULTS_census.md``); Table 2 (N = 100,000 of 2^F) keeps the dense path.
"""

import synthleak.queries as _queries

_queries.MAX_DENSE_BITS = 0
