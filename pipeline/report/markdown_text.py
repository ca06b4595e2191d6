"""Text from the logs (a player's name, a file's, a game id) in Markdown, shown as
written: a name makes no link, bold, table cell or HTML in ``report.md``, which a
site may render."""

from __future__ import annotations

import re

#: What Markdown reads as formatting, a link, a table's edge or HTML in a line of
#: text (an underscore inside a word, as in ``bid_illegal``, is none of these).
ACTIVE = re.compile(r"([\\`*\[\]<>&|~]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z]))")


#: Control characters (NUL, ESC, the line breaks, ...; a tab aside) and the line
#: and paragraph separators: a line break would cut a table's row or a list's
#: item in two, and a terminal showing the file would act on ESC.  Each is written
#: as its numeric character reference (``&#10;``): a literal ``&`` is always
#: escaped, so an unescaped one means this, and the text can be given back.
CONTROLS = {
    c: f"&#{c};" for c in [*range(0x00, 0x09), *range(0x0A, 0x20), *range(0x7F, 0xA0), 0x2028, 0x2029]
}
#: What :func:`md_text` wrote: an escaped character, or a control character's reference.
WRITTEN = re.compile(r"\\([\\`*_\[\]<>&|~])|&#(\d+);")


def md_text(text: str) -> str:
    r"""``text`` as Markdown shows it as it is, on one line.

    >>> print(md_text("[bot] <b>Ann</b> | *x* _y_ bid_illegal"))
    \[bot\] \<b\>Ann\</b\> \| \*x\* \_y\_ bid_illegal
    >>> print(md_text("a\nb|c\x1b[31m"))
    a&#10;b\|c&#27;\[31m
    """
    return ACTIVE.sub(r"\\\1", text).translate(CONTROLS)


def md_plain(text: str) -> str:
    r"""The text :func:`md_text` was made from.

    >>> md_plain(md_text(r"a_b _c_ \\ [d]|")) == r"a_b _c_ \\ [d]|"
    True
    >>> md_plain(md_text("\\\n&#10;")) == "\\\n&#10;"
    True
    """
    return WRITTEN.sub(lambda m: m.group(1) or chr(int(m.group(2))), text)
