"""Every work synthleak implements, follows or compares with, in one place.

Docstrings, reports, the command-line help and the documentation cite a work by its authors and
year (``cite("meeus2023", "Sec. 4, eq. 5")`` gives ``Meeus et al. (2023), Sec. 4, eq. 5``) and list
the full entry (:meth:`Reference.entry`) in a References section. The report collects the entries
of the works its findings rest on (:func:`entries`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Reference:
    """One cited work.

    Attributes
    ----------
    key : str
        Stable identifier, ``<first author><year><suffix>``.
    authors : tuple of str
        Authors as printed on the work.
    title : str
    venue : str
        Conference, journal, or ``arXiv preprint`` / ``software``.
    year : int
    arxiv : str, optional
        arXiv identifier (``2306.10308``).
    doi : str, optional
    url : str, optional
        For software and documents without arXiv id or DOI.
    """

    key: str
    authors: tuple[str, ...]
    title: str
    venue: str
    year: int
    arxiv: str | None = None
    doi: str | None = None
    url: str | None = None

    @property
    def short(self) -> str:
        """Author-year form: ``Meeus et al. (2023)``, ``Cohen and Nissim (2020)``."""
        last = [_surname(a) for a in self.authors]
        if len(last) == 1:
            who = last[0]
        elif len(last) == 2:
            who = f"{last[0]} and {last[1]}"
        else:
            who = f"{last[0]} et al."
        return f"{who} ({self.year}{_SUFFIX.get(self.key, '')})"

    @property
    def _who_year(self) -> tuple[str, int]:
        last = [_surname(a) for a in self.authors]
        return (last[0] if len(last) != 2 else f"{last[0]} and {last[1]}", self.year)

    def entry(self) -> str:
        """The full entry: authors, title, venue, year, and arXiv id, DOI or address."""
        authors = ", ".join(self.authors[:-1]) + (
            f" and {self.authors[-1]}" if len(self.authors) > 1 else self.authors[0]
        )
        tail = []
        if self.arxiv:
            tail.append(f"arXiv:{self.arxiv}")
        if self.doi:
            tail.append(f"doi:{self.doi}")
        if self.url and not (self.arxiv or self.doi):
            tail.append(self.url)
        extra = ("; " + "; ".join(tail)) if tail else ""
        return f'{authors}. "{self.title}". {self.venue}, {self.year}{extra}.'

    def to_dict(self) -> dict[str, object]:
        return {
            "key": self.key,
            "authors": list(self.authors),
            "title": self.title,
            "venue": self.venue,
            "year": self.year,
            "arxiv": self.arxiv,
            "doi": self.doi,
            "url": self.url,
            "entry": self.entry(),
        }


_PARTICLES = ("van ", "de ", "von ", "der ")


def _surname(author: str) -> str:
    """The surname used in citations ("Boris van Breugel" -> "van Breugel")."""
    if author.endswith(("Working Party", "Institute")):
        return author
    if " " not in author:
        return author
    lower = author.lower()
    for p in _PARTICLES:
        i = lower.find(" " + p)
        if i >= 0:
            return author[i + 1 :]
    if author.startswith("Milton"):  # two-part Spanish surname
        return "Plasencia Palacios"
    if author.startswith("Meenatchi"):
        return "Annamalai"
    return author.rsplit(" ", 1)[1]


def _ref(key: str, authors: str, title: str, venue: str, year: int, **ids: str) -> Reference:
    return Reference(key, tuple(a.strip() for a in authors.split(";")), title, venue, year, **ids)


_ALL = (
    # --- the papers synthleak implements -------------------------------------------------------
    _ref(
        "meeus2023",
        "Matthieu Meeus; Florent Guépin; Ana-Maria Creţu; Yves-Alexandre de Montjoye",
        "Achilles' Heels: Vulnerable Record Identification in Synthetic Data Publishing",
        "ESORICS",
        2023,
        arxiv="2306.10308",
    ),
    _ref(
        "annamalai2024linear",
        "Meenatchi Sundaram Muthu Selva Annamalai; Andrea Gadotti; Luc Rocher",
        "A Linear Reconstruction Approach for Attribute Inference Attacks against Synthetic Data",
        "USENIX Security Symposium",
        2024,
        arxiv="2301.10053",
    ),
    _ref(
        "plasencia2024",
        "Milton Nicolás Plasencia Palacios",
        "Contrastive Learning-Based privacy metrics in Tabular Synthetic Datasets",
        "OpenReview workshop paper (extended version with S. Saccani, G. Sgroi, A. Boudewijn and "
        "L. Bortolussi)",
        2024,
        arxiv="2502.13833",
        url="https://openreview.net/forum?id=PyjYYHDSx0",
    ),
    _ref(
        "giomi2023",
        "Matteo Giomi; Franziska Boenisch; Christoph Wehmeyer; Borbála Tasnádi",
        "A Unified Framework for Quantifying Privacy Risk in Synthetic Data",
        "Proceedings on Privacy Enhancing Technologies (PoPETs)",
        2023,
        arxiv="2211.10459",
        doi="10.56553/popets-2023-0055",
    ),
    # --- attacks, games and audits ------------------------------------------------------------
    _ref(
        "stadler2022",
        "Theresa Stadler; Bristena Oprisanu; Carmela Troncoso",
        "Synthetic Data – Anonymisation Groundhog Day",
        "USENIX Security Symposium",
        2022,
        arxiv="2011.07018",
    ),
    _ref(
        "houssiau2022",
        "Florimond Houssiau; James Jordon; Samuel N. Cohen; Owen Daniel; Andrew Elliott; "
        "James Geddes; Callum Mole; Camila Rangel-Smith; Lukasz Szpruch",
        "TAPAS: a Toolbox for Adversarial Privacy Auditing of Synthetic Data",
        "NeurIPS Workshop on Synthetic Data for Empowering ML Research",
        2022,
        arxiv="2211.06550",
    ),
    _ref(
        "carlini2022",
        "Nicholas Carlini; Steve Chien; Milad Nasr; Shuang Song; Andreas Terzis; Florian Tramèr",
        "Membership Inference Attacks From First Principles",
        "IEEE Symposium on Security and Privacy",
        2022,
        arxiv="2112.03897",
    ),
    _ref(
        "midst2025",
        "Vector Institute",
        "MIDST: Membership Inference over Diffusion-models-based Synthetic Tabular data",
        "IEEE Conference on Secure and Trustworthy Machine Learning (SaTML), competition",
        2025,
        url="https://vectorinstitute.github.io/MIDST",
    ),
    _ref(
        "zarifzadeh2024",
        "Sajjad Zarifzadeh; Philippe Liu; Reza Shokri",
        "Low-Cost High-Power Membership Inference Attacks",
        "International Conference on Machine Learning (ICML)",
        2024,
        arxiv="2312.03262",
    ),
    _ref(
        "vanbreugel2023",
        "Boris van Breugel; Hao Sun; Zhaozhi Qian; Mihaela van der Schaar",
        "Membership Inference Attacks against Synthetic Data through Overfitting Detection",
        "International Conference on Artificial Intelligence and Statistics (AISTATS)",
        2023,
        arxiv="2302.12580",
    ),
    _ref(
        "yao2025",
        "Zexi Yao; Nataša Krčo; Georgi Ganev; Yves-Alexandre de Montjoye",
        "The DCR Delusion: Measuring the Privacy Risk of Synthetic Data",
        "arXiv preprint",
        2025,
        arxiv="2505.01524",
    ),
    _ref(
        "ward2025synthmia",
        "Joshua Ward; Xiaofeng Lin; Chi-Hua Wang; Guang Cheng",
        "Synth-MIA: A Testbed for Auditing Privacy Leakage in Tabular Data Synthesis",
        "arXiv preprint",
        2025,
        arxiv="2509.18014",
    ),
    _ref(
        "hayes2019",
        "Jamie Hayes; Luca Melis; George Danezis; Emiliano De Cristofaro",
        "LOGAN: Membership Inference Attacks Against Generative Models",
        "Proceedings on Privacy Enhancing Technologies (PoPETs)",
        2019,
        arxiv="1705.07663",
    ),
    _ref(
        "ward2025genlra",
        "Joshua Ward; Chi-Hua Wang; Guang Cheng",
        "Privacy Auditing Synthetic Data Release through Local Likelihood Attacks",
        "arXiv preprint",
        2025,
        arxiv="2508.21146",
    ),
    _ref(
        "ward2026mtmia",
        "Joshua Ward; Chi-Hua Wang; Guang Cheng",
        "Finding Connections: Membership Inference Attacks for the Multi-Table Synthetic Data "
        "Setting",
        "preprint, with code and data",
        2026,
        url="https://github.com/joshward96/MT-MIA",
    ),
    _ref(
        "ward2024dpi",
        "Joshua Ward; Chi-Hua Wang; Guang Cheng",
        "Data Plagiarism Index: Characterizing the Privacy Risk of Data-Copying in Tabular "
        "Generative Models",
        "KDD Workshop on Evaluation and Trustworthiness of Generative AI Models",
        2024,
        arxiv="2406.13012",
    ),
    _ref(
        "hilprecht2019",
        "Benjamin Hilprecht; Martin Härterich; Daniel Bernau",
        "Monte Carlo and Reconstruction Membership Inference Attacks against Generative Models",
        "Proceedings on Privacy Enhancing Technologies (PoPETs)",
        2019,
        arxiv="1906.03006",
    ),
    _ref(
        "chen2020",
        "Dingfan Chen; Ning Yu; Yang Zhang; Mario Fritz",
        "GAN-Leaks: A Taxonomy of Membership Inference Attacks against Generative Models",
        "ACM Conference on Computer and Communications Security (CCS)",
        2020,
        arxiv="1909.03935",
    ),
    _ref(
        "annamalai2024auditing",
        "Meenatchi Sundaram Muthu Selva Annamalai; Georgi Ganev; Emiliano De Cristofaro",
        '"What do you want from theory alone?" Experimenting with Tight Auditing of '
        "Differentially Private Synthetic Data Generation",
        "USENIX Security Symposium",
        2024,
        arxiv="2405.10994",
    ),
    _ref(
        "jagielski2020",
        "Matthew Jagielski; Jonathan Ullman; Alina Oprea",
        "Auditing Differentially Private Machine Learning: How Private is Private SGD?",
        "Advances in Neural Information Processing Systems (NeurIPS)",
        2020,
        arxiv="2006.07709",
    ),
    _ref(
        "nasr2021",
        "Milad Nasr; Shuang Song; Abhradeep Thakurta; Nicolas Papernot; Nicholas Carlini",
        "Adversary Instantiation: Lower Bounds for Differentially Private Machine Learning",
        "IEEE Symposium on Security and Privacy",
        2021,
        arxiv="2101.04535",
    ),
    _ref(
        "nasr2023",
        "Milad Nasr; Jamie Hayes; Thomas Steinke; Borja Balle; Florian Tramèr; "
        "Matthew Jagielski; Nicholas Carlini; Andreas Terzis",
        "Tight Auditing of Differentially Private Machine Learning",
        "USENIX Security Symposium",
        2023,
        arxiv="2302.07956",
    ),
    _ref(
        "dong2022",
        "Jinshuo Dong; Aaron Roth; Weijie J. Su",
        "Gaussian Differential Privacy",
        "Journal of the Royal Statistical Society Series B",
        2022,
        arxiv="1905.02383",
        doi="10.1111/rssb.12454",
    ),
    _ref(
        "cohen2020",
        "Aloni Cohen; Kobbi Nissim",
        "Towards formalizing the GDPR's notion of singling out",
        "Proceedings of the National Academy of Sciences",
        2020,
        doi="10.1073/pnas.1914598117",
    ),
    _ref(
        "wp29_2014",
        "Article 29 Data Protection Working Party",
        "Opinion 05/2014 on Anonymisation Techniques (WP216)",
        "European Commission",
        2014,
        url="https://ec.europa.eu/justice/article-29/documentation/opinion-recommendation/files/2014/wp216_en.pdf",
    ),
    # --- generators ---------------------------------------------------------------------------
    _ref(
        "zhang2017",
        "Jun Zhang; Graham Cormode; Cecilia M. Procopiuc; Divesh Srivastava; Xiaokui Xiao",
        "PrivBayes: Private Data Release via Bayesian Networks",
        "ACM Transactions on Database Systems 42(4)",
        2017,
        doi="10.1145/3134428",
    ),
    _ref(
        "ping2017",
        "Haoyue Ping; Julia Stoyanovich; Bill Howe",
        "DataSynthesizer: Privacy-Preserving Synthetic Datasets",
        "International Conference on Scientific and Statistical Database Management (SSDBM)",
        2017,
        doi="10.1145/3085504.3091117",
    ),
    _ref(
        "mckenna2021",
        "Ryan McKenna; Gerome Miklau; Daniel Sheldon",
        "Winning the NIST Contest: A scalable and general approach to differentially private "
        "synthetic data",
        "Journal of Privacy and Confidentiality 11(3)",
        2021,
        arxiv="2108.04978",
    ),
    _ref(
        "mckenna2022",
        "Ryan McKenna; Brett Mullins; Daniel Sheldon; Gerome Miklau",
        "AIM: An Adaptive and Iterative Mechanism for Differentially Private Synthetic Data",
        "Proceedings of the VLDB Endowment 15(11)",
        2022,
        arxiv="2201.12677",
    ),
    _ref(
        "rosenblatt2020",
        "Lucas Rosenblatt; Xiaoyan Liu; Samira Pouyanfar; Eduardo de Leon; Anuj Desai; "
        "Joshua Allen",
        "Differentially Private Synthetic Data: Applied Evaluations and Enhancements",
        "arXiv preprint",
        2020,
        arxiv="2011.05537",
    ),
    _ref(
        "mckenna2019",
        "Ryan McKenna; Daniel Sheldon; Gerome Miklau",
        "Graphical-model based estimation and inference for differential privacy",
        "International Conference on Machine Learning (ICML)",
        2019,
        arxiv="1901.09136",
    ),
    _ref(
        "aydore2021",
        "Sergul Aydore; William Brown; Michael Kearns; Krishnaram Kenthapadi; Luca Melis; "
        "Aaron Roth; Ankit Siva",
        "Differentially Private Query Release Through Adaptive Projection",
        "International Conference on Machine Learning (ICML)",
        2021,
        arxiv="2103.06641",
    ),
    _ref(
        "vietri2022",
        "Giuseppe Vietri; Cedric Archambeau; Sergul Aydore; William Brown; Michael Kearns; "
        "Aaron Roth; Ankit Siva; Shuai Tang; Zhiwei Steven Wu",
        "Private Synthetic Data for Multitask Learning and Marginal Queries",
        "Advances in Neural Information Processing Systems (NeurIPS)",
        2022,
        arxiv="2209.07400",
    ),
    _ref(
        "xu2019",
        "Lei Xu; Maria Skoularidou; Alfredo Cuesta-Infante; Kalyan Veeramachaneni",
        "Modeling Tabular Data using Conditional GAN",
        "Advances in Neural Information Processing Systems (NeurIPS)",
        2019,
        arxiv="1907.00503",
    ),
    _ref(
        "nowok2016",
        "Beata Nowok; Gillian M. Raab; Chris Dibben",
        "synthpop: Bespoke Creation of Synthetic Data in R",
        "Journal of Statistical Software 74(11)",
        2016,
        doi="10.18637/jss.v074.i11",
    ),
    _ref(
        "patki2016",
        "Neha Patki; Roy Wedge; Kalyan Veeramachaneni",
        "The Synthetic Data Vault",
        "IEEE International Conference on Data Science and Advanced Analytics (DSAA)",
        2016,
        doi="10.1109/DSAA.2016.49",
    ),
    _ref(
        "solatorio2023",
        "Aivin V. Solatorio; Olivier Dupriez",
        "REaLTabFormer: Generating Realistic Relational and Tabular Data using Transformers",
        "arXiv preprint",
        2023,
        arxiv="2302.02041",
    ),
    _ref(
        "canonne2020",
        "Clément L. Canonne; Gautam Kamath; Thomas Steinke",
        "The Discrete Gaussian for Differential Privacy",
        "Advances in Neural Information Processing Systems (NeurIPS)",
        2020,
        arxiv="2004.00010",
    ),
    # --- models and statistics ----------------------------------------------------------------
    _ref(
        "vaswani2017",
        "Ashish Vaswani; Noam Shazeer; Niki Parmar; Jakob Uszkoreit; Llion Jones; "
        "Aidan N. Gomez; Łukasz Kaiser; Illia Polosukhin",
        "Attention Is All You Need",
        "Advances in Neural Information Processing Systems (NeurIPS)",
        2017,
        arxiv="1706.03762",
    ),
    _ref(
        "shenkar2022",
        "Tom Shenkar; Lior Wolf",
        "Anomaly Detection for Tabular Data with Internal Contrastive Learning",
        "International Conference on Learning Representations (ICLR)",
        2022,
        url="https://openreview.net/forum?id=_hszZbt46bT",
    ),
    _ref(
        "breiman2001",
        "Leo Breiman",
        "Random Forests",
        "Machine Learning 45(1)",
        2001,
        doi="10.1023/A:1010933404324",
    ),
    _ref(
        "gower1971",
        "John C. Gower",
        "A General Coefficient of Similarity and Some of Its Properties",
        "Biometrics 27(4)",
        1971,
        doi="10.2307/2528823",
    ),
    _ref(
        "wilson1927",
        "Edwin B. Wilson",
        "Probable Inference, the Law of Succession, and Statistical Inference",
        "Journal of the American Statistical Association 22(158)",
        1927,
        doi="10.1080/01621459.1927.10502953",
    ),
    _ref(
        "clopper1934",
        "C. J. Clopper; E. S. Pearson",
        "The Use of Confidence or Fiducial Limits Illustrated in the Case of the Binomial",
        "Biometrika 26(4)",
        1934,
        doi="10.1093/biomet/26.4.404",
    ),
    _ref(
        "mcnemar1947",
        "Quinn McNemar",
        "Note on the Sampling Error of the Difference Between Correlated Proportions or "
        "Percentages",
        "Psychometrika 12(2)",
        1947,
        doi="10.1007/BF02295996",
    ),
    _ref(
        "efron1993",
        "Bradley Efron; Robert J. Tibshirani",
        "An Introduction to the Bootstrap",
        "Chapman & Hall/CRC",
        1993,
        doi="10.1201/9780429246593",
    ),
    _ref(
        "hanley1982",
        "James A. Hanley; Barbara J. McNeil",
        "The Meaning and Use of the Area under a Receiver Operating Characteristic (ROC) Curve",
        "Radiology 143(1)",
        1982,
        doi="10.1148/radiology.143.1.7063747",
    ),
    _ref(
        "delong1988",
        "Elizabeth R. DeLong; David M. DeLong; Daniel L. Clarke-Pearson",
        "Comparing the Areas under Two or More Correlated Receiver Operating Characteristic "
        "Curves: A Nonparametric Approach",
        "Biometrics 44(3)",
        1988,
        doi="10.2307/2531595",
    ),
    _ref(
        "holm1979",
        "Sture Holm",
        "A Simple Sequentially Rejective Multiple Test Procedure",
        "Scandinavian Journal of Statistics 6(2)",
        1979,
        url="https://www.jstor.org/stable/4615733",
    ),
    _ref(
        "benjamini1995",
        "Yoav Benjamini; Yosef Hochberg",
        "Controlling the False Discovery Rate: A Practical and Powerful Approach to Multiple "
        "Testing",
        "Journal of the Royal Statistical Society Series B 57(1)",
        1995,
        doi="10.1111/j.2517-6161.1995.tb02031.x",
    ),
    # --- data ---------------------------------------------------------------------------------
    _ref(
        "becker1996",
        "Barry Becker; Ronny Kohavi",
        "Adult",
        "UCI Machine Learning Repository",
        1996,
        doi="10.24432/C5XW20",
    ),
    _ref(
        "liu2021",
        "Terrance Liu; Giuseppe Vietri; Zhiwei Steven Wu",
        "Iterative Methods for Private Synthetic Data: Unifying Framework and New Methods",
        "Advances in Neural Information Processing Systems (NeurIPS)",
        2021,
        arxiv="2106.07153",
    ),
    _ref(
        "bun2016",
        "Mark Bun; Thomas Steinke",
        "Concentrated Differential Privacy: Simplifications, Extensions, and Lower Bounds",
        "Theory of Cryptography Conference (TCC)",
        2016,
        arxiv="1605.02065",
    ),
    _ref(
        "cesar2021",
        "Mark Cesar; Ryan Rogers",
        "Bounding, Concentrating, and Truncating: Unifying Privacy Loss Composition for Data "
        "Analytics",
        "International Conference on Algorithmic Learning Theory (ALT)",
        2021,
        arxiv="2004.07223",
    ),
    _ref(
        "kasiviswanathan2013",
        "Shiva Prasad Kasiviswanathan; Mark Rudelson; Adam Smith",
        "The Power of Linear Reconstruction Attacks",
        "ACM-SIAM Symposium on Discrete Algorithms (SODA)",
        2013,
        arxiv="1210.2381",
    ),
    _ref(
        "kairouz2015",
        "Peter Kairouz; Sewoong Oh; Pramod Viswanath",
        "The Composition Theorem for Differential Privacy",
        "International Conference on Machine Learning (ICML)",
        2015,
        arxiv="1311.0776",
    ),
    _ref(
        "loftsgaarden1965",
        "Don O. Loftsgaarden; Charles P. Quesenberry",
        "A Nonparametric Estimate of a Multivariate Density Function",
        "The Annals of Mathematical Statistics 36(3)",
        1965,
        doi="10.1214/aoms/1177700079",
    ),
    _ref(
        "parzen1962",
        "Emanuel Parzen",
        "On Estimation of a Probability Density Function and Mode",
        "The Annals of Mathematical Statistics 33(3)",
        1962,
        doi="10.1214/aoms/1177704472",
    ),
    _ref(
        "wolpert1992",
        "David H. Wolpert",
        "Stacked Generalization",
        "Neural Networks 5(2)",
        1992,
        doi="10.1016/S0893-6080(05)80023-1",
    ),
    _ref(
        "newcombe1998",
        "Robert G. Newcombe",
        "Interval Estimation for the Difference Between Independent Proportions: Comparison of "
        "Eleven Methods",
        "Statistics in Medicine 17(8)",
        1998,
        doi="10.1002/(SICI)1097-0258(19980430)17:8<873::AID-SIM779>3.0.CO;2-I",
    ),
    _ref(
        "efron1981",
        "Bradley Efron; Charles Stein",
        "The Jackknife Estimate of Variance",
        "The Annals of Statistics 9(3)",
        1981,
        doi="10.1214/aos/1176345462",
    ),
    _ref(
        "kotelnikov2023",
        "Akim Kotelnikov; Dmitry Baranchuk; Ivan Rubachev; Artem Babenko",
        "TabDDPM: Modelling Tabular Data with Diffusion Models",
        "International Conference on Machine Learning (ICML)",
        2023,
        arxiv="2209.15421",
    ),
    _ref(
        "jordon2019",
        "James Jordon; Jinsung Yoon; Mihaela van der Schaar",
        "PATE-GAN: Generating Synthetic Data with Differential Privacy Guarantees",
        "International Conference on Learning Representations (ICLR)",
        2019,
        url="https://openreview.net/forum?id=S1zk9iRqF7",
    ),
    _ref(
        "xie2018",
        "Liyang Xie; Kaixiang Lin; Shu Wang; Fei Wang; Jiayu Zhou",
        "Differentially Private Generative Adversarial Network",
        "arXiv preprint",
        2018,
        arxiv="1802.06739",
    ),
    _ref(
        "watson2023",
        "David S. Watson; Kristin Blesch; Jan Kapar; Marvin N. Wright",
        "Adversarial random forests for density estimation and generative modeling",
        "International Conference on Artificial Intelligence and Statistics (AISTATS)",
        2023,
        arxiv="2205.09435",
    ),
    _ref(
        "durkan2019",
        "Conor Durkan; Artur Bekasov; Iain Murray; George Papamakarios",
        "Neural Spline Flows",
        "Advances in Neural Information Processing Systems (NeurIPS)",
        2019,
        arxiv="1906.04032",
    ),
)

REFERENCES: dict[str, Reference] = {r.key: r for r in _ALL}

# Works with the same author-year form get a letter, in the order listed:
# "Annamalai et al. (2024a)".
_SUFFIX: dict[str, str] = {}
for _r in _ALL:
    _same = [o.key for o in _ALL if o._who_year == _r._who_year]
    if len(_same) > 1:
        _SUFFIX[_r.key] = "abcdefgh"[_same.index(_r.key)]


def get(key: str) -> Reference:
    """The reference called ``key``; ``KeyError`` names the known keys."""
    try:
        return REFERENCES[key]
    except KeyError:
        raise KeyError(
            f"unknown reference {key!r}; known: {', '.join(sorted(REFERENCES))}"
        ) from None


def cite(key: str, where: str | None = None) -> str:
    """Author-year citation, optionally with a location: ``Meeus et al. (2023), Sec. 4``."""
    ref = get(key)
    return ref.short if not where else f"{ref.short}, {where}"


def entries(keys: Iterable[str]) -> list[str]:
    """Full entries of ``keys`` (duplicates dropped), sorted by author-year."""
    refs = {get(k) for k in keys}
    return [r.entry() for r in sorted(refs, key=lambda r: (r.short, r.key))]
