"""The ``tricklog`` command: a thin layer over the library.

Each command parses its options, calls the library and maps errors to exit
codes: 0 clean, 1 violations found, 2 usage or I/O error (one line on stderr,
no traceback).  Heavy libraries (polars, duckdb, matplotlib) are imported
inside the commands that need them, to keep start-up fast.
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import orjson
import typer

from pipeline.violations import TricklogError, failure

app = typer.Typer(
    name="tricklog",
    help="Replay, audit, load and report on recorded card games (every installed game).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

EXIT_CLEAN, EXIT_VIOLATIONS, EXIT_ERROR = 0, 1, 2

FromOption = Annotated[
    str,
    typer.Option(
        "--from",
        help="Input format: auto, jsonl (or a game's name), or an importer (egn, openspiel, ...).",
        metavar="FORMAT",
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON summary object on stdout.")]
MaxLineOption = Annotated[
    int,
    typer.Option(
        "--max-line-bytes",
        min=1,
        help="Longest input line read whole (16 MiB); a longer one is reported as line_too_long.",
    ),
]
MAX_LINE_BYTES = 16 << 20


def fail(message: str) -> NoReturn:
    say(f"tricklog: {message}")
    raise typer.Exit(EXIT_ERROR)


def _named(output: Path) -> str:
    """An output as a message names it: ``-`` is stdout."""
    from pipeline.atomic import STDOUT

    return "stdout" if str(output) == STDOUT else str(output)


def say(message: str) -> None:
    """A message on stderr; a stderr that cannot be written (full, closed) loses
    it, and the exit code still tells."""
    from pipeline.streams import silence

    try:
        typer.echo(message, err=True)
    except OSError:
        silence(sys.stderr)


def set_up_without_pandas() -> None:
    """pandera and pyarrow set up without pandas (:mod:`pipeline.without_pandas`),
    for a command on a warehouse: it uses neither pandera's pandas API nor
    pyarrow's pandas objects, and pandas still imports when statsmodels wants it.
    A ``load`` of a small file took 1.1-1.2 CPU seconds so, against 1.4-1.5."""
    import pipeline.without_pandas  # noqa: F401


def print_json(value: Any) -> None:
    sys.stdout.buffer.write(orjson.dumps(value, option=orjson.OPT_INDENT_2) + b"\n")
    sys.stdout.flush()


@app.command()
def validate(
    paths: InputsArgument,
    from_: FromOption = "auto",
    violations: Annotated[
        Path | None, typer.Option("--violations", help="Write every violation to this JSON Lines file.")
    ] = None,
    as_json: JsonOption = False,
    jobs: Annotated[
        int,
        typer.Option(
            "--jobs", "-j", min=0, help="Processes replaying JSON Lines inputs (0: one per core it may use)."
        ),
    ] = 0,
    max_line_bytes: MaxLineOption = MAX_LINE_BYTES,
) -> None:
    """Replay every game against its rules and report each violation."""
    from pipeline.console import ValidateView
    from pipeline.sources import line_limit

    view = ValidateView(paths, violations_path=violations, quiet=as_json, fmt=from_)
    try:
        with line_limit(max_line_bytes), view:
            summary = _validate(paths, from_, view, jobs)
    except TricklogError as e:
        fail(str(e))
    if as_json:
        print_json(summary.to_json())
    else:
        view.print_summary(summary)
    raise typer.Exit(EXIT_VIOLATIONS if summary.violations else EXIT_CLEAN)


def _validate(paths: list[str], fmt: str, view: Any, jobs: int) -> Any:
    from pipeline.parallel import jobs_for
    from pipeline.validate import validate

    return validate(paths, fmt, on_game=view.on_game, jobs=jobs_for(jobs))


@app.command()
def simulate(
    games: Annotated[int, typer.Option("--games", "-n", min=1, help="How many games to play.")],
    game: Annotated[str, typer.Option("--game", help="The game to play (an installed game).")] = "euchre",
    seed: Annotated[int, typer.Option(help="Random seed: same seed, same file.")] = 0,
    preset: Annotated[
        str | None,
        typer.Option(help="A rule preset of the game (Euchre: cards4net, pagat, french or mixed)."),
    ] = None,
    output: Annotated[
        Path, typer.Option("-o", "--output", help="The JSON Lines file to write (- for stdout).")
    ] = Path("simulated.jsonl"),
    corrupt: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="Share of games given one known fault (0-1).")
    ] = 0.0,
) -> None:
    """Write games played by heuristic bots (and optionally corrupted ones)."""
    from pipeline.simulate import simulate as simulate_games

    try:
        result = simulate_games(game, output, games, seed=seed, preset=preset, corrupt_rate=corrupt)
    except (TricklogError, ValueError) as e:
        fail(str(e))
    except OSError as e:
        fail(f"{output}: cannot write: {failure(e)}")
    typer.echo(f"wrote {result.games} games to {_named(output)}", err=True)
    if corrupt:
        typer.echo(f"{len(result.corruptions)} corrupted games listed in {result.corruptions_path}", err=True)


DbOption = Annotated[
    Path,
    typer.Option(
        "--db",
        help="The warehouse: a DuckDB file, or a data set folder written by load --engine dask.",
        metavar="PATH",
    ),
]
#: ``--db`` of a command that writes into a DuckDB warehouse (a data set is read-only).
DuckDbOption = Annotated[
    Path,
    typer.Option("--db", help="The DuckDB warehouse to write into.", metavar="FILE"),
]
LoadDbOption = Annotated[
    Path,
    typer.Option(
        "--db",
        help="The warehouse: the DuckDB file to add to (--engine local), or the data set folder to write "
        "(--engine dask).",
        metavar="PATH",
    ),
]
InputsArgument = Annotated[
    list[str],
    typer.Argument(
        help="Input files (JSON Lines, .gz or .zst; EGN, OpenSpiel, TarotClub: see --from), folders of them, "
        "or - for stdin; a pipe is read decompressed when it is compressed."
    ),
]
PlayersOption = Annotated[
    Path | None,
    typer.Option(
        "--players",
        help="Player identity: a TOML or CSV file of alias -> canonical name and placeholder names.",
        metavar="FILE",
    ),
]


@app.command()
def load(
    paths: InputsArgument,
    db: LoadDbOption = Path("tricklog.duckdb"),
    from_: FromOption = "auto",
    as_json: JsonOption = False,
    batch_size: Annotated[int, typer.Option("--batch-size", min=1, help="Games per transaction.")] = 5000,
    jobs: Annotated[
        int,
        typer.Option(
            "--jobs", "-j", min=0, help="Processes replaying JSON Lines inputs (0: one per core it may use)."
        ),
    ] = 0,
    max_line_bytes: MaxLineOption = MAX_LINE_BYTES,
    players: PlayersOption = None,
    engine: Annotated[
        str,
        typer.Option(
            "--engine",
            help="local: added to the DuckDB file --db; dask: a new Parquet data set in the folder --db "
            "(replacing the data set there), replayed on a Dask cluster (--jobs local workers, or --scheduler).",
        ),
    ] = "local",
    scheduler: Annotated[
        str | None,
        typer.Option(
            "--scheduler", help="With --engine dask: the Dask scheduler's address (default: a local cluster)."
        ),
    ] = None,
) -> None:
    """Replay every game and load it into the warehouse (bad lines go to quarantine)."""
    if engine not in ("local", "dask"):
        fail(f"--engine must be local or dask, not {engine!r}")
    if scheduler is not None and engine != "dask":
        fail("--scheduler goes with --engine dask")
    if engine == "dask" and scheduler is None:
        from pipeline.forkserver import start_fresh_server

        # first: the local cluster's workers come from it, and its imports (2 s) overlap this command's
        start_fresh_server(["distributed"])
    else:  # a Dask client builds no rows: pandera and Arrow are its workers' (0.4 CPU s)
        set_up_without_pandas()
    from pipeline.console import Progress
    from pipeline.parallel import arrow_on_malloc, jobs_for, map_large_blocks
    from pipeline.players import read_players
    from pipeline.sources import line_limit
    from pipeline.warehouse.api import load as load_games
    from pipeline.warehouse.load import LARGE_BLOCK
    from pipeline.warehouse.players import store_players

    try:
        identity = read_players(players) if players is not None else None
        map_large_blocks(LARGE_BLOCK)  # for this process's life: so here, not in the library
        if engine == "dask":
            from pipeline.warehouse.dask_engine import load_dask

            if identity is not None:
                fail("--players goes with a DuckDB warehouse (--engine local); give it to report instead")
            with Progress(paths, enabled=not as_json, label="lines", metered=False, fmt=from_) as progress:
                summary = load_dask(
                    paths,
                    db,
                    scheduler=scheduler,
                    workers=jobs or None,
                    on_split=progress.advance_by,
                    max_line_bytes=max_line_bytes,
                    fmt=from_,
                )
        else:
            arrow_on_malloc()  # the rows are built here and in this process's workers
            if identity is not None:
                store_players(db, identity)
            with (
                line_limit(max_line_bytes),
                Progress(paths, enabled=not as_json, label="lines", fmt=from_) as progress,
            ):
                summary = load_games(
                    paths, db, from_, batch_size=batch_size, on_line=progress.advance, jobs=jobs_for(jobs)
                )
    except TricklogError as e:
        fail(str(e))
    if as_json:
        print_json(summary.to_json())
    else:
        typer.echo(summary.describe())
    raise typer.Exit(EXIT_VIOLATIONS if summary.found_problems else EXIT_CLEAN)


@app.command()
def sql(
    query: Annotated[
        str,
        typer.Argument(
            help="One read-only SQL statement (SELECT, WITH, DESCRIBE, ...), or a .sql file such as a report definition."
        ),
    ],
    db: DbOption = Path("tricklog.duckdb"),
    fmt: Annotated[str, typer.Option("--format", "-f", help="table, csv, json or parquet.")] = "table",
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Write here instead of stdout.")
    ] = None,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Show SQL errors whole (with the caret under the fault).")
    ] = False,
) -> None:
    """Run a read-only SQL query on the warehouse; writes are refused."""
    set_up_without_pandas()
    from pipeline.warehouse.api import Warehouse
    from pipeline.warehouse.guard import check_output
    from pipeline.warehouse.query import QueryFailed, query_text, write_batches

    try:
        if output is not None:
            check_output(output, db)
        with Warehouse.open(db) as warehouse:
            write_batches(warehouse.sql_batches(query_text(query)), fmt, output)
    except QueryFailed as e:
        fail(e.detail if verbose else str(e))
    except TricklogError as e:
        fail(str(e))
    except BrokenPipeError:  # the reader had enough (| head): not a violation (click would exit 1)
        _silence_stdout()
        raise typer.Exit(EXIT_CLEAN) from None


@app.command()
def export(
    db: DbOption = Path("tricklog.duckdb"),
    parquet: Annotated[
        Path, typer.Option("--parquet", help="Folder to write one Parquet dataset per table.")
    ] = Path("parquet"),
) -> None:
    """Export every warehouse table as Parquet (hands and plays partitioned by source)."""
    from pipeline.warehouse.api import export_parquet

    try:
        counts = export_parquet(db, parquet)
    except TricklogError as e:
        fail(str(e))
    typer.echo(
        f"wrote {len(counts)} tables to {parquet}: " + ", ".join(f"{t} {n}" for t, n in counts.items())
    )


@app.command()
def convert(
    paths: Annotated[
        list[str],
        typer.Argument(help="Files of another format (EGN .egn/.emn, OpenSpiel, TarotClub), or - for stdin."),
    ],
    from_: FromOption = "auto",
    output: Annotated[
        Path, typer.Option("-o", "--output", help="The JSON Lines file of records to write (- for stdout).")
    ] = Path("converted.jsonl"),
    max_line_bytes: MaxLineOption = MAX_LINE_BYTES,
) -> None:
    """Convert games of another format to JSON Lines of their game's records (euchre/1, tarot/1)."""
    from pipeline.convert import convert as convert_inputs
    from pipeline.sources import line_limit

    try:
        with line_limit(max_line_bytes):
            result = convert_inputs(paths, from_, output)
    except TricklogError as e:
        fail(str(e))
    typer.echo(f"wrote {result.records} games to {_named(output)}", err=True)
    for v in result.problems:
        typer.echo(f"{v.file}:{v.line or ''} {v.code}: {v.message}", err=True)
    if result.skipped:
        typer.echo(f"{result.skipped} input item(s) could not be converted", err=True)
    raise typer.Exit(EXIT_VIOLATIONS if result.problems or result.skipped else EXIT_CLEAN)


@app.command()
def report(
    db: DbOption = Path("tricklog.duckdb"),
    out: Annotated[Path, typer.Option("--out", help="Folder to write the report into.")] = Path("report"),
    source: Annotated[
        list[str] | None, typer.Option("--source", help="Only games of this source (repeatable).")
    ] = None,
    player: Annotated[
        list[str] | None, typer.Option("--player", help="Only games where this player sat (repeatable).")
    ] = None,
    players: PlayersOption = None,
) -> None:
    """Write summary.json, report.html, report.md, one CSV per table and the charts."""
    set_up_without_pandas()
    from pipeline.players import read_players
    from pipeline.report.render import write_report

    try:
        identity = read_players(players) if players is not None else None
        result = write_report(db, out, source or [], player or [], identity)
    except TricklogError as e:
        fail(str(e))
    except OSError as e:
        fail(f"{out}: cannot write the report: {failure(e)}")
    typer.echo(f"{result.headline()}; {len(result.files)} files in {out}", err=True)
    typer.echo(str(result.html))


@app.command()
def analyze(
    db: DuckDbOption = Path("tricklog.duckdb"),
    jobs: Annotated[
        int, typer.Option("--jobs", "-j", min=0, help="Worker processes (0: one per core it may use).")
    ] = 0,
    as_json: JsonOption = False,
) -> None:
    """Each game's deeper studies (Euchre: double-dummy par) into the warehouse; resumable."""
    set_up_without_pandas()
    from pipeline.analyze import analyze as run_analyses
    from pipeline.parallel import jobs_for

    def progress(so_far: Any) -> None:
        if not as_json and sys.stderr.isatty():
            done, todo = sum(so_far.hands.values()), sum(so_far.todo.values())
            typer.echo(f"\r{done:,} of {todo:,} hands analysed", err=True, nl=False)

    try:
        summary = run_analyses(db, jobs=jobs_for(jobs), on_batch=progress)
    except TricklogError as e:
        fail(str(e))
    if not as_json and sys.stderr.isatty() and summary.batches:
        typer.echo("", err=True)  # end the progress line
    print_json(summary.to_json()) if as_json else typer.echo(summary.describe())


@app.command()
def demo(
    workdir: Annotated[Path, typer.Option("--dir", help="Work folder for the demo's files.")] = Path(
        "tricklog-demo"
    ),
    games: Annotated[int, typer.Option("--games", "-n", min=1, help="How many games to simulate.")] = 3000,
) -> None:
    """Simulate games, validate, load and report on them: tricklog in one command."""
    set_up_without_pandas()
    from pipeline.demo import run_demo

    try:
        run_demo(workdir, games)
    except TricklogError as e:
        fail(str(e))


def main() -> None:
    """Console-script entry point."""
    from pipeline.forkserver import start_fresh_server, stop_fork_server
    from pipeline.streams import guard_closed_streams

    guard_closed_streams()
    _skip_collections_at_exit()
    signal.signal(signal.SIGTERM, _terminate)
    early = asks_for_local_cluster(sys.argv[1:])
    if early:
        start_fresh_server(["distributed"])
    try:
        app()
    except KeyboardInterrupt:
        _interrupted()
    except SystemExit:
        if _terminated:  # typer exits 130 on a KeyboardInterrupt, Terminated included
            _interrupted()
        raise
    except RuntimeError as e:
        if str(e) != DUCKDB_INTERRUPTED:
            raise
        _interrupted()
    except BrokenPipeError:
        sys.exit(EXIT_CLEAN)
    except OSError as e:  # a write that failed where no command expected it (stdout, say)
        _silence_stdout()
        where = f"{e.filename}" if e.filename else "the output"
        say(f"tricklog: {where}: cannot write: {failure(e)}")
        sys.exit(EXIT_ERROR)
    finally:
        if early:  # the load's cluster is closed; no pool of workers from the server is left
            stop_fork_server()


#: What DuckDB raises (a ``RuntimeError``) when Ctrl-C stops one of its queries.
DUCKDB_INTERRUPTED = "Query interrupted"


class Terminated(KeyboardInterrupt):
    """``kill`` (SIGTERM), taken as Ctrl-C is: the command stops its workers and
    cluster, and removes the file it was writing (a killed ``simulate`` had left
    its 9 GB temporary file, and its workers, behind)."""


#: Whether the command was sent SIGTERM (a DuckDB query it stops raises its own error).
_terminated = False


def _terminate(signum: int, frame: object) -> NoReturn:
    global _terminated
    _terminated = True
    raise Terminated


def _interrupted() -> NoReturn:
    """Ctrl-C: exit 130, as a shell does, with a line rather than a traceback;
    ``kill``: exit 143 (128 + SIGTERM)."""
    if _terminated:
        typer.echo("tricklog: terminated", err=True)
        sys.exit(128 + signal.SIGTERM)
    typer.echo("tricklog: interrupted", err=True)
    sys.exit(130)


def _skip_collections_at_exit() -> None:
    """Have the interpreter's collections at exit skip every object that exists by
    then (``gc.freeze``), as the command's last exit handler.  Those collections
    walked all a command had imported or kept, only to free memory the process
    was handing back anyway: 0.15 to 0.3 s after a Dask load, between the
    command's last output and its exit.  Every other exit handler still runs
    before (they close files, workers, temporary folders), and no command leaves
    work for a finalizer: it closes its databases and files itself."""
    import atexit
    import gc

    atexit.register(gc.freeze)  # registered first: run last


def asks_for_local_cluster(args: list[str]) -> bool:
    """Whether a command line reads as ``load ... --engine dask`` without
    ``--scheduler``: a load on a local Dask cluster, whose fork server
    :func:`main` starts before the arguments are parsed.  Parsing them imports
    pydantic, for typer: a tenth of a second that the server's imports, which
    the cluster's start waits for, need not wait.  A guess from the words alone,
    which only starts the server sooner: when it is wrong, the load starts the
    server itself, or the server goes unused and ends with the command.

    >>> asks_for_local_cluster(["load", "games.jsonl", "--engine", "dask", "--db", "out"])
    True
    >>> asks_for_local_cluster(["load", "games.jsonl", "--engine=dask", "--scheduler", "tcp://h:8786"])
    False
    >>> asks_for_local_cluster(["validate", "--engine", "dask"])
    False
    """
    if args[:1] != ["load"]:
        return False
    from itertools import pairwise

    dask = "--engine=dask" in args or ("--engine", "dask") in pairwise(args)
    return dask and not any(a == "--scheduler" or a.startswith("--scheduler=") for a in args)


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that flushing it at exit cannot fail again."""
    from pipeline.streams import silence

    silence(sys.stdout)
