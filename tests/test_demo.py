"""``tricklog demo`` runs the whole pipeline on every game that has bots, and ends
with the path of the report page."""

from __future__ import annotations

import json
from pathlib import Path

from cli import run


def test_demo_covers_every_game_and_ends_with_the_page(tmp_path: Path) -> None:
    proc = run("demo", "--games", "40", "--dir", str(tmp_path / "demo"))
    assert proc.returncode == 0, proc.stderr
    page = Path(proc.stdout.strip().splitlines()[-1])
    assert page == (tmp_path / "demo" / "report" / "report.html").resolve() and page.is_file()
    summary = json.loads((page.parent / "summary.json").read_text())
    assert summary["euchre"]["hands"] > 0 and summary["tarot"]["hands"] > 0
    html = page.read_text()
    assert "French Tarot: which contracts are made" in html and "how often are the makers euchred" in html
    assert (page.parent / "tarot_success.png").is_file() and (page.parent / "euchre_rate.png").is_file()
    assert "from tarot.hands" in proc.stdout and "from euchre.hands" in proc.stdout
