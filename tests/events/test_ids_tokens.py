"""Seat tokens are safe on a command line: none starts with "-" (read as an option) or "_"."""

from service.events import ids


def test_no_token_starts_like_an_option():
    tokens = [ids.token() for _ in range(5000)]  # about 1 in 32 raw urlsafe tokens starts with - or _
    assert all(t[0].isalnum() for t in tokens)
    assert len(set(tokens)) == len(tokens)
    assert all(len(t) == 32 for t in tokens)


async def test_a_token_resolves_the_same_with_its_digest_kept_and_the_kept_ones_are_bounded():
    from types import SimpleNamespace

    import pytest

    from service.events.errors import Unauthorized
    from service.events.tokens import DIGESTS_KEPT, TokenBook, hash_token

    asked: list[str] = []

    class Store:
        async def seat_for_token(self, digest: str) -> object:
            asked.append(digest)
            return SimpleNamespace(game_id="g_1", role="seat", seat="red") if digest == hash_token("tok") else None

    book = TokenBook(Store(), capacity=2)  # type: ignore[arg-type]
    first = await book.viewer("g_1", "tok")
    assert first.seat == "red" and await book.viewer("g_1", "tok") == first
    assert asked == [hash_token("tok")]  # the store is asked by the token's sha256, once
    for i in range(DIGESTS_KEPT + 5):  # any string a client sends: never more than DIGESTS_KEPT kept
        with pytest.raises(Unauthorized):
            await book.viewer("g_1", f"nope{i}")
        assert len(book._digests) <= DIGESTS_KEPT
    assert asked[-1] == hash_token(f"nope{DIGESTS_KEPT + 4}")
    assert await book.viewer("g_1", "tok") == first
