"""The ``split`` stage: when only a generator is given, hold out ``control_fraction`` of the
original as the control set.
"""

from __future__ import annotations

import numpy as np

from synthleak.stages.base import Context, Skip, Stage, StageOutput


def _needs_split(ctx: Context) -> Skip | None:
    if ctx.synthetic is not None or ctx.control is not None:
        return Skip(reason="the release or the control set was given")
    return None


def _split(ctx: Context, rng: np.random.Generator) -> StageOutput:
    """Sets the context's training and control parts (an input of the audit, so not kept)."""
    n = len(ctx.original)
    perm = rng.permutation(n)
    n_ctl = max(1, round(ctx.options.control_fraction * n))
    ctx.control_rows = np.sort(perm[:n_ctl])
    ctx.control = ctx.original.take(ctx.control_rows)
    ctx.train_rows = np.sort(perm[n_ctl:])
    ctx.train = ctx.original.take(ctx.train_rows)
    note = (
        f"{n_ctl} original records ({ctx.options.control_fraction:.0%}) were held out as the "
        f"control set; '{ctx.options.generator}' was fit on the other {len(ctx.train)} records"
    )
    return StageOutput(notes=(note,))


STAGE = Stage("split", "Control set held out", _needs_split, _split, input=True)
