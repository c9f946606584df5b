"""The client's terminal verbs: new, join, play, watch, replay, export, import, verify.

They speak HTTP and websockets only. `salvo` (the service's command) offers them too, plus `bot`.
Tokens shown once by `new` (or given to `join`) are kept in $SALVO_HOME/sessions.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TransferSpeedColumn

from . import calls, sessions, verify
from .client import SalvoClient
from .errors import ApiError, UsageError, raise_for
from .play import play
from .watch import replay, watch

DEFAULT_URL = "http://127.0.0.1:8000"
CHUNK = 64 * 1024
Handler = Callable[[argparse.Namespace], int]


def _url(args: argparse.Namespace) -> str:
    game = getattr(args, "game", None)
    return str(args.url or (game and sessions.url_for(game)) or os.environ.get("SALVO_URL") or DEFAULT_URL)


def _client(args: argparse.Namespace) -> SalvoClient:
    token = getattr(args, "token", None) or sessions.token_for(args.game, getattr(args, "seat", None))
    return SalvoClient(_url(args), token)


def _bytes_progress(console: Console) -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        console=console,
        transient=True,
    )


def cmd_new(args: argparse.Namespace) -> int:
    scenario: str | dict[str, Any] = args.scenario
    if Path(args.scenario).suffix == ".json" and Path(args.scenario).exists():
        scenario = json.loads(Path(args.scenario).read_text())
    with SalvoClient(_url(args)) as salvo:
        game = salvo.create_game(args.ruleset, scenario)
        sessions.remember(game.game_id, salvo.base_url, game.ruleset, {**game.seats, "umpire": game.umpire_token})
        for spec in args.bot or ():
            seat, _, bot = spec.partition("=")
            salvo.with_token(game.umpire_token).seat_bot(game.game_id, seat, bot or "rules")
    print(f"game {game.game_id} ({game.ruleset} {game.ruleset_version})")
    for seat, token in game.seats.items():
        print(f"  seat {seat}: {token}" + ("  (bot)" if any(b.split("=")[0] == seat for b in args.bot or ()) else ""))
    print(f"  umpire: {game.umpire_token}")
    print(f"play:  salvo play {game.game_id} --seat {next(iter(game.seats))}")
    print(f"watch: salvo watch {game.game_id}")
    return 0


def cmd_join(args: argparse.Namespace) -> int:
    with SalvoClient(_url(args), args.token) as salvo:
        summary = salvo.game(args.game)
    who = summary.viewer.removeprefix("seat:")
    if summary.viewer == "spectator":
        print("that token opens no seat: you can watch without one", file=sys.stderr)
        return 1
    sessions.remember(args.game, _url(args), summary.ruleset, {who: args.token})
    print(f"joined {args.game} as {who}: salvo play {args.game} --seat {who}")
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    with _client(args) as salvo:
        if salvo.token is None:
            print("no token for this game: `salvo join GAME TOKEN` first, or pass --token", file=sys.stderr)
            return 2
        return play(salvo, args.game)


def cmd_watch(args: argparse.Namespace) -> int:
    with _client(args) as salvo:
        return watch(salvo, args.game, once=args.once)


def cmd_replay(args: argparse.Namespace) -> int:
    with _client(args) as salvo:
        return replay(salvo, args.game, args.turn, args.phase)


def cmd_export(args: argparse.Namespace) -> int:
    console = Console(stderr=True)
    with _client(args) as salvo, _bytes_progress(console) as progress:
        headers = {"Authorization": f"Bearer {salvo.token}"} if salvo.token else {}
        out = open(args.output, "wb") if args.output != "-" else sys.stdout.buffer  # noqa: SIM115
        try:
            with salvo.http.stream("GET", f"/v1/games/{args.game}/export", headers=headers) as r:
                if r.status_code >= 400:
                    raise_for(r.status_code, r.read())
                task = progress.add_task("export", total=None)
                for chunk in r.iter_bytes(CHUNK):
                    out.write(chunk)
                    progress.advance(task, len(chunk))
        finally:
            if out is not sys.stdout.buffer:
                out.close()
    return 0


def _chunks(data: bytes, progress: Progress) -> Iterator[bytes]:
    task = progress.add_task("import", total=len(data))
    for start in range(0, len(data), CHUNK):
        yield data[start : start + CHUNK]
        progress.advance(task, min(CHUNK, len(data) - start))


def cmd_import(args: argparse.Namespace) -> int:
    data = Path(args.file).read_bytes()
    console = Console(stderr=True)
    with SalvoClient(_url(args)) as salvo, _bytes_progress(console) as progress:
        call = calls.import_game(data)
        game = salvo.send(
            replace(call, content=_chunks(data, progress), headers={**call.headers, "Content-Length": str(len(data))})
        )
    sessions.remember(game.game_id, _url(args), game.ruleset, {**game.seats, "umpire": game.umpire_token})
    print(f"imported as {game.game_id} (from {game.imported_from}); tokens kept in {sessions.home()}")
    return 0


def _trusted_keys(args: argparse.Namespace) -> dict[str, str]:
    """--key (a public key in hex, or a saved salvo-keys file), else the keys the server publishes."""
    if not args.key:
        with httpx.Client(base_url=_url(args), timeout=10) as http:
            r = http.get("/.well-known/salvo-keys")
            raise_for(r.status_code, r.content)
        try:
            return verify.published_keys(r.json())
        except ValueError as exc:
            raise UsageError(f"{_url(args)}/.well-known/salvo-keys: {exc}") from None
    keys: dict[str, str] = {}
    for given in args.key:
        if Path(given).is_file():
            try:
                keys.update(verify.published_keys(json.loads(Path(given).read_text(encoding="utf-8"))))
            except ValueError as exc:
                raise UsageError(f"--key {given}: {exc}") from None
        elif len(given) == 64 and all(c in "0123456789abcdefABCDEF" for c in given):
            keys[verify.ANY_KEY_ID] = given.lower()
        else:
            raise UsageError(
                f"--key {given!r}: expected an Ed25519 public key in hex (64 digits) or a file "
                "saved from /.well-known/salvo-keys"
            )
    return keys


def cmd_verify(args: argparse.Namespace) -> int:
    if args.key and args.url:
        raise UsageError("give --url (trust the keys that server publishes) or --key, not both")
    raw = Path(args.file).read_bytes()
    try:
        verify.read_battle(raw)
    except verify.NotABattleFile as exc:
        raise UsageError(f"{args.file} is not a battle file: {exc}") from None
    checks = verify.check_battle(raw, _trusted_keys(args))
    print(verify.report(checks, json.loads(raw.split(b"\n", 1)[0])))
    return 0 if all(c.ok for c in checks) else 1


VERBS: dict[str, tuple[str, Handler]] = {
    "new": ("create a game from a sample scenario or a scenario file", cmd_new),
    "join": ("keep a seat token someone gave you", cmd_join),
    "play": ("play a seat at an interactive prompt", cmd_play),
    "watch": ("a live view of a game", cmd_watch),
    "replay": ("a turn (or 2-4, or all) explained", cmd_replay),
    "export": ("download a battle file", cmd_export),
    "import": ("replay a battle file into a new game", cmd_import),
    "verify": ("check a battle file: hash chain, signature, record and every revealed roll", cmd_verify),
}


def add_verbs(sub: Any) -> dict[str, Handler]:
    """Adds the client verbs to an argparse subparsers object; returns their handlers."""
    parsers = {name: sub.add_parser(name, help=help_) for name, (help_, _h) in VERBS.items()}
    for p in parsers.values():
        p.add_argument("--url", default=None, help=f"the service (default: SALVO_URL or {DEFAULT_URL})")
    parsers["new"].add_argument("ruleset")
    parsers["new"].add_argument("scenario", help="a sample scenario's name or a scenario .json file")
    parsers["new"].add_argument("--bot", action="append", metavar="SEAT[=BOT]", help="seat a bot (default: rules)")
    parsers["join"].add_argument("game")
    parsers["join"].add_argument("token")
    for name in ("play", "watch", "replay", "export"):
        parsers[name].add_argument("game")
        parsers[name].add_argument("--token", default=None)
        parsers[name].add_argument("--seat", default=None, help='a seat whose token is kept ("umpire" too)')
    parsers["watch"].add_argument("--once", action="store_true", help="print the view once and exit")
    parsers["replay"].add_argument("turn", help='a turn number, a range "2-4", or "all"')
    parsers["replay"].add_argument("--phase", default=None)
    parsers["export"].add_argument("-o", "--output", default="-")
    parsers["import"].add_argument("file")
    parsers["verify"].add_argument("file")
    parsers["verify"].add_argument(
        "--key",
        action="append",
        metavar="KEY",
        help="trust this Ed25519 public key (hex) or saved salvo-keys file instead of "
        "the server's /.well-known/salvo-keys (repeatable)",
    )
    return {name: handler for name, (_help, handler) in VERBS.items()}


def run(handler: Handler, args: argparse.Namespace) -> int:
    """The verb, with every failure a person can cause or meet said in one line on stderr (exit 1; 2 for a
    command line it cannot act on) instead of a traceback."""
    try:
        return handler(args)
    except ApiError as exc:
        named = exc.rule or exc.field
        return _fail(f"{exc}" + (f" ({named})" if named else ""))
    except UsageError as exc:
        return _fail(str(exc), 2)
    except httpx.TransportError as exc:
        where = _url(args)
        with_reason = f" ({exc})" if str(exc) else f" ({type(exc).__name__})"
        return _fail(f"cannot reach the Salvo server at {where}{with_reason}: is it running? (--url or SALVO_URL)")
    except httpx.HTTPError as exc:  # e.g. a malformed --url
        return _fail(f"{_url(args)}: {exc}", 2)
    except json.JSONDecodeError as exc:  # a scenario file that is not JSON
        return _fail(f"{getattr(args, 'scenario', 'the file')} is not JSON: {exc}", 2)
    except OSError as exc:  # a file named on the command line
        return _fail(f"{exc.filename or getattr(args, 'file', '')}: {exc.strerror or exc}")
    except EOFError:  # input ended (Ctrl-D at a prompt): as if `q` was answered
        return 0
    except KeyboardInterrupt:
        return 130


def _fail(message: str, code: int = 1) -> int:
    print(f"error: {' '.join(message.split())}", file=sys.stderr)
    return code


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="salvo-client", description="Salvo from the terminal")
    sub = parser.add_subparsers(dest="command", required=True)
    handlers = add_verbs(sub)
    args = parser.parse_args(argv)
    raise SystemExit(run(handlers[args.command], args))


if __name__ == "__main__":
    main()
