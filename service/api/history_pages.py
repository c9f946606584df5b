"""The pages of a compact catch-up (``?history=compact``): the log read once per run of pages, folded
once (each page goes on from the state the last one ended in), and each full page kept encoded, per
audience, for the next viewer of that audience to join.

Pages are aligned on seqs: page k holds the seqs in (k·PAGE, (k+1)·PAGE] that the viewer may see. A
full page never changes once the log has passed its end, except through a later rewind (which marks
its events superseded), so its cached bytes are kept under the game's rewinds and a rewind makes them
unreachable. Redaction is the reader's, per viewer, exactly as on the default join.
"""

from __future__ import annotations

import contextlib
import gc
import weakref
from collections import OrderedDict
from collections.abc import AsyncIterator, Iterator
from typing import Any

from service.domain.core import Viewer
from service.events.application import audience_key
from service.events.envelope import Envelope
from service.events.reading import GameReader

from .compact import compact_page

PAGE = 1000  # seqs per compact page (about 80 KB of a shooting game's entries)
RUN = 20  # pages read from the store in one query, at most (bounds the rows held at once)
CACHE_BYTES = 32 << 20  # encoded pages kept per process

# (page end, the page's message or None when it holds nothing this viewer may see, its last seq shown)
Page = tuple[int, bytes | None, int | None]


class PageCache:
    """Encoded full pages, least recently used first out, within a byte budget."""

    def __init__(self, budget: int = CACHE_BYTES) -> None:
        self.budget = budget
        self.size = 0
        self.hits = 0
        self._pages: OrderedDict[tuple[Any, ...], Page] = OrderedDict()

    def get(self, key: tuple[Any, ...]) -> Page | None:
        page = self._pages.get(key)
        if page is not None:
            self._pages.move_to_end(key)
            self.hits += 1
        return page

    def put(self, key: tuple[Any, ...], page: Page) -> None:
        if key in self._pages:
            return
        self._pages[key] = page
        self.size += _cost(page)
        while self.size > self.budget and self._pages:
            _, dropped = self._pages.popitem(last=False)
            self.size -= _cost(dropped)


def _cost(page: Page) -> int:
    return len(page[1] or b"") + 200  # the key and tuple besides the bytes


_caches: weakref.WeakKeyDictionary[GameReader, PageCache] = weakref.WeakKeyDictionary()


def cache_of(reader: GameReader) -> PageCache:
    """One cache per reader (per app): its pages are rendered from that reader's store."""
    cache = _caches.get(reader)
    if cache is None:
        cache = _caches[reader] = PageCache()
    return cache


async def history_pages(
    reader: GameReader, game_id: str, viewer: Viewer, after: int, upto: int, page: int | None = None
) -> AsyncIterator[Page]:
    """The compact pages of (after, upto] for ``viewer``, in order; ``upto`` must be stored."""
    page = page or PAGE
    cache = cache_of(reader)
    head = await reader.service.current_head(game_id)
    rewinds = tuple(head.rewinds)  # a copy: the head's list grows in place

    def key(start: int) -> tuple[Any, ...] | None:
        """The cache key of the page starting after ``start``, when that page is a full one."""
        end = start + page
        return (game_id, audience_key(viewer), page, start, rewinds) if start % page == 0 and end <= upto else None

    start = after
    state: Any = None
    state_seq: int | None = None  # the seq ``state`` was taken at
    while start < upto:
        k = key(start)
        hit = cache.get(k) if k is not None else None
        if hit is not None:
            yield hit
            start = hit[0]
            continue
        # a run of pages not in the cache: one read, one fold
        bounds = [min(upto, (start // page + 1) * page)]
        while bounds[-1] < upto and len(bounds) < RUN:
            nk = key(bounds[-1])
            if nk is not None and cache.get(nk) is not None:
                break
            bounds.append(min(upto, bounds[-1] + page))
        rows = await reader.store.read_events(game_id, after=start, upto=bounds[-1])
        if not viewer.is_umpire and state_seq != start:
            state = (await reader.state_at(game_id, start))[1]
        earlier = await reader.rewound_states(head, viewer, start, rows)
        with _collector_paused():
            envelopes, state = reader.render_rows(head, viewer, rows, state, earlier, shared=True)
            done = _paged(game_id, envelopes, bounds)
        state_seq = bounds[-1]
        for page_done in done:
            k = key(start)
            if k is not None:
                cache.put(k, page_done)
            yield page_done
            start = page_done[0]


def _paged(game_id: str, envelopes: list[Envelope], bounds: list[int]) -> list[Page]:
    out: list[Page] = []
    i = 0
    for end in bounds:
        j = i
        while j < len(envelopes) and envelopes[j].seq <= end:
            j += 1
        shown = envelopes[i:j]
        out.append((end, compact_page(game_id, shown) if shown else None, shown[-1].seq if shown else None))
        i = j
    return out


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off for one synchronous stretch (no awaits inside): rendering a run
    allocates tens of thousands of short-lived objects, which set off collections that walk the whole
    heap (about a third of a cold join's CPU); what it allocates is freed by reference counts anyway."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
