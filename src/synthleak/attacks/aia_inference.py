"""The machine-learning inference attribute-inference attack (Adv_infer).

A classifier ``C(x) -> y`` is trained on the synthetic data (quasi-identifiers -> secret) and
applied to the target's quasi-identifiers; its class probabilities are the scores.

Models (``model=``): ``rf`` random forest (Stadler et al.'s choice; default), ``hgb`` histogram
gradient boosting with the quasi-identifiers as categorical features, ``logreg`` one-hot logistic
regression, ``nb`` categorical naive Bayes. For speed the classifier is trained on at most
``max_train`` synthetic records drawn at random (documented cap; default 20,000).

References
----------
Annamalai, Gadotti and Rocher (2024), Sec. 4.3 ("ML inference attack"), after Stadler, Oprisanu
and Troncoso (2022), "Synthetic Data - Anonymisation Groundhog Day".
"""

from __future__ import annotations

from typing import Any

import numpy as np

from synthleak.attacks.base import AttackFamily, AttackInfo, AttributeAttack, register_attack
from synthleak.constraints import Interval, Options, constraints
from synthleak.errors import check_fitted
from synthleak.modes import InferenceModel
from synthleak.runtime.threads import one_thread_limit


def _make_model(model: InferenceModel, sizes: np.ndarray, seed: int, n_estimators: int) -> Any:
    if model is InferenceModel.RF:
        from sklearn.ensemble import RandomForestClassifier

        return RandomForestClassifier(
            n_estimators=n_estimators, min_samples_leaf=1, n_jobs=1, random_state=seed
        )
    if model is InferenceModel.HGB:
        from sklearn.ensemble import HistGradientBoostingClassifier

        cat = np.asarray(sizes) <= 255
        return HistGradientBoostingClassifier(categorical_features=cat, random_state=seed)
    if model is InferenceModel.LOGREG:
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import OneHotEncoder

        cats = [np.arange(int(s)) for s in sizes]
        return make_pipeline(
            OneHotEncoder(categories=cats, handle_unknown="ignore"),
            LogisticRegression(max_iter=500),
        )
    from sklearn.naive_bayes import CategoricalNB

    return CategoricalNB(min_categories=np.asarray(sizes, dtype=np.int64))


class InferenceAttack(AttributeAttack):
    """Adv_infer: a classifier trained on ``S`` predicts the target's secret.

    Parameters
    ----------
    model : InferenceModel
        ``rf`` (default), ``hgb``, ``logreg`` or ``nb``.
    max_train : int
        Train on at most this many synthetic records (random subset).
    n_estimators : int
        Trees of the random forest.

    Notes
    -----
    Threat model: no-box; only ``S`` and the target's quasi-identifiers are used.

    References
    ----------
    Annamalai et al. (2024), Sec. 4.3; Stadler et al. (2022).
    """

    name = "infer"
    _parameter_constraints = constraints(
        model=Options(InferenceModel),
        max_train=Interval(int, 1, None),
        n_estimators=Interval(int, 1, None),
    )

    def __init__(
        self,
        model: InferenceModel | str = InferenceModel.RF,
        max_train: int = 20_000,
        n_estimators: int = 50,
    ) -> None:
        self.model = model
        self.max_train = max_train
        self.n_estimators = n_estimators

    def fit(
        self, quasi_ids: np.ndarray, sizes: np.ndarray, *, rng: np.random.Generator
    ) -> InferenceAttack:
        """Store the adversary's quasi-identifiers ``X`` and their domain sizes."""
        self.model_ = InferenceModel(self.model)
        self.quasi_ids_ = np.asarray(quasi_ids)
        self.sizes_ = np.asarray(sizes)
        return self

    def score(
        self,
        syn_quasi_ids: np.ndarray,
        syn_secret: np.ndarray,
        targets: np.ndarray,
        n_classes: int,
        *,
        rng: np.random.Generator,
    ) -> np.ndarray:
        """Class probabilities (k, n_classes) of the targets under a classifier trained on ``S``."""
        check_fitted(self, "model_")
        Xs = np.asarray(syn_quasi_ids)
        ys = np.asarray(syn_secret).astype(np.int64)
        tx = self.quasi_ids_[np.asarray(targets, dtype=np.intp)]
        out = np.zeros((tx.shape[0], n_classes))
        if Xs.shape[0] == 0:
            return out + 1.0 / n_classes
        if Xs.shape[0] > self.max_train:
            keep = rng.choice(Xs.shape[0], size=self.max_train, replace=False)
            Xs, ys = Xs[keep], ys[keep]
        present = np.unique(ys)
        if present.size == 1:
            out[:, present[0]] = 1.0
            return out
        clf = _make_model(
            self.model_, self.sizes_, int(rng.integers(0, 2**31 - 1)), self.n_estimators
        )
        with one_thread_limit():  # games already run one per core; avoids OpenMP oversubscription
            clf.fit(Xs, ys)
            proba = clf.predict_proba(tx)
        classes = clf.classes_ if hasattr(clf, "classes_") else clf[-1].classes_
        out[:, np.asarray(classes, dtype=np.intp)] = proba
        return out


register_attack(
    AttackInfo(
        "infer",
        AttackFamily.ATTRIBUTE,
        InferenceAttack,
        "a classifier (random forest by default) trained on the synthetic data predicts the secret",
        references=("annamalai2024linear", "stadler2022"),
    )
)
