"""The ``utility`` stage: MRE over 3-way marginal counts above 10 and 3-TVD (Annamalai et al.
(2024a), Sec. 5.3), with the control set as the reference.
"""

from __future__ import annotations

import numpy as np

from synthleak import partitioned
from synthleak.metrics.utility import utility_estimate
from synthleak.results import (
    UtilitySection,
)
from synthleak.stages.base import Context, Sections, Stage, StageOutput, needs_synthetic


def _utility(ctx: Context, rng: np.random.Generator) -> StageOutput:
    """MRE>10 and 3-TVD of the release with bootstrap intervals over the marginals, and the
    same measures between the training records and the control set as the reference."""
    assert ctx.synthetic is not None
    ref = " and of the control set (reference)" if ctx.control is not None else ""
    ctx.log(f"utility: MRE over 3-way marginals and 3-TVD of the release{ref}")
    counter = partitioned.utility_counter(ctx.runtime.sub("utility"))  # by partition on a cluster
    u = utility_estimate(ctx.train, ctx.synthetic, ctx.control, rng=rng, counter=counter)
    return StageOutput(sections=Sections(utility=UtilitySection.from_estimate(u)))


STAGE = Stage("utility", "Utility", needs_synthetic, _utility, kept=True)
