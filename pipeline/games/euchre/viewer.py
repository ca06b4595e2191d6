"""Euchre hands for the hand viewer (``pipeline.report.viewer``), from the warehouse.

Cards are shown as text with their suit symbol:

>>> card_text("TH"), card_text("AS"), card_text("JK"), card_text("??")
('10♥', 'A♠', 'Jkr', '??')
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pipeline.games.euchre.rules import sitting_out

if TYPE_CHECKING:
    import duckdb

HandKey = tuple[str, int]

SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
SUIT_WORDS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


def card_text(name: str | None) -> str:
    """A card as the viewer shows it: rank and suit symbol."""
    if name is None:
        return ""
    if name == "JK":
        return "Jkr"
    if len(name) != 2 or name[1] not in SYMBOLS:
        return name
    rank = "10" if name[0] == "T" else name[0]
    return rank + SYMBOLS[name[1]]


def _keys_cte() -> str:
    return "with k as (select unnest($g) as game_id, unnest($h) as hand_no)"


def _params(keys: list[HandKey]) -> dict[str, Any]:
    return {"g": [k[0] for k in keys], "h": [k[1] for k in keys]}


def _has_table(con: duckdb.DuckDBPyConnection, table: str) -> bool:
    n = con.execute(
        "select count(*) from duckdb_tables() where schema_name = 'euchre' and table_name = ?", [table]
    ).fetchall()
    return bool(n[0][0])


def viewer_hands(con: duckdb.DuckDBPyConnection, keys: list[HandKey]) -> dict[HandKey, dict[str, Any]]:
    """The viewer's description of each of ``keys`` that is a Euchre hand."""
    if not keys:
        return {}
    p = _params(keys)
    cte = _keys_cte()
    out: dict[HandKey, dict[str, Any]] = {}
    for row in con.execute(
        f"""{cte}
        select h.game_id, h.hand_no, g.players, g.preset, h.dealer, h.upcard, h.trump, h.maker_seat, h.alone,
               h.defender_alone, h.round, h.discard, h.maker_tricks, h.team0_points, h.team1_points,
               h.team0_score, h.team1_score, h.thrown_in, h.complete, h.valid
        from k join euchre.hands as h using (game_id, hand_no) join main.games as g using (game_id)""",
        p,
    ).fetchall():
        out[(row[0], row[1])] = _describe(*row[2:])
        out[(row[0], row[1])]["title"] = f"Euchre game {row[0]}, hand {row[1]}"
    for game_id, hand_no, seat, cards in con.execute(
        f"{cte} select d.game_id, d.hand_no, d.seat, d.cards from k join euchre.deals as d using (game_id, hand_no)",
        p,
    ).fetchall():
        hand = out.get((game_id, hand_no))
        if hand is not None:
            if hand["hands"] is None:
                hand["hands"] = [[], [], [], []]
            hand["hands"][seat] = [card_text(c) for c in cards]
    for game_id, hand_no, seat, call, alone in con.execute(
        f"""{cte} select b.game_id, b.hand_no, b.seat, b.call, b.alone from k join euchre.bids as b
        using (game_id, hand_no) order by b.game_id, b.hand_no, b.bid_no""",
        p,
    ).fetchall():
        hand = out.get((game_id, hand_no))
        if hand is not None:
            text = {"pass": "pass", "order": "order it up"}.get(call) or f"names {SUIT_WORDS.get(call, call)}"
            hand["bids"].append({"seat": seat, "text": text + (", alone" if alone else "")})
    for game_id, hand_no, _trick, leader, winner in con.execute(
        f"""{cte} select t.game_id, t.hand_no, t.trick_no, t.leader, t.winner from k join euchre.tricks as t
        using (game_id, hand_no) order by t.game_id, t.hand_no, t.trick_no""",
        p,
    ).fetchall():
        hand = out.get((game_id, hand_no))
        if hand is not None:
            hand["tricks"].append({"leader": leader, "winner": winner, "plays": []})
    for game_id, hand_no, trick_no, seat, card in con.execute(
        f"""{cte} select q.game_id, q.hand_no, q.trick_no, q.seat, q.card from k join euchre.plays as q
        using (game_id, hand_no) order by q.game_id, q.hand_no, q.trick_no, q.play_no""",
        p,
    ).fetchall():
        hand = out.get((game_id, hand_no))
        if hand is not None and trick_no < len(hand["tricks"]):
            hand["tricks"][trick_no]["plays"].append({"seat": seat, "card": card_text(card)})
    if _has_table(con, "par_hands"):
        _add_par(con, out, cte, p)
    return out


def _describe(
    players: list[str],
    preset: str,
    dealer: int,
    upcard: str | None,
    trump: str | None,
    maker: int | None,
    alone: bool,
    defender_alone: int | None,
    round_: int | None,
    discard: str | None,
    maker_tricks: int,
    p0: int,
    p1: int,
    s0: int,
    s1: int,
    thrown_in: str | None,
    complete: bool,
    valid: bool,
) -> dict[str, Any]:
    def who(seat: int) -> str:
        name = players[seat] if seat < len(players) else None
        return f"seat {seat}" + (f" ({name})" if name else "")

    up = card_text(upcard)
    facts = [f"Rules: {preset}. Dealer: {who(dealer)}; upcard {up}."]
    if maker is not None and trump is not None:
        how = "ordered up" if round_ == 1 else "named in round two"
        line = f"Trump {SYMBOLS[trump]} {SUIT_WORDS[trump]}, {how} by {who(maker)}" + (
            ", alone" if alone else ""
        )
        if defender_alone is not None:
            line += f"; {who(defender_alone)} defends alone"
        facts.append(line + ".")
        if discard is not None:
            facts.append(f"The dealer picked {up} up and discarded {card_text(discard)}.")
        if complete:
            facts.append(
                f"The makers took {maker_tricks} of 5 tricks: points {p0}-{p1}, score after the hand {s0}-{s1}."
            )
    elif thrown_in is not None:
        facts.append(f"Thrown in ({thrown_in.replace('_', ' ')}).")
    if not valid:
        facts.append("The hand breaks the rules (see the violations below); statistics leave it out.")
    out = [] if maker is None else list(sitting_out(maker, alone, defender_alone))
    return {
        "title": "",
        "players": players,
        "facts": facts,
        "hands": None,
        "extra": [{"label": "Upcard", "cards": [up]}] if up else [],
        "out": out,
        "bids": [],
        "tricks": [],
    }


def _add_par(
    con: duckdb.DuckDBPyConnection, out: dict[HandKey, dict[str, Any]], cte: str, p: dict[str, Any]
) -> None:
    for game_id, hand_no, par, partner, alone, seats, line in con.execute(
        f"""{cte} select a.game_id, a.hand_no, a.par_maker_tricks, a.par_partner, a.par_alone, a.par_line_seats,
        a.par_line from k join euchre.par_hands as a using (game_id, hand_no) where a.solved""",
        p,
    ).fetchall():
        hand = out.get((game_id, hand_no))
        if hand is None:
            continue
        summary = (
            f"Par (double dummy, every hand in view): the makers take {par} tricks as the hand was played"
        )
        summary += f"; {partner} with the partner in" if partner is not None else ""
        summary += f"; {alone} alone." if alone is not None else "."
        hand["par"] = {
            "summary": summary,
            "line": [[s, card_text(c)] for s, c in zip(seats, line, strict=True)],
            "plays": [],
        }
    for game_id, hand_no, trick_no, play_no, loss, best in con.execute(
        f"""{cte} select q.game_id, q.hand_no, q.trick_no, q.play_no, q.loss, q.best from k
        join euchre.par_plays as q using (game_id, hand_no) where q.loss > 0""",
        p,
    ).fetchall():
        hand = out.get((game_id, hand_no))
        if hand is not None and "par" in hand:
            hand["par"]["plays"].append([trick_no, play_no, loss, card_text(best)])


def studied_hands(con: duckdb.DuckDBPyConnection, limit: int) -> list[HandKey]:
    """The analysed hands of the games in scope where the play gave most tricks away."""
    if not _has_table(con, "par_plays"):
        return []
    rows = con.execute(
        """select q.game_id, q.hand_no from euchre.par_plays as q
        where q.game_id in (select game_id from scoped_games())
        group by all having sum(q.loss) > 0
        order by sum(q.loss) desc, q.game_id, q.hand_no limit $n""",
        {"n": limit},
    ).fetchall()
    return [(g, h) for g, h in rows]
