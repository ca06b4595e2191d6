"""Text from the logs (a player's name, a file's, a game id) in Markdown, shown as
written: a name makes no link, bold, table cell or HTML in ``report.md``, which a
site may render."""

from __future__ import annotations

import re

#: What Markdown reads as formatting, a link, a table's edge or HTML in a line of
#: text (an underscore inside a word, as in ``bid_illegal``, is none of these).
ACTIVE = re.compile(r"([\\`*\[\]<>&|~]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z]))")
ESCAPED = re.compile(r"\\([\\`*_\[\]<>&|~])")


def md_text(text: str) -> str:
    r"""``text`` as Markdown shows it as it is.

    >>> print(md_text("[bot] <b>Ann</b> | *x* _y_ bid_illegal"))
    \[bot\] \<b\>Ann\</b\> \| \*x\* \_y\_ bid_illegal
    """
    return ACTIVE.sub(r"\\\1", text)


def md_plain(text: str) -> str:
    r"""The text :func:`md_text` was made from.

    >>> md_plain(md_text(r"a_b _c_ \\ [d]|")) == r"a_b _c_ \\ [d]|"
    True
    """
    return ESCAPED.sub(r"\1", text)
