"""Seat tokens are safe on a command line: none starts with "-" (read as an option) or "_"."""

from service.events import ids


def test_no_token_starts_like_an_option():
    tokens = [ids.token() for _ in range(5000)]  # about 1 in 32 raw urlsafe tokens starts with - or _
    assert all(t[0].isalnum() for t in tokens)
    assert len(set(tokens)) == len(tokens)
    assert all(len(t) == 32 for t in tokens)
