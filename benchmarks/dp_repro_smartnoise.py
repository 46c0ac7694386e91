"""Minimal reproduction: SmartNoise DP-CTGAN fails on fewer records than its default batch size.

smartnoise-synth 1.0.8's ``dpctgan`` (and ``patectgan``) default to ``batch_size=500`` and pass
``batch_size / n`` to Opacus as the Poisson sampling rate without checking it against the number
of training records ``n``; on a table of fewer than 500 records the fit stops inside Opacus
("sample_rate=125.0 is not a valid value. Please provide a float between 0 and 1." for 4
records). Found by ``benchmarks/dp_libraries_study.py`` (the worst-case datasets of Annamalai et
al. (2024b) have 2 to 3 records). Not a privacy violation: no model is released. synthleak's
adapter takes ``batch_size`` (``smartnoise:dpctgan:batch_size=2``) and the study runs the GANs on
the 300-record dataset with ``batch_size=100``.

Run it in the SmartNoise environment (``synthleak env create smartnoise``), which needs only
the library and pandas::

    ~/.cache/synthleak/envs/smartnoise/bin/python benchmarks/dp_repro_smartnoise.py

It prints the library's error and exits 0 when the bug reproduces, 1 when the fit succeeds.
"""

from __future__ import annotations

import sys


def main() -> int:
    import pandas as pd
    from snsynth import Synthesizer

    data = pd.DataFrame({"a": [0, 1, 2, 1], "b": [1, 0, 1, 1]})
    synth = Synthesizer.create("dpctgan", epsilon=1.0, epochs=1, verbose=False)
    try:
        synth.fit(data, categorical_columns=["a", "b"], preprocessor_eps=0.0)
    except ValueError as exc:
        print(f"reproduced: {type(exc).__name__}: {exc}")
        return 0
    print("not reproduced: the fit succeeded on 4 records with the default batch size")
    return 1


if __name__ == "__main__":
    sys.exit(main())
