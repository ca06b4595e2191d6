"""What the games' record-schema tests share: a JSON Schema's error messages for
a record, and a record broken by one change that the schema must reject."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jsonschema


class RecordSchema:
    """A game's record schema (JSON Schema draft 2020-12)."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema
        self.validator = jsonschema.Draft202012Validator(schema)

    def check(self) -> None:
        """The schema is itself a valid JSON Schema."""
        jsonschema.Draft202012Validator.check_schema(self.schema)

    def errors(self, record: dict[str, Any]) -> list[str]:
        return [e.message for e in self.validator.iter_errors(record)]

    def assert_rejects(self, record: dict[str, Any], change: Callable[[Any], object], phrase: str) -> None:
        """``record`` after ``change`` gives an error that says ``phrase``."""
        change(record)
        assert any(phrase in e for e in self.errors(record)), self.errors(record)
