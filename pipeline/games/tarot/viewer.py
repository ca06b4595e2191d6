"""French Tarot hands for the hand viewer (``pipeline.report.viewer``), from the warehouse.

The warehouse keeps what was played, the chien and the écart: each seat's
hand is shown as it was held at the start of play (the cards it played, in
suit order), beside the chien and the écart.

>>> card_text("KS"), card_text("10H"), card_text("ND"), card_text("T21"), card_text("EX")
('K♠', '10♥', 'C♦', 'T21', 'Excuse')
>>> [card_text(c) for c in sorted_cards(["T5", "EX", "2C", "KS", "1S"])]
['1♠', 'K♠', '2♣', 'T5', 'Excuse']
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pipeline.games.tarot.cards import parse_card
from pipeline.report.run import sql_file

if TYPE_CHECKING:
    import duckdb

HandKey = tuple[str, int]

SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
#: Court cards as French players name them, but the cavalier (N) as C.
COURT = {"J": "J", "N": "C", "Q": "Q", "K": "K"}
CONTRACTS = {"prise": "prise", "garde": "garde", "garde_sans": "garde sans", "garde_contre": "garde contre"}


def card_text(name: str) -> str:
    if name == "EX":
        return "Excuse"
    if name.startswith("T") or name[-1:] not in SYMBOLS:
        return name
    rank = name[:-1]
    return COURT.get(rank, rank) + SYMBOLS[name[-1]]


def sorted_cards(names: list[str]) -> list[str]:
    """Suit cards suit by suit (spades, hearts, diamonds, clubs), then trumps, then the Excuse."""
    return sorted(names, key=lambda n: (parse_card(n) if parse_card(n) is not None else 99, n))


def viewer_hands(con: duckdb.DuckDBPyConnection, keys: list[HandKey]) -> dict[HandKey, dict[str, Any]]:
    """The viewer's description of each of ``keys`` that is a Tarot hand."""
    if not keys:
        return {}
    p = {"g": [k[0] for k in keys], "h": [k[1] for k in keys]}
    cte = "with k as (select unnest($g) as game_id, unnest($h) as hand_no)"
    out: dict[HandKey, dict[str, Any]] = {}
    for row in con.execute(
        f"""{cte} select h.game_id, h.hand_no, g.players, h.dealer, h.contract, h.taker, h.bouts,
        h.taker_points, h.target, h.made, h.scores, h.thrown_in, h.valid
        from k join tarot.hands as h using (game_id, hand_no) join main.games as g using (game_id)""",
        p,
    ).fetchall():
        (
            game_id,
            hand_no,
            players,
            dealer,
            contract,
            taker,
            bouts,
            points,
            target,
            made,
            scores,
            thrown,
            valid,
        ) = row

        def who(seat: int, players: list[str] = players) -> str:
            return f"seat {seat}" + (f" ({players[seat]})" if seat < len(players) else "")

        facts = [f"Dealer: {who(dealer)}."]
        if taker is not None and contract is not None:
            facts.append(f"{CONTRACTS.get(contract, contract).capitalize()} by {who(taker)}.")
            if points is not None and target is not None:
                verdict = "made" if made else "lost"
                facts.append(
                    f"The taker ended with {bouts} bouts and {points:g} points for {target}: {verdict}."
                )
            facts.append("Scores by seat: " + ", ".join(str(s) for s in scores) + ".")
        elif thrown is not None:
            facts.append(f"Thrown in ({thrown.replace('_', ' ')}).")
        if not valid:
            facts.append("The hand breaks the rules (see the violations below); statistics leave it out.")
        out[(game_id, hand_no)] = {
            "title": f"French Tarot game {game_id}, hand {hand_no}",
            "players": players,
            "facts": facts,
            "deal_label": "The hands at the start of play (the cards each seat played)",
            "hands": [[], [], [], []],
            "extra": [],
            "bids": [],
            "tricks": [],
        }
    piles: dict[HandKey, dict[str, list[str]]] = {}
    for game_id, hand_no, pile, card in con.execute(
        f"{cte} select c.game_id, c.hand_no, c.pile, c.card from k join tarot.chien as c using (game_id, hand_no)",
        p,
    ).fetchall():
        piles.setdefault((game_id, hand_no), {}).setdefault(pile, []).append(card)
    for key, by_pile in piles.items():
        if key in out:
            for pile, label in (("chien", "Chien"), ("ecart", "Écart")):
                if by_pile.get(pile):
                    out[key]["extra"].append(
                        {"label": label, "cards": [card_text(c) for c in sorted_cards(by_pile[pile])]}
                    )
    for game_id, hand_no, seat, call in con.execute(
        f"""{cte} select b.game_id, b.hand_no, b.seat, b.call from k join tarot.bids as b using (game_id, hand_no)
        order by b.game_id, b.hand_no, b.bid_no""",
        p,
    ).fetchall():
        if (game_id, hand_no) in out:
            out[(game_id, hand_no)]["bids"].append({"seat": seat, "text": CONTRACTS.get(call, call)})
    for game_id, hand_no, leader, winner in con.execute(
        f"""{cte} select t.game_id, t.hand_no, t.leader, t.winner from k join tarot.tricks as t using (game_id, hand_no)
        order by t.game_id, t.hand_no, t.trick_no""",
        p,
    ).fetchall():
        if (game_id, hand_no) in out:
            out[(game_id, hand_no)]["tricks"].append({"leader": leader, "winner": winner, "plays": []})
    held: dict[HandKey, list[list[str]]] = {}
    for game_id, hand_no, trick_no, seat, card in con.execute(
        f"""{cte} select q.game_id, q.hand_no, q.trick_no, q.seat, q.card from k join tarot.plays as q
        using (game_id, hand_no) order by q.game_id, q.hand_no, q.trick_no, q.play_no""",
        p,
    ).fetchall():
        hand = out.get((game_id, hand_no))
        if hand is not None and trick_no < len(hand["tricks"]):
            hand["tricks"][trick_no]["plays"].append({"seat": seat, "card": card_text(card)})
            held.setdefault((game_id, hand_no), [[], [], [], []])[seat].append(card)
    for key, seats in held.items():
        out[key]["hands"] = [[card_text(c) for c in sorted_cards(cards)] for cards in seats]
    for hand in out.values():
        if not any(hand["hands"]):
            hand["hands"] = None
    _add_strength(con, cte, p, out)
    return out


def _add_strength(
    con: duckdb.DuckDBPyConnection, cte: str, p: dict[str, object], out: dict[HandKey, dict[str, Any]]
) -> None:
    """The strength of the taker's hand as dealt, for the counted hands among ``out``."""
    for game_id, hand_no, bouts, trumps, points in con.execute(
        f"""{cte} select t.game_id, t.hand_no, t.bouts_held, t.trumps_held, t.hand_points
        from k join tarot_taker_hands() as t using (game_id, hand_no)""",
        p,
    ).fetchall():
        out[(game_id, hand_no)]["facts"].append(
            f"The taker was dealt {bouts} bouts and {trumps} trumps: {points} points de main (Chavey's count)."
        )


def studied_hands(con: duckdb.DuckDBPyConnection, limit: int) -> list[HandKey]:
    """The hands the report cites: those that most defied their strength."""
    text = sql_file("tarot_strength_surprises", "pipeline.games.tarot.reports").text
    rows = con.execute(f"select game_id, hand_no from (\n{text}\n) limit $n", {"n": limit}).fetchall()
    return [(g, h) for g, h in rows]
