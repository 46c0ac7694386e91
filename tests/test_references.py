"""The references module: author-year citations and full entries."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from synthleak import references


def test_cite_gives_author_year_and_location() -> None:
    assert references.cite("meeus2023") == "Meeus et al. (2023)"
    assert references.cite("meeus2023", "Sec. 4, eq. 5") == "Meeus et al. (2023), Sec. 4, eq. 5"
    assert references.cite("cohen2020") == "Cohen and Nissim (2020)"
    assert references.cite("vanbreugel2023").startswith("van Breugel et al.")


def test_same_author_year_gets_letters() -> None:
    assert references.cite("annamalai2024linear") == "Annamalai et al. (2024a)"
    assert references.cite("annamalai2024auditing") == "Annamalai et al. (2024b)"


def test_every_entry_has_an_identifier() -> None:
    for ref in references.REFERENCES.values():
        assert ref.arxiv or ref.doi or ref.url, ref.key
        assert str(ref.year) in ref.entry() and ref.title in ref.entry()


def test_entries_are_unique_and_sorted() -> None:
    out = references.entries(["meeus2023", "giomi2023", "meeus2023"])
    assert len(out) == 2 and out[0].startswith("Matteo Giomi")


def test_unknown_key_names_the_known_ones() -> None:
    with pytest.raises(KeyError, match="meeus2023"):
        references.cite("nobody1999")


# --- no internal paper file names or bare paper numbers anywhere a user looks -----------------
#
# The papers synthleak implements are stored under internal file names (three digits, an
# underscore and 16 hex digits) and were once referred to by their bare number ("000 Sec. 4",
# "(004)", "``003``", "of 000"). Users must only ever see author-year citations.

REPO = Path(__file__).resolve().parents[1]

_FILE_ID = re.compile(r"\b\d{3}_[0-9a-f]{16}\b")
_BARE_NUMBER = re.compile(
    r"\b00[0-4]\s*(§|eq\b|Sec\b|Secs\b|Table\b|Tab\b|Fig\b|Figure\b|appendix\b|Appendix\b)"
    r"|`+00[0-4]`+"  # ``003``, `003`
    r"|\(00[0-4]\)"  # (000)
    r"|\b(of|by|in|from|see|as|after|per|like|than|Beyond|paper|papers|and)\s+00[0-4]\b(?![.,]?\d)"
    r"|\b00[0-4]'s\b"  # 004's
    r"|^#+\s+00[0-4]\b"  # Markdown heading "## 000 - ..."
    r"|(?<![.\d])\b00[0-4]\s+(—|-|–)\s"  # "000 — vulnerable records", not "0.000 – 0.374"
    r"|[,;]\s+00[0-4]\b(?![.,]?\d)",  # "Anonymeter, 003 |"
    re.MULTILINE,
)


def internal_citations(text: str) -> list[str]:
    """Every internal paper file name or bare paper number in ``text``, with its line."""
    hits = []
    for pat in (_FILE_ID, _BARE_NUMBER):
        for m in pat.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            snippet = text[max(0, m.start() - 30) : m.end() + 30].replace("\n", " ")
            hits.append(f"{line}: ...{snippet}...")
    return hits


def _old_text() -> str:
    """Text in the style this guard forbids (built so this file does not contain it)."""
    fid = "000" + "_" + "d116d896359e1fe6.txt"
    return "\n".join(
        [
            f"the distance ({fid} eq. 5)",
            "MRE and 3-TVD (004 §5.3)",
            "as in ``003``.",
            "Table 2 (000), full configuration",
            "the authors of 000 selected",
            "## 000 — vulnerable records",
            "| Anonymeter, 003 |",
            "004's 2000 iterations",
            "the implementation. 004\n        appendix A uses 2000",
            "dropout, as 003)",
        ]
    )


def test_the_guard_catches_the_old_forms_and_spares_numbers() -> None:
    assert len(internal_citations(_old_text())) == 10
    fine = (
        "AUC 1.000 [0.99, 1.00]; 45,000 records; 0.003 gain; seed 004; code (000|1); "
        "Meeus et al. (2023), Sec. 4, eq. 5; 2000 iterations; 100,000 queries"
    )
    assert internal_citations(fine) == []


def _user_facing_files() -> list[Path]:
    files = [REPO / n for n in ("README.md", "BENCHMARKS.md", "REPRODUCTION.md", "CONTRIBUTING.md")]
    files += sorted((REPO / "docs").rglob("*")) if (REPO / "docs").is_dir() else []
    files += sorted((REPO / "benchmarks").glob("*.md")) + sorted((REPO / "benchmarks").glob("*.py"))
    files += sorted((REPO / "src").rglob("*"))
    files += sorted((REPO / "tests").rglob("*.py"))
    suffixes = {".py", ".md", ".txt", ".rst", ".json", ".toml", ".cfg", ".html", ".css", ".js"}
    here = Path(__file__).resolve()  # this file spells out the forms it forbids
    return [f for f in files if f.is_file() and f.suffix in suffixes and f.resolve() != here]


def test_sources_and_documentation_cite_by_author_and_year() -> None:
    files = _user_facing_files()
    assert any(f.name == "README.md" for f in files) and len(files) > 50
    bad = {
        str(f.relative_to(REPO)): hits
        for f in files
        if (hits := internal_citations(f.read_text(encoding="utf-8", errors="replace")))
    }
    assert not bad, f"internal paper names; cite by author and year (references.cite): {bad}"


def test_every_cli_help_cites_by_author_and_year(capsys: pytest.CaptureFixture[str]) -> None:
    import typer

    from synthleak.cli.app import app
    from synthleak.cli.main import main

    names = sorted(typer.main.get_command(app).commands)  # type: ignore[attr-defined]
    assert {"audit", "mia", "aia", "vulnerable", "riskmap", "singling-out"} <= set(names)
    bad = {}
    for argv in [["--help"], *([n, "--help"] for n in names)]:
        assert main(argv) == 0
        text = capsys.readouterr().out
        assert "Usage" in text
        if hits := internal_citations(text):
            bad[" ".join(argv)] = hits
    assert not bad, bad
    assert "Meeus et al. (2023)" in (main(["mia", "--help"]), capsys.readouterr().out)[1]


@pytest.fixture(scope="module")
def report_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    from tests.report.conftest import make_result

    from synthleak.report import write_report

    paths = write_report(make_result(), tmp_path_factory.mktemp("report"))
    return {kind: Path(p).read_text(encoding="utf-8") for kind, p in paths.items()}


@pytest.mark.parametrize("kind", ["html", "md", "json"])
def test_generated_report_cites_by_author_and_year(report_files: dict[str, str], kind: str) -> None:
    text = report_files[kind]
    if kind == "html":  # the figures are base64 PNGs: random text that may hold anything
        text = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", text)
    assert internal_citations(text) == []
    if kind != "json":
        assert "Meeus et al. (2023), eq. 5" in text


def test_generated_report_lists_the_full_entries_it_cites(report_files: dict[str, str]) -> None:
    import html

    doc = json.loads(report_files["json"])
    listed = doc["references"]
    keys = [r["key"] for r in listed]
    # the sample report cites the vulnerability score and the utility measures
    assert {"meeus2023", "annamalai2024linear"} <= set(keys)
    assert len(keys) == len(set(keys))
    md, page = report_files["md"], report_files["html"]
    body_md = md.split("## References")[0]
    for r in listed:
        ref = references.get(r["key"])
        assert r["entry"] == ref.entry() and r["title"] == ref.title and r["year"] == ref.year
        assert ref.entry() in md and html.escape(ref.entry()) in page
        assert ref.short in body_md  # listed because the text cites it
    for key, ref in references.REFERENCES.items():  # and nothing the text does not cite
        assert (ref.short in body_md) == (key in keys), key
    assert "## References" in md and 'id="references"' in page
