"""Public access to the bundled datasets (``synthleak.datasets.load_adult()``)."""

from synthleak.data.datasets import load_adult

__all__ = ["load_adult"]
