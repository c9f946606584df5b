"""One live stream: authentication by header or subprotocol, catch-up, live frames, commands sent on
the socket, and every way it closes (slow consumer 1013, restart 1012, oversized 1009, undecodable
1007, policy 1008), always with the seq to resume after when the stream may resume."""

from __future__ import annotations

import asyncio
import contextlib
import logging

import msgspec
from fastapi import WebSocket, WebSocketDisconnect

from service.domain.core import Viewer
from service.events.application import CommandRequest, audience_key
from service.events.decide_append import CommandResult
from service.events.errors import AppError, InvalidRequest
from service.events.inputs import check_integers, check_json, text_bytes
from service.events.storage_faults import StorageFull, StorageUnavailable, kind_of

from .broadcast import Subscription
from .encoding import VIEW, command_body, note_unverified, view_body, with_view
from .history_pages import history_pages
from .problems import problem_of

CATCH_UP_PAGE = 500
SUBPROTOCOL = "salvo.v1"
TOKEN_PROTOCOL = "salvo.token."  # offered as a second subprotocol: "salvo.token.<token>"
RESUME_CODE = 1013  # "try again later": reconnect with after=<seq in the reason>
RESTART_CODE = 1012  # the server is restarting: the same
TOO_BIG_CODE = 1009
BAD_DATA_CODE = 1007
POLICY_CODE = 1008
UNSUPPORTED_CODE = 1003
_encode = msgspec.json.Encoder().encode
log = logging.getLogger("salvo.stream")


class _SocketCommand(CommandRequest, kw_only=True, forbid_unknown_fields=True):
    """The message: its ``command`` and ``salt`` fields are CommandRequest's, so the decoded message is
    the request POST /commands would decode (``command_request`` makes no second object)."""

    kind: str
    ref: str | None = None
    idempotency_key: str | None = None
    expected_version: int | None = None


_decode_message = msgspec.json.Decoder(_SocketCommand).decode


def offered_token(ws: WebSocket) -> str | None:
    for protocol in ws.scope.get("subprotocols", ()):
        if protocol.startswith(TOKEN_PROTOCOL):
            return protocol[len(TOKEN_PROTOCOL) :] or None
    return None


def accepted_subprotocol(ws: WebSocket) -> str | None:
    return SUBPROTOCOL if SUBPROTOCOL in ws.scope.get("subprotocols", ()) else None


def error_message(exc: BaseException, ref: str | None = None) -> str:
    """The websocket form of the one error mapper: the same fields as the HTTP problem+json."""
    return _encode({"kind": "error", "ref": ref, **problem_of(exc)}).decode()


class Stream:
    def __init__(self, ws: WebSocket, game_id: str, viewer: Viewer, token: str | None, after: int) -> None:
        self.ws = ws
        self.game_id = game_id
        self.viewer = viewer
        self.token = token
        self.audience = audience_key(viewer)
        self.last = after  # the last seq accounted for (sent, or hidden from this viewer)
        state = ws.app.state
        self.settings = state.settings
        self.reader = state.reader
        self.gate = state.gate
        self.metrics = state.metrics
        self.address = ws.client.host if ws.client else "unknown"
        self.closing = False
        # ?own_events=result: this client applies the events a command's result carries, so the socket
        # that sent the command is not sent them again as event frames (one send per command, not two)
        self.results_carry_events = ws.query_params.get("own_events") == "result"
        self.sending = asyncio.Lock()
        # ?join=present: a client that wants the present, not the history, gets the viewer's view at the
        # head in one message, then only the events after it (snapshot plus tail), whatever ``after`` says
        self.join_present = ws.query_params.get("join") == "present"
        # ?history=compact: catch-up (the join's history, and any gap later) comes as compact pages
        # ({"kind":"events"}, api/compact.py) instead of one event frame per envelope
        self.compact_history = ws.query_params.get("history") == "compact"
        # ?frames=view: each update's last message carries the viewer's view and options after it
        # ({"kind":"event",…,"view":{"game":…,"options":…}}, or a caught_up with "view"), as does every
        # caught_up after a read of the store: a page needs no GET per update. The view is encoded once
        # per audience and update (encoding.view_body), never once per socket. Every event then comes as a
        # frame (own_events=result is not applied: the result would skip the frame that carries the view)
        self.view_key = VIEW + self.audience if ws.query_params.get("frames") == "view" else None
        if self.view_key is not None:
            self.results_carry_events = False

    async def send(self, text: str, seq: int | None = None) -> None:
        """``seq``: the event this frame carries, accounted for (``last``) once it is surely written, so
        a send that times out mid-page closes with the resume seq of the last frame the client has."""
        # one sender at a time: a result accounted for ahead of its send goes out before any later frame
        async with self.sending:
            await asyncio.wait_for(self.ws.send_text(text), self.settings.ws_send_timeout)
        if seq is not None and seq > self.last:
            self.last = seq

    async def close(self, code: int, reason: str) -> None:
        """Close once; the close frame may wait behind a slow reader's backlog, so it gets its own timeout."""
        if self.closing:
            return
        self.closing = True
        with contextlib.suppress(RuntimeError, TimeoutError, WebSocketDisconnect):
            await asyncio.wait_for(self.ws.close(code=code, reason=reason), self.settings.ws_close_timeout)

    async def catch_up(self, upto: int | None = None) -> None:
        """Send everything after ``last`` from the store (up to ``upto``), in pages. Live (``upto`` given),
        a range that ends in seqs hidden from this viewer is announced with ``caught_up`` (see ``hidden``)."""
        sent = self.last
        while upto is None or self.last < upto:
            # the store, not a cached head, says how far the log goes (another replica may have written)
            stored = await self.reader.store.head(self.game_id)
            target = stored if upto is None else min(upto, stored)
            if self.last >= target:
                break
            if self.compact_history:  # pages of envelopes, read and folded once, full ones kept encoded
                async for page_end, page, shown in history_pages(
                    self.reader, self.game_id, self.viewer, self.last, target
                ):
                    if page is not None:
                        await self.send(page.decode())
                        sent = shown or sent
                    self.last = page_end
                continue
            page_end = min(target, self.last + CATCH_UP_PAGE)
            envelopes = await self.reader.events(self.game_id, self.viewer, after=self.last, upto=page_end)
            for env in envelopes:  # each frame accounted for once written: a resume mid-page repeats none
                await self.send(_encode({"kind": "event", "event": env}).decode(), seq=env.seq)
            if envelopes:
                sent = envelopes[-1].seq
            self.last = page_end
        if upto is not None and self.view_key is not None:
            await self.send(await self.caught_up_frame())  # the view after the read, hidden seqs or not
        elif upto is not None and sent < self.last:
            await self.hidden()

    async def hidden(self) -> None:
        """The log went on with events this viewer may not see (a sealed order, a failed enemy detection):
        ``caught_up`` at the new head, so a page refreshes its view and options. It carries the seq
        alone, which every viewer reads as ``version`` from GET /v1/games/{id} anyway."""
        await self.send(_encode({"kind": "caught_up", "seq": self.last}).decode())

    async def caught_up_frame(self) -> str:
        """``{"kind":"caught_up","seq":N}`` at ``last``; with ``frames=view``, with the viewer's view at
        the game's head (the one kept for that head's seq when another socket asked already)."""
        if self.view_key is None:
            return _encode({"kind": "caught_up", "seq": self.last}).decode()
        note_unverified(self.game_id, await self.reader.unverified(self.game_id))  # (read once, then kept)
        head = await self.reader.service.current_head(self.game_id)
        return with_view(None, self.last, view_body(head, self.viewer, self.audience)).decode()

    async def run(self, sub: Subscription) -> None:
        """Catch up, then forward live frames until the client leaves or the stream must close."""
        try:
            if self.join_present:
                await self.send_present()
            await self.catch_up()
            await self.send(await self.caught_up_frame())
            await self._forward(sub)
        except TimeoutError:  # the client stopped reading: a frame waited longer than ws_send_timeout
            await self.slow_consumer()
        except (WebSocketDisconnect, RuntimeError):
            return
        except (StorageUnavailable, StorageFull):  # the store away (logged there): come back later, resumable
            await self.close(RESUME_CODE, f"storage unavailable; resume after={self.last}")

    async def _forward(self, sub: Subscription) -> None:
        """The live frames, each once and in order (the store for a gap), a ping when nothing came for a
        heartbeat, until the subscription ends (``_ended``)."""
        view_key = self.view_key
        while True:
            item = await sub.next(self.settings.heartbeat_seconds)
            if sub.closed or sub.restarting or sub.overflowed:
                await self._ended(sub)
                return
            if item is None:
                await self.send('{"kind":"ping"}')
                continue
            seq, frames = item
            if seq <= self.last:
                continue  # already sent during catch-up
            if seq > self.last + 1 or frames is None or self.audience not in frames:
                # a gap, a bare notification, or frames encoded before this socket listened: read the store
                await self.catch_up(upto=seq)
                continue
            viewed = view_key is not None and view_key in frames  # frames=view: the update's last frame
            frame = frames.get(view_key if viewed else self.audience)  # type: ignore[arg-type]
            if frame is not None:
                await self.send(frame.decode())
                self.last = seq
            else:
                self.last = seq  # hidden from this viewer: accounted for, and announced by its seq alone
                await self.hidden()
            if view_key is not None and not viewed and sub.empty():
                # the update ended without its view encoded (the head moved on meanwhile): from the head
                await self.send(await self.caught_up_frame())

    async def _ended(self, sub: Subscription) -> None:
        """The subscription ended: closed (nothing to say), the server restarting, or the socket too slow."""
        if sub.closed:
            return
        if sub.restarting:
            await self.close(RESTART_CODE, f"server restarting; resume after={self.last}")
        elif sub.overflowed:
            await self.slow_consumer()

    async def send_present(self) -> None:
        """{"kind":"snapshot","seq":N,"game":<GET /v1/games/{id} for this viewer at N>}: the same view and
        redaction as the HTTP read; the subscription predates it, so the events after N follow with no gap."""
        game = await self.reader.summary(self.game_id, self.viewer)
        await self.send(_encode({"kind": "snapshot", "seq": game["at"], "game": game}).decode())
        self.last = game["at"]

    async def slow_consumer(self) -> None:
        self.metrics.slow_consumer_closes.inc()
        log.info("slow consumer closed", extra={"seq": self.last, "audience": self.audience})
        await self.close(RESUME_CODE, f"slow consumer; resume after={self.last}")

    async def watch_client(self, sub: Subscription) -> None:
        """Reads what the client sends: commands (answered on this socket) and, at once, its close."""
        try:
            while True:
                message = await self.ws.receive()
                if message["type"] == "websocket.disconnect":
                    return
                if message.get("bytes") is not None:
                    await self.close(UNSUPPORTED_CODE, "send JSON text frames")
                    return
                text = message.get("text")
                if text is None:
                    continue
                limit = self.settings.max_body_bytes
                if len(text) > limit:  # characters never outnumber bytes: too long already
                    await self.close(TOO_BIG_CODE, f"messages are limited to {limit} bytes")
                    return
                try:
                    raw = text_bytes(text)
                    if len(raw) > limit:
                        await self.close(TOO_BIG_CODE, f"messages are limited to {limit} bytes")
                        return
                    check_json(raw, integers=False)  # an integer beyond 64 bits is answered, not closed
                except AppError as exc:  # not UTF-8, nested too deep
                    await self.close(BAD_DATA_CODE, exc.detail[:120])
                    return
                answer, result = await self.command(raw)
                await self.reply(answer, result)
        except (RuntimeError, TimeoutError, WebSocketDisconnect):
            pass
        finally:
            sub.close()

    async def reply(self, answer: str, result: CommandResult | None) -> None:
        """A command's answer, straight after ``command`` returned (no await between)."""
        if result is not None:  # before any await: the live loop has not sent these frames yet
            self.account_for(result)
        await self.send(answer)

    def account_for(self, result: CommandResult) -> None:
        """With ``own_events=result``, a result that follows straight on from what this socket has is
        the socket's copy of those events: the live frames up to its version are then skipped (called
        before the result is sent; ``send`` keeps the result ahead of later frames). A result with
        events in between that this socket has not had yet changes nothing (the frames follow)."""
        if (
            self.results_carry_events
            and result.after is not None
            and result.version is not None
            and self.last == result.after
        ):
            self.last = result.version

    async def command(self, raw: bytes) -> tuple[str, CommandResult | None]:
        """{"kind":"command","command":{...},"ref":"r1"} → {"kind":"result","ref":"r1","version":N,"events":[…]}
        or {"kind":"error","ref":"r1",problem…}: the same gate, decide path and errors as POST /commands."""
        message: _SocketCommand | None = None
        try:
            message = socket_message(raw)
            result = await self.gate.command(
                self.game_id,
                self.viewer,
                self.token,
                self.address,
                b"",
                message.idempotency_key,
                message.expected_version,
                command_request(message),
            )
        except Exception as exc:  # noqa: BLE001 - every failure is answered with its problem, never a drop
            return command_error(exc, message), None
        return result_message(message.ref, command_body(result)), result


def socket_message(raw: bytes) -> _SocketCommand:
    """The message, decoded once: its ``command`` goes down to the pipeline as it is (``command_request``).
    An integer beyond 64 bits is refused first, naming its field (an error message; the socket stays open)."""
    check_integers(raw)
    try:
        return _decode_message(raw)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise InvalidRequest(f"not a command message: {exc}", field="$") from None


def command_request(message: _SocketCommand) -> CommandRequest:
    """The request POST /commands would decode from ``{"command":…,"salt":…}`` (errors the same: the
    command is decoded, and fails, as that body's would)."""
    if message.kind != "command":
        raise InvalidRequest(f"unknown message kind {message.kind!r}", field="kind")
    return message


def command_error(exc: Exception, message: _SocketCommand | None) -> str:
    """A command's failure as its error message (``ref`` once the message was decoded)."""
    if problem_of(exc)["status"] >= 500 and kind_of(exc) is None:  # (the storage's: logged once a while)
        log.exception("command over the socket failed")
    return error_message(exc, message.ref if message is not None else None)


def result_message(ref: str | None, body: bytes) -> str:
    """{"kind":"result","ref":…,<the body's own fields>}: spliced from the stored JSON object's bytes
    (the same document POST /commands answers), not decoded and encoded again."""
    return result_payload(ref, body).decode()


def result_payload(ref: str | None, body: bytes) -> bytes:
    """``result_message`` as the bytes written to the socket (the stored body is UTF-8 JSON already)."""
    if ref is None:  # (a client that sends no ref: the prefix is a constant)
        return _RESULT_NO_REF + body[1:] if body != b"{}" else _RESULT_EMPTY
    if body == b"{}":
        return _RESULT + _encode(ref) + b"}"
    return _RESULT + _encode(ref) + b"," + body[1:]


_RESULT = b'{"kind":"result","ref":'
_RESULT_NO_REF = _RESULT + b"null,"
_RESULT_EMPTY = _RESULT + b"null}"
