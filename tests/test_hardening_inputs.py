"""Hostile or careless inputs: truncated compressed files, BOMs, pipes, folders
with odd entries.  Every case ends in a clear refusal or a clean account."""

from __future__ import annotations

import bz2
import gzip
import json
import os
import shlex
import subprocess
import threading
from pathlib import Path

import duckdb
import orjson
import pytest
import zstandard
from cli import TRICKLOG
from warehouse_helpers import counts, many_games, run_cli

GAMES = many_games(400, prefix="trunc")
DATA = b"\n".join(GAMES) + b"\n"


def _packed(suffix: str, data: bytes = DATA) -> bytes:
    if suffix == ".gz":
        return gzip.compress(data)
    return zstandard.ZstdCompressor(write_checksum=True).compress(data)


def _one_line_error(proc: object) -> str:
    assert proc.returncode == 2, (proc.stdout, proc.stderr)  # type: ignore[attr-defined]
    stderr: str = proc.stderr  # type: ignore[attr-defined]
    assert stderr.startswith("tricklog: ") and "Traceback" not in stderr
    assert len(stderr.strip().splitlines()) == 1, stderr
    return stderr


@pytest.mark.parametrize("cut", [0.5, -1, -5])
def test_truncated_zst_and_gz_are_the_same_error(tmp_path: Path, cut: float) -> None:
    messages = []
    for suffix in (".gz", ".zst"):
        packed = _packed(suffix)
        end = int(len(packed) * cut) if isinstance(cut, float) else len(packed) + int(cut)
        path = tmp_path / f"games.jsonl{suffix}"
        path.write_bytes(packed[:end])
        for command in (["validate", str(path)], ["load", str(path), "--db", str(tmp_path / "w.duckdb")]):
            stderr = _one_line_error(run_cli(*command))
            messages.append(stderr.replace(str(path), "FILE"))
        stderr = _one_line_error(run_cli("convert", str(path), "-o", str(tmp_path / "out.jsonl")))
        messages.append(stderr.replace(str(path), "FILE"))
    assert len(set(messages)) == 1, messages
    assert "ended before the end-of-stream marker" in messages[0]


def test_complete_zst_of_several_frames_reads_whole(tmp_path: Path) -> None:
    half = len(GAMES) // 2
    first = zstandard.ZstdCompressor().compress(b"\n".join(GAMES[:half]) + b"\n")
    second = zstandard.ZstdCompressor(write_content_size=False, write_checksum=True).compress(
        b"\n".join(GAMES[half:]) + b"\n"
    )
    skippable = b"\x50\x2a\x4d\x18" + (5).to_bytes(4, "little") + b"12345"
    path = tmp_path / "games.jsonl.zst"
    path.write_bytes(first + skippable + second)
    db = tmp_path / "w.duckdb"
    proc = run_cli("load", str(path), "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    assert counts(db)["games"] == len(GAMES)


def only_copies(proc: subprocess.CompletedProcess[str]) -> bool:
    """``validate --json`` found nothing but copies: DATA is the fixture games again and
    again under new ids, which validate reports as copies (duplicate_game)."""
    summary = json.loads(proc.stdout)
    return proc.returncode == 1 and set(summary["by_code"]) == {"duplicate_game"}


BOM = b"\xef\xbb\xbf"
EGN = Path(__file__).parent / "fixtures" / "egn" / "standard.egn"


def test_a_byte_order_mark_is_accepted_and_dropped(tmp_path: Path) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_bytes(BOM + DATA)
    proc = run_cli("validate", str(path), "--json")
    assert only_copies(proc), proc.stdout
    db = tmp_path / "w.duckdb"
    proc = run_cli("load", str(path), "--db", str(db))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert counts(db)["games"] == len(GAMES) and counts(db)["quarantine"] == 0
    egn = tmp_path / "bom.egn"
    egn.write_bytes(BOM + EGN.read_bytes())
    plain, marked = run_cli("validate", str(EGN), "--json"), run_cli("validate", str(egn), "--json")
    assert plain.returncode == marked.returncode and plain.stdout == marked.stdout


def test_a_folder_says_what_it_skips(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "good.jsonl").write_bytes(DATA)
    (folder / "gone.jsonl").symlink_to(tmp_path / "nowhere.jsonl")
    os.mkfifo(folder / "pipe.jsonl")
    (folder / "loop.jsonl").symlink_to(folder / "loop.jsonl")
    (folder / "notes.txt").write_text("not an input, by its name")
    proc = run_cli("validate", str(folder), "--json")
    assert only_copies(proc)
    warnings = [line for line in proc.stderr.splitlines() if line]
    assert len(warnings) == 3, proc.stderr
    assert any("gone.jsonl" in w and "dangling symlink" in w for w in warnings)
    assert any("loop.jsonl" in w and "a symbolic link in a loop" in w for w in warnings)
    assert any("pipe.jsonl" in w and "FIFO" in w for w in warnings)
    assert all(w.startswith("tricklog: warning: ") for w in warnings)
    db = tmp_path / "w.duckdb"
    proc = run_cli("load", str(folder), "--db", str(db))
    assert proc.returncode == 0 and "gone.jsonl" in proc.stderr and "pipe.jsonl" in proc.stderr
    assert counts(db)["games"] == len(GAMES)


# -- pipes and FIFOs: read exactly once ------------------------------------------------

OPENSPIEL = Path(__file__).parent.parent / "data" / "openspiel" / "sample.jsonl"


def through_pipe(*args: str) -> subprocess.CompletedProcess[str]:
    """Run tricklog under bash, where ``<(cat FILE)`` in an argument is a pipe."""
    command = " ".join(shlex.quote(a) if not a.startswith("<(") else a for a in [*TRICKLOG, *args])
    return subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=600, check=False)


def through_fifo(fifo: Path, source: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run tricklog on a named FIFO that a thread fills with ``source``."""
    if not fifo.exists():
        os.mkfifo(fifo)

    def feed() -> None:
        with open(fifo, "wb") as out:
            out.write(source.read_bytes())

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    proc = subprocess.run([*TRICKLOG, *args], capture_output=True, text=True, timeout=600, check=False)
    writer.join(timeout=60)
    return proc


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    """A bad line first (within the first 4 KB), then enough games to pass 4 KB."""
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(b"\n".join([b"not json at all", *GAMES[:50]]) + b"\n")
    return path


def test_validate_reads_a_pipe_whole(mixed: Path, tmp_path: Path) -> None:
    plain = run_cli("validate", str(mixed), "--json")
    piped = through_pipe("validate", f"<(cat {shlex.quote(str(mixed))})", "--json")
    assert plain.returncode == piped.returncode == 1, piped.stderr
    assert orjson.loads(piped.stdout) == orjson.loads(plain.stdout)
    many = tmp_path / "many.jsonl"  # more lines than a chunk: two processes replay them
    many.write_bytes(mixed.read_bytes() + DATA * 3)
    jobs = through_pipe("validate", f"<(cat {shlex.quote(str(many))})", "--json", "--jobs", "2")
    assert orjson.loads(jobs.stdout) == orjson.loads(
        run_cli("validate", str(many), "--json", "--jobs", "1").stdout
    )


def test_load_reads_a_pipe_whole_and_once(mixed: Path, tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    piped = through_pipe("load", f"<(cat {shlex.quote(str(mixed))})", "--db", str(db), "--json")
    assert piped.returncode == 1, piped.stderr
    summary = orjson.loads(piped.stdout)
    assert (summary["lines"], summary["games_loaded"], summary["quarantined"]) == (51, 50, 1)
    again = through_pipe("load", f"<(cat {shlex.quote(str(mixed))})", "--db", str(db), "--json")
    assert orjson.loads(again.stdout)["already_present"] == 51


def test_convert_reads_a_pipe_whole(tmp_path: Path) -> None:
    plain, piped = tmp_path / "plain.jsonl", tmp_path / "piped.jsonl"
    assert run_cli("convert", str(OPENSPIEL), "-o", str(plain)).returncode in (0, 1)
    proc = through_pipe("convert", f"<(cat {shlex.quote(str(OPENSPIEL))})", "-o", str(piped))
    assert proc.returncode in (0, 1), proc.stderr
    assert plain.stat().st_size > 4096

    def records(path: Path) -> list[dict[str, object]]:
        out = [orjson.loads(line) for line in path.read_bytes().splitlines()]
        for record in out:
            del record["origin"]["file"]  # the input's name: /dev/fd/N for the pipe
        return out

    assert records(piped) == records(plain)


def test_an_egn_file_through_a_pipe(tmp_path: Path) -> None:
    plain = run_cli("validate", str(EGN), "--json")
    piped = through_pipe("validate", f"<(cat {shlex.quote(str(EGN))})", "--json")
    assert piped.returncode == plain.returncode and orjson.loads(piped.stdout) == orjson.loads(plain.stdout)


def test_a_named_fifo_is_read_once_without_hanging(mixed: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "live.jsonl"
    plain = run_cli("validate", str(mixed), "--json")
    proc = through_fifo(fifo, mixed, "validate", str(fifo), "--json")
    assert proc.returncode == 1 and orjson.loads(proc.stdout) == orjson.loads(plain.stdout), proc.stderr
    db = tmp_path / "w.duckdb"
    proc = through_fifo(fifo, mixed, "load", str(fifo), "--db", str(db), "--json")
    assert proc.returncode == 1, proc.stderr
    assert orjson.loads(proc.stdout)["games_loaded"] == 50
    packed = tmp_path / "live.jsonl.gz"
    source = tmp_path / "mixed.jsonl.gz"
    source.write_bytes(gzip.compress(mixed.read_bytes()))
    proc = through_fifo(packed, source, "validate", str(packed), "--json")
    assert orjson.loads(proc.stdout) == orjson.loads(plain.stdout), proc.stderr


def test_stdin_is_read_whole(mixed: Path) -> None:
    plain = run_cli("validate", str(mixed), "--json")
    proc = subprocess.run(
        [*TRICKLOG, "validate", "-", "--json"], input=mixed.read_bytes(), capture_output=True, check=False
    )
    assert orjson.loads(proc.stdout) == orjson.loads(plain.stdout)


@pytest.mark.parametrize("command", [("validate",), ("convert", "-o", "{out}"), ("load", "--db", "{out}")])
def test_stdin_or_a_fifo_given_twice_is_refused_at_once(tmp_path: Path, command: tuple[str, ...]) -> None:
    """A stream can be read once: ``- -`` was an internal error ("readline of
    closed file") and a FIFO named twice made load wait for ever."""
    out = str(tmp_path / "out")
    options = [a.format(out=out) for a in command[1:]]
    twice = run_cli(command[0], "-", "-", *options)
    assert twice.returncode == 2 and "Traceback" not in twice.stderr
    assert twice.stderr.strip() == "tricklog: -: given twice; a stream (stdin, a pipe) can be read once"
    fifo = tmp_path / "games.fifo"
    os.mkfifo(fifo)
    link = tmp_path / "link.jsonl"
    link.symlink_to(fifo)
    proc = subprocess.run(
        [*TRICKLOG, command[0], str(fifo), str(link), *options], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().endswith(
        f"the same stream as {fifo}; a stream (stdin, a pipe) can be read once"
    )
    assert not Path(out).exists()


def test_a_load_of_no_line_says_so(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    blank = tmp_path / "blank.jsonl"
    blank.write_bytes(b"\n  \n\n")
    proc = run_cli("load", str(empty), str(blank), "--db", str(tmp_path / "w.duckdb"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith(
        "0 lines = 0 games loaded + 0 already present + 0 quarantined;"
        " 0 violations recorded (the inputs hold no line: nothing to load)"
    )


@pytest.mark.parametrize("suffix", [".gz", ".zst"])
def test_compressed_stdin_is_read_decompressed(tmp_path: Path, suffix: str) -> None:
    """A stream has no name to tell its compression: its first bytes do (it was
    read as lines of compressed bytes, every one malformed)."""
    packed = _packed(suffix)
    plain = subprocess.run(
        [*TRICKLOG, "validate", "-", "--json"], input=DATA, capture_output=True, timeout=600
    )
    for command in (("validate", "-", "--json"), ("validate", "-", "--json", "--jobs", "1")):
        proc = subprocess.run([*TRICKLOG, *command], input=packed, capture_output=True, timeout=600)
        assert proc.returncode == plain.returncode, proc.stderr
        assert orjson.loads(proc.stdout) == orjson.loads(plain.stdout)
    db = tmp_path / "w.duckdb"
    loaded = subprocess.run(
        [*TRICKLOG, "load", "-", "--db", str(db)], input=packed, capture_output=True, timeout=600
    )
    assert loaded.returncode == 0, loaded.stderr
    assert counts(db)["games"] == len(GAMES)


@pytest.mark.parametrize("suffix", [".gz", ".zst"])
def test_a_compressed_pipe_or_fifo_is_read_decompressed(mixed: Path, tmp_path: Path, suffix: str) -> None:
    """``<(zcat ...)``'s opposite, ``<(gzip -c ...)``, and a FIFO fed compressed
    bytes: a stream's first bytes tell its compression, whatever its name (they were
    refused as misnamed files)."""
    packed = tmp_path / f"mixed.jsonl{suffix}"
    packed.write_bytes(_packed(suffix, mixed.read_bytes()))
    plain = run_cli("validate", str(mixed), "--json")
    piped = through_pipe("validate", f"<(cat {shlex.quote(str(packed))})", "--json")
    assert piped.returncode == 1 and orjson.loads(piped.stdout) == orjson.loads(plain.stdout), piped.stderr
    proc = through_fifo(tmp_path / "live", packed, "validate", str(tmp_path / "live"), "--json")
    assert proc.returncode == 1 and orjson.loads(proc.stdout) == orjson.loads(plain.stdout), proc.stderr
    egn = tmp_path / "standard.egn.gz"
    egn.write_bytes(gzip.compress(EGN.read_bytes()))
    converted = through_pipe("convert", f"<(cat {shlex.quote(str(egn))})", "--from", "egn", "-o", "-")
    assert converted.returncode == 0 and orjson.loads(converted.stdout.splitlines()[0])["game_id"], (
        converted.stderr
    )


def test_a_compressed_input_its_name_does_not_tell_is_refused(tmp_path: Path) -> None:
    renamed = tmp_path / "games.jsonl"
    renamed.write_bytes(_packed(".gz"))
    bzipped = tmp_path / "games.jsonl.bz2"
    bzipped.write_bytes(bz2.compress(DATA))
    for command in (
        ("validate",),
        ("load", "--db", str(tmp_path / "w.duckdb")),
        ("convert", "-o", "x.jsonl"),
    ):
        proc = run_cli(command[0], str(renamed), *command[1:], cwd=tmp_path)
        assert proc.returncode == 2 and proc.stderr.strip() == (
            f"tricklog: {renamed}: is gzip-compressed, but its name does not end in .gz: rename it"
        )
        proc = run_cli(command[0], str(bzipped), *command[1:], cwd=tmp_path)
        assert proc.returncode == 2 and "is bzip2-compressed, which tricklog does not read" in proc.stderr
        piped = subprocess.run(
            [*TRICKLOG, command[0], "-", *command[1:]],
            input=bzipped.read_bytes(),
            capture_output=True,
            cwd=tmp_path,
        )
        assert piped.returncode == 2 and b"-: is bzip2-compressed" in piped.stderr
    assert not (tmp_path / "w.duckdb").exists() or counts(tmp_path / "w.duckdb")["games"] == 0


def test_a_whole_number_past_64_bits_is_quarantined_not_rounded(tmp_path: Path) -> None:
    """orjson reads it as a float: kept in ``extra`` it lost its last digits, and
    two records differing only there had one content hash."""
    record = orjson.loads(GAMES[0])
    wide = {**record, "game_id": "wide", "site_id": 12345678901234567890123}
    fits = {**record, "game_id": "fits", "site_id": 18446744073709551615, "hash": "1" * 40}
    games = tmp_path / "games.jsonl"
    games.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in (fits,)) + json.dumps(wide).encode() + b"\n")
    db = tmp_path / "w.duckdb"
    proc = run_cli("load", str(games), "--db", str(db))
    assert proc.returncode == 1, proc.stderr
    assert counts(db)["games"] == 1 and counts(db)["quarantine"] == 1
    reasons = run_cli("sql", "select code, message from quarantine", "--db", str(db), "-f", "csv").stdout
    assert 'schema,"line 2 holds 12345678901234567890123, a whole number past 64 bits' in reasons
    kept = run_cli("sql", "select extra from games", "--db", str(db), "-f", "csv").stdout
    assert "18446744073709551615" in kept


def test_convert_leaves_out_lines_that_are_no_games_record(tmp_path: Path) -> None:
    """--from euchre on an OpenSpiel history, or any JSON object, was copied as it
    stood and counted as a game converted (exit 0)."""
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_bytes(GAMES[0] + b"\n" + b'{"a": 1}\n' + OPENSPIEL.read_bytes().splitlines()[0] + b"\n")
    out = tmp_path / "out.jsonl"
    proc = run_cli("convert", "--from", "euchre", str(mixed), "-o", str(out))
    assert proc.returncode == 1
    assert out.read_bytes().splitlines() == [orjson.dumps(orjson.loads(GAMES[0]))]
    assert "wrote 1 games" in proc.stderr and "2 input item(s) could not be converted" in proc.stderr
    assert f"{mixed}:2 schema: format is missing" in proc.stderr


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("egn/canadian-loner.egn", "egn"),
        ("egn/num-deals.egn", "egn"),
        ("openspiel/importer-findings.jsonl", "openspiel"),
    ],
)
def test_a_converted_file_validates_and_loads_as_its_original(tmp_path: Path, name: str, fmt: str) -> None:
    """What the importer found that the record cannot say (a Canadian loner, deals
    past the ruleset's number, an OpenSpiel history's extra actions) goes with the
    record in origin.findings: the converted file validated clean, and loaded none."""
    original = Path(__file__).parent / "fixtures" / name
    converted, again = tmp_path / "converted.jsonl", tmp_path / "again.jsonl"
    assert run_cli("convert", str(original), "--from", fmt, "-o", str(converted)).returncode == 1
    found = [
        run_cli("validate", str(path), *extra, "--json")
        for path, extra in ((original, ("--from", fmt)), (converted, ()))
    ]
    assert found[0].returncode == found[1].returncode == 1
    assert orjson.loads(found[0].stdout)["by_code"] == orjson.loads(found[1].stdout)["by_code"]
    rows = []
    for path, extra in ((original, ("--from", fmt)), (converted, ())):
        db = tmp_path / f"{path.stem}.duckdb"
        assert run_cli("load", str(path), *extra, "--db", str(db)).returncode == 1
        with duckdb.connect(str(db), read_only=True) as con:
            rows.append(
                con.execute("select game_id, hand, code, message from violations order by all").fetchall()
            )
    assert rows[0] == rows[1] and rows[0]
    assert run_cli("convert", str(converted), "-o", str(again)).returncode == 1
    assert again.read_bytes() == converted.read_bytes()  # converting again changes nothing


def test_findings_that_are_not_a_list_of_problems_are_a_schema_violation(tmp_path: Path) -> None:
    record = orjson.loads(GAMES[0])
    record["origin"] = {"format": "egn", "findings": [{"code": "bid_illegal"}]}
    path = tmp_path / "bad.jsonl"
    path.write_bytes(orjson.dumps(record) + b"\n")
    proc = run_cli("validate", str(path), "--json")
    assert proc.returncode == 1 and orjson.loads(proc.stdout)["by_code"] == {"schema": 1}
