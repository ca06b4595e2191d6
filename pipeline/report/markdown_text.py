"""Text from the logs (a player's name, a file's, a game id) in Markdown, shown as
written: a name makes no link, bold, table cell or HTML in ``report.md``, which a
site may render."""

from __future__ import annotations

import re

#: What Markdown reads as formatting, a link, a table's edge or HTML in a line of
#: text (an underscore inside a word, as in ``bid_illegal``, is none of these).
ACTIVE = re.compile(r"([\\`*\[\]<>&|~]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z]))")
ESCAPED = re.compile(r"\\([\\`*_\[\]<>&|~])")


#: Characters that end a line (``str.splitlines``), which would cut a table's row
#: or a list's item in two: shown as their control pictures (U+2400 + code) or ␤.
LINE_BREAKS = str.maketrans(
    {
        c: chr(0x2400 + ord(c)) if ord(c) < 0x20 else "\u2424"
        for c in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
    }
)


def md_text(text: str) -> str:
    r"""``text`` as Markdown shows it as it is, on one line (a line break as ␊, ␍ or ␤).

    >>> print(md_text("[bot] <b>Ann</b> | *x* _y_ bid_illegal"))
    \[bot\] \<b\>Ann\</b\> \| \*x\* \_y\_ bid_illegal
    >>> print(md_text("a\nb|c\r\n"))
    a␊b\|c␍␊
    """
    return ACTIVE.sub(r"\\\1", text.translate(LINE_BREAKS))


def md_plain(text: str) -> str:
    r"""The text :func:`md_text` was made from (its line breaks aside).

    >>> md_plain(md_text(r"a_b _c_ \\ [d]|")) == r"a_b _c_ \\ [d]|"
    True
    """
    return ESCAPED.sub(r"\1", text)
