"""The ``release`` stage: fit the generator on the training part and release as many records."""

from __future__ import annotations

import numpy as np

from synthleak.generators import make_generator
from synthleak.generators.base import domain_note
from synthleak.stages.base import Context, Skip, Stage, StageOutput


def _needs_release(ctx: Context) -> Skip | None:
    return Skip(reason="the release was given") if ctx.synthetic is not None else None


def _release(ctx: Context, rng: np.random.Generator) -> StageOutput:
    """Sets the context's release (an input of the audit, so not kept)."""
    ctx.log(
        f"fitting {ctx.options.generator} on {len(ctx.train)} records and generating "
        f"{len(ctx.train)} synthetic records"
    )
    assert ctx.options.generator is not None
    generator = make_generator(ctx.options.generator)
    ctx.synthetic = generator.fit(ctx.train, rng=rng).sample(len(ctx.train), rng=rng)
    note = domain_note(generator, ctx.options.generator, inferred=ctx.domain_from_data, game=True)
    return StageOutput(notes=() if note is None else (note,))


STAGE = Stage("release", "Synthetic release generated", _needs_release, _release, input=True)
