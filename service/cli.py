"""The `salvo` command (also `python -m service`)."""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import subprocess
import sys

from service.clientpath import salvo_client
from service.settings import Settings


async def create_demo_game(settings: Settings, host: str, port: int) -> dict[str, object]:
    from service.domain.core import available_rulesets, find_ruleset
    from service.events.application import GameService
    from service.events.store import SqlEventStore

    names = available_rulesets()
    if not names:
        raise SystemExit("no ruleset is installed; cannot create a demo game")
    name = "gsc2" if "gsc2" in names else names[0]
    scenarios = sorted(find_ruleset(name).scenarios())
    scenario = "duel" if "duel" in scenarios else scenarios[0]
    store = SqlEventStore(settings.database_url)
    store.start()
    try:
        created = await GameService(store, settings.snapshot_every).create_game(name, scenario)
    finally:
        store.close()
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    base = f"http://{shown}:{port}"
    return {
        "game_id": created.game_id,
        "ruleset": name,
        "scenario": scenario,
        "spectate": f"{base}/?game={created.game_id}",
        # the token in the fragment: never sent to a server, in a Referer or in an access log
        "seats": {s: f"{base}/?game={created.game_id}#token={t}" for s, t in created.seat_tokens.items()},
        "umpire": f"{base}/?game={created.game_id}#token={created.umpire_token}",
    }


def register_plugin_rulesets(settings: Settings) -> None:
    """Extra rulesets named in SALVO_RULESETS ("name=package.module:ATTR,..."), e.g. a club's own."""
    from service.domain.core import register_ruleset

    for name, path in settings.plugin_rulesets:
        register_ruleset(name, path)


def require_rulesets() -> None:
    """Refuse to start while any declared ruleset (built in, an installed package's ``salvo.rulesets`` entry
    point, or SALVO_RULESETS) cannot be loaded: a broken package is the operator's to fix, never a ruleset
    that silently disappears from GET /v1/rulesets. Every failure is logged, then the process exits."""
    import logging

    from service.domain.core.registry import check_rulesets

    failures = check_rulesets()
    for failure in failures:
        logging.getLogger("salvo.rulesets").error("%s", failure, exc_info=failure.__cause__)
    if failures:
        raise SystemExit("salvo: not starting: " + "; ".join(str(f) for f in failures))


def serve(args: argparse.Namespace) -> None:
    from service.api.app import create_app
    from service.api.serving import connection_limits, run

    settings = Settings.from_env(database_url=args.database_url)
    register_plugin_rulesets(settings)
    require_rulesets()
    if args.demo:
        demo = asyncio.run(create_demo_game(settings, args.host, args.port))
        print("Demo game created:", json.dumps(demo, indent=2), flush=True)
        print(f"\n  Open {demo['spectate']} in a browser to watch (seat links above to play).\n", flush=True)
    # long-lived heads and caches make the default GC thresholds rescan the same objects constantly;
    # rarer young-generation collections cut the command-latency tail (see docs/benchmarks.md)
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)
    # (the start-up line is the log's first: JSON like every other line unless SALVO_LOG_FORMAT=text)
    limits = connection_limits(
        header_timeout=args.header_timeout,
        max_header_bytes=args.max_header_bytes,
        max_connections=args.max_connections,
        keep_alive_timeout=args.keep_alive_timeout,
    )
    run(
        create_app(settings),
        settings,
        args.host,
        args.port,
        args.log_level,
        reuse_port=args.reuse_port,
        limits=limits,
        forwarded_allow_ips=args.forwarded_allow_ips,
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="salvo", description="Salvo referee service")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("serve", help="run the HTTP and websocket service")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--database-url", default=None, help="default: DATABASE_URL or sqlite:///var/salvo.db")
    p.add_argument("--demo", action="store_true", help="create a sample game and print its URLs")
    p.add_argument(
        "--reuse-port",
        action="store_true",
        help="bind with SO_REUSEPORT: several processes on one port, the kernel spreads connections",
    )
    p.add_argument(
        "--log-level",
        default=os.environ.get("SALVO_LOG_LEVEL", "warning"),
        help="debug, info, warning (default: SALVO_LOG_LEVEL or warning)",
    )
    # connections (docs/operations.md); each defaults to its environment variable
    p.add_argument(
        "--forwarded-allow-ips",
        default=None,
        help="addresses/networks whose X-Forwarded-For is believed: the proxy's own, never * "
        "(default: FORWARDED_ALLOW_IPS or 127.0.0.1)",
    )
    p.add_argument(
        "--header-timeout",
        type=float,
        default=None,
        help="seconds a request's head may take, from the connection or its first byte "
        "(default: SALVO_HEADER_TIMEOUT or 10)",
    )
    p.add_argument(
        "--keep-alive-timeout",
        type=int,
        default=None,
        help="seconds an idle connection stays open (default: SALVO_KEEP_ALIVE_TIMEOUT or 5)",
    )
    p.add_argument(
        "--max-header-bytes",
        type=int,
        default=None,
        help="largest request line + headers, 431 past it (default: SALVO_MAX_HEADER_BYTES or 65536)",
    )
    p.add_argument(
        "--max-connections",
        type=int,
        default=None,
        help="open connections past which a new one is closed, 0 for none (default: "
        "SALVO_MAX_CONNECTIONS or the descriptor limit less 256)",
    )
    o = sub.add_parser("openapi", help="print the OpenAPI document")
    o.add_argument("--output", default="-")
    a = sub.add_parser("asyncapi", help="print the AsyncAPI document of the websocket stream")
    a.add_argument("--output", default="-")
    try:
        client_cli = salvo_client("cli")
        client_verbs = client_cli.add_verbs(sub)
    except ModuleNotFoundError:  # an install without clients/python: the service's own verbs still work
        client_verbs = {}
    k = sub.add_parser("keys", help="the battle-file signing keys: list them, or rotate to a new one")
    k.add_argument("action", choices=["list", "rotate"])
    k.add_argument("--database-url", default=None, help="default: DATABASE_URL or sqlite:///var/salvo.db")
    n = sub.add_parser("new-ruleset", help="scaffold a ruleset package of your own (docs/rulesets.md)")
    n.add_argument("name", help="the ruleset's name, also its Python package's: a-z, 0-9 and _")
    n.add_argument("--into", default=".", help="the directory to write NAME/ in (default: here)")
    n.add_argument("--title", default=None, help="the ruleset's title, shown in the lobby")
    b = sub.add_parser("bot", help="a computer opponent playing a seat (as a client holding its token)")
    b.add_argument("game")
    b.add_argument("--token", default=None, help="the seat's token (default: the one `salvo new` kept)")
    b.add_argument("--seat", default=None)
    b.add_argument("--bot", default="rules", help='"rules" (the ruleset\'s own) or "random"')
    b.add_argument("--url", default=None)
    b.add_argument("--poll", type=float, default=0.2, help="seconds between looks while waiting")
    args = parser.parse_args(argv)
    if args.command in client_verbs:
        raise SystemExit(client_cli.run(client_verbs[args.command], args))
    if args.command == "bot":
        raise SystemExit(run_bot(args))
    if args.command == "keys":
        raise SystemExit(signing_keys(args))
    if args.command == "new-ruleset":
        raise SystemExit(new_ruleset(args))
    if args.command == "serve":
        serve(args)
    elif args.command == "openapi":
        from service.api.app import create_app

        write_document(create_app(Settings()).openapi(), args.output)
        if args.output != "-":
            regenerate_typescript(args.output)
    elif args.command == "asyncapi":
        from service.api.app import create_app
        from service.api.asyncapi import build_asyncapi

        write_document(build_asyncapi(create_app(Settings()).version), args.output)


def new_ruleset(args: argparse.Namespace) -> int:
    """Write a ruleset package (service/scaffold) and say how to use it."""
    from pathlib import Path

    from service.scaffold import ScaffoldError, scaffold

    try:
        where = scaffold(args.name, Path(args.into), title=args.title)
    except ScaffoldError as exc:
        print(f"salvo new-ruleset: {exc}", file=sys.stderr)
        return 2
    print(f"Wrote the ruleset package {args.name} in {where}.")
    print(f"  pip install -e {where}            declares it to Salvo (entry point salvo.rulesets: {args.name})")
    print(f"  python -m pytest {where}/tests    runs the conformance kit on it (from a Salvo checkout)")
    return 0


def signing_keys(args: argparse.Namespace) -> int:
    """Print this server's public signing keys (what GET /.well-known/salvo-keys serves), after a
    rotation if asked: retired keys keep verifying old files; running replicas sign with the new key
    once restarted."""
    from service.events.signing import load_keyring, rotate
    from service.events.store import SqlEventStore

    settings = Settings.from_env(database_url=args.database_url)
    if settings.signing_key_file:
        print("the signing key is the file SALVO_SIGNING_KEY_FILE: rotate by replacing that file", file=sys.stderr)
        return 2
    store = SqlEventStore(settings.database_url)
    store.start()
    try:
        keyring = rotate(store.engine) if args.action == "rotate" else load_keyring(store.engine)
        print(json.dumps(keyring.published(), indent=2))
    finally:
        store.close()
    return 0


def run_bot(args: argparse.Namespace) -> int:
    from service.botclient import play_seat

    sessions = salvo_client("sessions")
    token = args.token or sessions.token_for(args.game, args.seat)
    if token is None:
        print("no seat token: pass --token, or --seat for a game made with `salvo new`", file=sys.stderr)
        return 2
    url = args.url or sessions.url_for(args.game) or "http://127.0.0.1:8000"
    return int(client_run(lambda _a: play_seat(url, args.game, token, args.bot, args.poll), args))


def client_run(handler: object, args: argparse.Namespace) -> int:
    return int(salvo_client("cli").run(handler, args))


def regenerate_typescript(openapi_path: str) -> None:
    """clients/types/openapi.d.ts follows the committed document (when the pinned JS tools are installed)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    tool = root / "clients" / "node_modules" / ".bin" / "openapi-typescript"
    if Path(openapi_path).resolve() != root / "openapi" / "openapi.json":
        return
    if not tool.exists():
        print(
            "note: clients/types/openapi.d.ts not regenerated (run scripts/_node.sh, then "
            "`cd clients && npm run types`)",
            file=sys.stderr,
        )
        return
    subprocess.run(
        [str(tool), "../openapi/openapi.json", "-o", "types/openapi.d.ts", "--default-non-nullable", "false"],
        cwd=root / "clients",
        check=True,
        capture_output=True,
    )


def write_document(doc: dict[str, object], output: str) -> None:
    text = json.dumps(doc, indent=2, sort_keys=True) + "\n"
    if output == "-":
        sys.stdout.write(text)
    else:
        with open(output, "w", encoding="utf-8") as fh:
            fh.write(text)


if __name__ == "__main__":
    main()
