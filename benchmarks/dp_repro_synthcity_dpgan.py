"""Minimal reproduction: synthcity's DP-GAN fails inside Opacus on a two-record table.

synthcity 0.2.12's ``DPGAN`` (Xie et al. 2018, DP-SGD on the discriminator through Opacus)
splits validation records off its training records (``GAN._train_test_split``, through its
data loader's sampler). On a table of two records the training loader it hands to Opacus can
be empty, and Opacus computes ``sample_rate = 1 / len(data_loader)``:
the fit raises ``ZeroDivisionError`` instead of training or refusing the input. Whether it
happens depends on the seed (which records are held out), so a fit on the same two-record table
fails for some seeds and not for others. The worst-case datasets of
``benchmarks/dp_libraries_study.py`` (rows ``worst--synthcity_dpgan_*``) have two records (OUT)
and three (IN), so this is why some of those rows' generator runs fail, more often on the OUT
datasets. It is an edge case of the library, not a privacy flaw; but a failure that depends on
the input is itself observable, and the study, which scores releases only, does not count it.

The script fits synthcity's DP-GAN (epsilon = 4, delta = 1e-5, 5 iterations) on the same
two-record table with six seeds and prints, per seed, whether the fit succeeded or the error
and the frame that raised it. Run it in the synthcity environment
(``synthleak env create synthcity``), which needs only the library::

    ~/.cache/synthleak/envs/synthcity/bin/python benchmarks/dp_repro_synthcity_dpgan.py

It exits 0 when at least one seed reproduces the ZeroDivisionError inside Opacus, 1 otherwise.
"""

from __future__ import annotations

import sys
import traceback


def main() -> int:
    import pandas as pd
    import torch
    from synthcity.plugins.privacy.plugin_dpgan import plugin as DPGAN

    torch.set_num_threads(1)
    data = pd.DataFrame({"age": ["50", "70"], "workclass": ["State-gov", "Private"]})
    reproduced = 0
    for seed in range(6):
        model = DPGAN(
            n_iter=5,
            epsilon=4.0,
            delta=1e-5,
            n_iter_print=6,  # no early stopping on the held-out records
            random_state=seed,
            device=torch.device("cpu"),
        )
        try:
            model.fit(data)
        except ZeroDivisionError as exc:
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            where = f"{frame.filename.split('site-packages/')[-1]}:{frame.lineno} {frame.line}"
            print(f"seed {seed}: ZeroDivisionError: {exc} at {where}")
            reproduced += "opacus" in frame.filename
            continue
        except Exception as exc:  # any other failure, reported as it is
            print(f"seed {seed}: {type(exc).__name__}: {exc}")
            continue
        print(f"seed {seed}: fitted")
    if reproduced:
        print(
            f"reproduced on {reproduced} of 6 seeds: Opacus divides by the length of an empty "
            "data loader (synthcity held out the records it trains on)"
        )
        return 0
    print("not reproduced: no seed raised ZeroDivisionError inside Opacus")
    return 1


if __name__ == "__main__":
    sys.exit(main())
