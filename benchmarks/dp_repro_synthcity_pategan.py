"""Minimal reproduction: synthcity's PATE-GAN trains its student discriminator on the real data.

In PATE-GAN (Jordon et al. 2019) only the teachers see the training records; the student
discriminator learns from generated records labelled by the teachers' noisy votes, which is
what the PATE moments accountant charges for. synthcity 0.2.12's ``PATEGAN.fit`` hands the
training records to ``TabularGAN.fit`` and the shared GAN loop
(``GAN._train_epoch_discriminator``) feeds them, labelled real and without clipping or noise,
into the same discriminator loss as the teacher-labelled samples (no per-record clipping, no
noise); the generator is then trained against that discriminator. No privacy cost is counted
for these records, so the released model carries no differential-privacy guarantee whatever
``epsilon`` says. Ganev, Annamalai and De Cristofaro ("The elusive pursuit of reproducing
PATE-GAN", 2024) report privacy violations across PATE-GAN implementations; this script
isolates the cause found in synthcity's code by ``benchmarks/dp_libraries_study.py`` (row
``worst--synthcity_pategan_epsilon=1``).

The script fits synthcity's PATE-GAN (epsilon = 1, ten teachers, one outer round) on twelve
records and records every batch the discriminator is trained on as "real": it reproduces when
those batches are the training records themselves. Run it in the synthcity environment
(``synthleak env create synthcity``), which needs only the library::

    ~/.cache/synthleak/envs/synthcity/bin/python benchmarks/dp_repro_synthcity_pategan.py

It prints what it found and exits 0 when the bug reproduces, 1 otherwise.
"""

from __future__ import annotations

import sys


def main() -> int:
    import numpy as np
    import pandas as pd
    import torch
    from synthcity.plugins.core.models import gan as gan_module
    from synthcity.plugins.privacy.plugin_pategan import PATEGAN

    seen: list[np.ndarray] = []
    original = gan_module.GAN._train_epoch_discriminator

    def spy(self, X, cond, fake_labels_generator, true_labels_generator):  # type: ignore[no-untyped-def]
        seen.append(X.detach().cpu().numpy().copy())  # the batch the loss labels "real"
        return original(self, X, cond, fake_labels_generator, true_labels_generator)

    gan_module.GAN._train_epoch_discriminator = spy  # type: ignore[method-assign]
    rng = np.random.default_rng(0)
    data = pd.DataFrame(
        {"a": rng.integers(0, 3, 12).astype(str), "b": rng.integers(0, 2, 12).astype(str)}
    )
    torch.manual_seed(0)
    np.random.seed(0)  # noqa: NPY002 (synthcity draws from the global state)
    model = PATEGAN(max_iter=1, generator_n_iter=5, n_teachers=10, epsilon=1.0, batch_size=12)
    model.fit(data)
    encoded = np.asarray(model.model.encode(data), dtype=float)
    real_rows = {tuple(np.round(r, 6)) for r in encoded}
    fed = np.concatenate(seen) if seen else np.zeros((0, encoded.shape[1]))
    from_data = sum(tuple(np.round(r, 6)) in real_rows for r in fed)
    print(
        f"discriminator steps: {len(seen)}; rows fed as real: {len(fed)}, of which {from_data} "
        f"are training records (encoded); training records: {len(data)}"
    )
    if len(fed) and from_data == len(fed):
        print(
            "reproduced: the student discriminator is trained on the training records "
            "themselves, outside the PATE accountant"
        )
        return 0
    print("not reproduced: the discriminator saw no training record")
    return 1


if __name__ == "__main__":
    sys.exit(main())
