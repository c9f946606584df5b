"""Command ids: unique, cheap (no os.urandom per command), fresh after a fork or a reseeded source."""

from __future__ import annotations

import os

from service.events import ids


class _CountingSecrets:
    def __init__(self) -> None:
        self.calls = 0

    def token_hex(self, n: int = 32) -> str:
        self.calls += 1
        return f"{self.calls:0{2 * n}x}"


def test_command_ids_are_unique_and_draw_one_prefix(monkeypatch: object) -> None:
    source = _CountingSecrets()
    monkeypatch.setattr(ids, "secrets", source)  # type: ignore[attr-defined]
    drawn = [ids.command_id() for _ in range(10_000)]
    assert len(set(drawn)) == len(drawn)
    assert source.calls == 1  # one random prefix for the whole run, not one draw per command
    assert all(d.startswith("c_") for d in drawn)


def test_a_new_source_draws_a_new_prefix(monkeypatch: object) -> None:
    first = _CountingSecrets()
    monkeypatch.setattr(ids, "secrets", first)  # type: ignore[attr-defined]
    a = ids.command_id()
    second = _CountingSecrets()
    second.calls = 41
    monkeypatch.setattr(ids, "secrets", second)  # type: ignore[attr-defined]
    b = ids.command_id()
    assert second.calls == 42 and a != b


def test_a_forked_child_does_not_repeat_the_parents_ids() -> None:
    ids.command_id()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report its next id and leave at once
        os.write(write, ids.command_id().encode())
        os._exit(0)
    os.close(write)
    child = os.read(read, 100).decode()
    os.waitpid(pid, 0)
    parent = ids.command_id()
    assert child[:14] != parent[:14]  # different prefixes ("c_" + 12 hex)
