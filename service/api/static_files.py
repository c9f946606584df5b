"""The web page's files (clients/web), cached and compressed (issue 38).

- The page is served at ``/`` with its links rewritten to ``/static/v/<version>/…``: the version is a digest of
  every file of the page, so a release changes every URL and a browser may keep each file for a year
  (``Cache-Control: public, max-age=31536000, immutable``). The modules import each other by relative paths,
  so one versioned entry point puts the whole tree under the version.
- ``/`` itself, plain ``/static/…`` and a ``/static/v/…`` of another version are served ``no-cache``: a browser
  asks again each time and gets 304 Not Modified while its ETag still holds.
- Text files are gzipped once (``Content-Encoding: gzip`` when the request accepts it, ``Vary: Accept-Encoding``).

The files are read at start-up and again whenever one's modification time or size changes (an edit while
developing shows on the next load; its URL's version moves at the next start).
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
import os
from dataclasses import dataclass
from pathlib import Path

from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".html": "text/html; charset=utf-8",
    ".md": "text/markdown; charset=utf-8",
    ".webmanifest": "application/manifest+json",
    ".svg": "image/svg+xml",
    ".json": "application/json",
}
COMPRESSIBLE = (".js", ".css", ".html", ".md", ".webmanifest", ".svg", ".json")


@dataclass(frozen=True)
class Asset:
    stamp: tuple[int, int]  # mtime_ns, size: when either changes the file is read again
    body: bytes
    gzipped: bytes | None  # None when gzip does not make it smaller
    etag: str
    media_type: str


def _media_type(path: Path) -> str:
    return TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"


class WebFiles:
    """The page's files by their path under the root; only files present at start-up are served."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.names = sorted(
            str(p.relative_to(self.root)).replace(os.sep, "/")
            for p in self.root.rglob("*")
            if p.is_file() and not any(part.startswith(".") for part in p.relative_to(self.root).parts)
        )
        self.assets: dict[str, Asset] = {}
        digest = hashlib.sha256()
        for name in self.names:
            digest.update(name.encode() + b"\0" + (self.root / name).read_bytes() + b"\0")
        self.version = digest.hexdigest()[:16]

    def get(self, name: str) -> Asset | None:
        if name not in self.names:  # nothing outside the list: no traversal, no dotfiles
            return None
        path = self.root / name
        try:
            st = path.stat()
        except OSError:
            return None
        stamp = (st.st_mtime_ns, st.st_size)
        asset = self.assets.get(name)
        if asset is None or asset.stamp != stamp:
            body = path.read_bytes()
            if name == "index.html":
                body = body.replace(b'"/static/', f'"/static/v/{self.version}/'.encode())
            packed = gzip.compress(body, 9, mtime=0) if path.suffix in COMPRESSIBLE else None
            asset = Asset(
                stamp,
                body,
                packed if packed is not None and len(packed) < len(body) else None,
                '"' + hashlib.sha256(body).hexdigest()[:20] + '"',
                _media_type(path),
            )
            self.assets[name] = asset
        return asset

    def respond(self, request: Request, name: str, cache: str) -> Response:
        asset = self.get(name)
        if asset is None:
            return Response("Not Found", status_code=404, media_type="text/plain")
        headers = {"ETag": asset.etag, "Cache-Control": cache, "Vary": "Accept-Encoding"}
        if asset.etag in (t.strip() for t in request.headers.get("if-none-match", "").split(",")):
            return Response(status_code=304, headers=headers)
        body = asset.body
        if asset.gzipped is not None and "gzip" in request.headers.get("accept-encoding", ""):
            body = asset.gzipped
            headers["Content-Encoding"] = "gzip"
        if request.method == "HEAD":
            headers["Content-Length"] = str(len(body))
            return Response(status_code=200, headers=headers, media_type=asset.media_type)
        return Response(body, headers=headers, media_type=asset.media_type)


def routes(root: Path) -> list[Route]:
    """``/`` (the page, its links versioned), ``/static/v/<version>/<file>`` and ``/static/<file>``."""
    files = WebFiles(root)

    async def index(request: Request) -> Response:
        return files.respond(request, "index.html", REVALIDATE)

    async def versioned(request: Request) -> Response:
        current = request.path_params["version"] == files.version
        return files.respond(request, request.path_params["name"], IMMUTABLE if current else REVALIDATE)

    async def plain(request: Request) -> Response:
        return files.respond(request, request.path_params["name"], REVALIDATE)

    return [
        Route("/", index, methods=["GET", "HEAD"], include_in_schema=False),
        Route("/static/v/{version}/{name:path}", versioned, methods=["GET", "HEAD"], include_in_schema=False),
        Route("/static/{name:path}", plain, methods=["GET", "HEAD"], include_in_schema=False),
    ]


def install(app: FastAPI, root: Path) -> None:
    """Serve the page's files from ``root`` (clients/web) on the app's router."""
    app.router.routes.extend(routes(root))
