"""The warehouse DDL and models ship in the wheel and agree with each other."""

from __future__ import annotations

import tomllib
from pathlib import Path

import duckdb
from tricklog_schemas.tables import MODELS, polars_schema

from pipeline.warehouse.ddl import ddl_text

ROOT = Path(__file__).parents[1]


def test_every_package_is_listed_for_the_wheel() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "pipeline").rglob("__init__.py")}
    assert found <= listed, f"add to [tool.setuptools] packages: {sorted(found - listed)}"
    assert config["package-dir"]["tricklog_schemas"] == "schemas"


def test_ddl_columns_match_the_pandera_models() -> None:
    con = duckdb.connect()
    con.execute(ddl_text())
    con.execute(ddl_text())  # idempotent
    for table, model in MODELS.items():
        columns = [r[0] for r in con.execute(f"describe {table}").fetchall()]
        assert columns == list(polars_schema(model)), table
