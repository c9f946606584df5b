"""A game driven over HTTP with one live websocket per non-umpire viewer (for the leak tests).

Subclasses say which ruleset, which viewers, what "truth" (an oracle fed with the umpire's events) is, and
how one envelope is checked against it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

from starlette.testclient import TestClient

from service.api import history_pages
from service.api.compact import expand_page
from service.domain.core import UMPIRE, find_ruleset

FRAME_PATIENCE = 30.0  # seconds a published frame may take to arrive on a loaded machine (see drain_socket)


def auth(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


class WatchedGame:
    ruleset: str

    def __init__(self, client: TestClient, scenario: str, stack: ExitStack, truth: Any) -> None:
        self.client = client
        r = client.post("/v1/games", json={"ruleset": self.ruleset, "scenario": scenario})
        assert r.status_code == 201, r.text
        self.game = r.json()
        self.id = self.game["game_id"]
        self.players = list(self.game["seats"])
        self.viewers = ["spectator", *self.players]
        self.tokens: dict[str, str | None] = {
            "spectator": None,
            "umpire": self.game["umpire_token"],
            **self.game["seats"],
        }
        self.truth = truth
        self.sockets = {v: stack.enter_context(self.connect(v)) for v in self.viewers}
        self.frames: dict[str, list[dict[str, Any]]] = {v: [] for v in self.viewers}  # envelopes received live
        self.known: dict[str, list[dict[str, Any]]] = {v: [] for v in self.viewers}  # envelopes read over HTTP
        self.told: dict[str, int] = {v: 0 for v in self.viewers}  # the seq each socket has accounted for
        for v in self.viewers:
            self._until_caught_up(v)
        self.sync()

    def connect(self, viewer: str, after: int = 0) -> Any:
        """A live socket for a viewer; its token goes in a header, never in the URL."""
        return self.client.websocket_connect(
            f"/v1/games/{self.id}/stream?after={after}", headers=auth(self.tokens[viewer])
        )

    def _until_caught_up(self, viewer: str) -> None:
        while True:
            msg = self.sockets[viewer].receive_json()
            if msg["kind"] == "caught_up":
                self.told[viewer] = msg["seq"]
                return
            if msg["kind"] == "event":
                self.frames[viewer].append(msg["event"])

    def get(self, path: str, viewer: str, **params: Any) -> Any:
        r = self.client.get(f"/v1/games/{self.id}{path}", headers=auth(self.tokens[viewer]), params=params)
        assert r.status_code == 200, (path, viewer, r.status_code, r.text)
        return r.json()

    def post(self, viewer: str, cmd: dict[str, Any]) -> Any:
        return self.client.post(
            f"/v1/games/{self.id}/commands", json={"command": cmd}, headers=auth(self.tokens[viewer])
        )

    def sync(self) -> int:
        """Fold the umpire's new events into the truth; returns the version now."""
        self.truth.feed(self.get("/events", "umpire", after=self.truth.last, limit=10000)["events"])
        return self.truth.last

    def new_events(self, viewer: str) -> list[dict[str, Any]]:
        after = self.known[viewer][-1]["seq"] if self.known[viewer] else 0
        got = self.get("/events", viewer, after=after, limit=10000)["events"]
        self.known[viewer] += got
        return got

    def drain_socket(self, viewer: str, head: int) -> None:
        """Receive live frames until this viewer's socket has everything the HTTP reads showed and has
        accounted for the log up to ``head``. Events hidden from the viewer send no event frame but a
        ``caught_up`` at their seq, and it must leak nothing: exactly {"kind", "seq"}, the seq of an event
        the viewer may not see, no further than the head (every viewer reads it as ``version`` anyway).

        Every event read over HTTP was published to the socket before its command's response, so its frame is
        already on the way. Pings do not measure that wait: while the test reads other viewers, a socket queues
        one ping per heartbeat ahead of the next frame (a dozen in a slow step under load). A frame is missing
        when the server, idle enough to send pings, still has not sent it ``FRAME_PATIENCE`` seconds after
        the drain began."""
        want = len(self.known[viewer])
        shown = {e["seq"] for e in self.known[viewer]}
        deadline = time.monotonic() + FRAME_PATIENCE
        while len(self.frames[viewer]) < want or self.told[viewer] < head:
            msg = self.sockets[viewer].receive_json()
            if msg["kind"] == "ping":
                assert time.monotonic() < deadline, (
                    f"{viewer}'s socket is missing frames (or the caught_up for seq {head}): "
                    f"{len(self.frames[viewer])} of {want} after {FRAME_PATIENCE} s"
                )
                continue
            if msg["kind"] == "caught_up":
                assert set(msg) == {"kind", "seq"}, msg
                assert msg["seq"] not in shown and self.told[viewer] < msg["seq"] <= head, (viewer, msg, head)
                self.told[viewer] = msg["seq"]
                continue
            assert msg["kind"] == "event", msg
            self.frames[viewer].append(msg["event"])
            self.told[viewer] = msg["event"]["seq"]
        assert self.frames[viewer] == self.known[viewer], f"websocket frames for {viewer} differ from GET /events"

    def compact_joins(self, viewer: str) -> list[list[dict[str, Any]]]:
        """Two fresh joins with history=compact, expanded: in pages of 16 seqs, so that the second reads
        the full pages the first left in the page cache."""
        saved, history_pages.PAGE = history_pages.PAGE, 16
        try:
            out = []
            for _ in range(2):
                with self.client.websocket_connect(
                    f"/v1/games/{self.id}/stream?after=0&history=compact", headers=auth(self.tokens[viewer])
                ) as ws:
                    got: list[dict[str, Any]] = []
                    while (msg := ws.receive_json())["kind"] != "caught_up":
                        got.extend(expand_page(msg) if msg["kind"] == "events" else [msg["event"]])
                out.append(got)
            return out
        finally:
            history_pages.PAGE = saved

    def check_envelope(self, env: dict[str, Any], viewer: str, where: str) -> None:
        """One envelope as a non-umpire received it, against the truth (the ruleset's oracle)."""
        raise NotImplementedError

    def finish_checks(
        self,
        check_header: Callable[[dict[str, Any], list[dict[str, Any]], str], None] | None = None,
    ) -> None:
        """At the end: each viewer's export is redacted exactly like its event stream (``check_header`` checks
        the export's header against that stream), a fresh socket catching up from 0 sees the same, only the
        umpire may fork, and the truth's fold is the umpire's own view of the game."""
        seq = self.sync()
        for viewer in self.viewers:
            r = self.client.get(f"/v1/games/{self.id}/export", headers=auth(self.tokens[viewer]))
            assert r.status_code == 200
            lines = [json.loads(ln) for ln in r.content.splitlines() if ln.strip()]
            header, envs = lines[0], lines[1:]
            assert header["viewer"] == (viewer if viewer == "spectator" else f"seat:{viewer}")
            everything = self.get("/events", viewer, after=0, limit=10000)["events"]
            assert envs == everything, f"{viewer}'s export differs from its event stream"
            if check_header is not None:
                check_header(header, everything, viewer)
            for env in envs:
                self.check_envelope(env, viewer, "export")
            with self.connect(viewer) as ws:
                caught = []
                while (msg := ws.receive_json())["kind"] != "caught_up":
                    caught.append(msg["event"])
            assert caught == everything
            for joined in self.compact_joins(viewer):  # the same envelopes in compact pages, byte for byte
                assert json.dumps(joined) == json.dumps(everything), f"{viewer}'s compact join differs"
        for viewer in self.viewers:  # a seat or spectator cannot fork a hidden-information game; the umpire can
            r = self.client.post(f"/v1/games/{self.id}/fork", headers=auth(self.tokens[viewer]))
            assert r.status_code == 403, (viewer, r.status_code, r.text)
            assert r.headers["content-type"] == "application/problem+json"
        r = self.client.post(f"/v1/games/{self.id}/fork", headers=auth(self.tokens["umpire"]))
        assert r.status_code == 201, r.text
        umpire_view = {k: v for k, v in self.get("", "umpire")["state"].items() if k != "draw"}
        ruleset = find_ruleset(self.ruleset)
        assert umpire_view == json.loads(json.dumps(ruleset.view(self.truth.at(seq), UMPIRE)))
