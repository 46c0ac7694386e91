"""The audit's stages: the machinery in :mod:`~synthleak.stages.base`, one module per
stage; the stage list and ``audit()`` are in :mod:`synthleak.pipeline`."""
