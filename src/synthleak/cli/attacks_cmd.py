"""``synthleak attacks``: the registered attacks of every family."""

from __future__ import annotations

from typing import Any

from synthleak.cli.app import app
from synthleak.cli.common import FormatOpt, TextFormat, emit, to_json


@app.command("attacks", rich_help_panel="Data, generators and utility")
def attacks_cmd(
    format: FormatOpt = TextFormat.TABLE,
) -> None:
    """List the registered attacks of every family, with the works they follow."""
    from synthleak.attacks.base import list_attacks
    from synthleak.references import cite

    records: list[dict[str, Any]] = [
        {
            "family": i.family.value,
            "name": i.name,
            "goal": i.family.goal.value,
            "access": i.family.access.value,
            "doc": i.doc,
            "extra": i.extra,
            "references": [cite(k) for k in i.references],
        }
        for i in list_attacks()
    ]
    if format is TextFormat.JSON:
        emit(to_json(records), None)
        return
    width = max(len(r["family"]) + len(r["name"]) for r in records) + 3
    lines = []
    for r in records:
        label = f"{r['family']}: {r['name']}"
        extra = f" [needs synthleak[{r['extra']}]]" if r["extra"] else ""
        refs = f" ({'; '.join(r['references'])})" if r["references"] else ""
        lines.append(f"{label:<{width}} {r['doc']}{refs}{extra}")
    emit("\n".join(lines), None)
