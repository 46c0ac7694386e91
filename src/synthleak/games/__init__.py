"""Privacy games (the challenger): sample datasets, run generators, hold labels, score attacks."""
