"""The adversaries: fit on shadow or auxiliary data, score released data. Attacks never sample datasets."""
