"""What the games' robustness tests share: any JSON value, and a record with any
of its nodes replaced by one (a replay must give violations, never raise)."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import strategies as st


def json_values(max_int: int) -> st.SearchStrategy[Any]:
    """Small JSON values of any shape (whole numbers from -5 to ``max_int``)."""
    return st.recursive(
        st.none()
        | st.booleans()
        | st.integers(-5, max_int)
        | st.floats(allow_nan=False)
        | st.text(max_size=4),
        lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
        max_leaves=12,
    )


def paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON tree, as a tuple of keys and indices."""
    out = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            out += paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out += paths(value, (*prefix, i))
    return out


def replaced(record: dict[str, Any], where: tuple[Any, ...], value: Any) -> dict[str, Any]:
    """A copy of ``record`` with the node at ``where`` replaced by ``value``."""
    out = copy.deepcopy(record)
    node = out
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = value
    return out


def any_node_replaced(record: dict[str, Any], pick: int, value: Any) -> dict[str, Any]:
    """A copy of ``record`` with its ``pick``-th node (any but the root, counted
    modulo their number) replaced by ``value``."""
    places = paths(record)[1:]
    return replaced(record, places[pick % len(places)], value)
