"""The page's files cached and compressed (issue 38): versioned URLs kept a year, the rest revalidated by
ETag (304), text gzipped when accepted, a web app manifest linked from the page."""

from __future__ import annotations

import json
import re

import pytest
from fastapi.testclient import TestClient

from service.api.app import WEB_ROOT, create_app
from service.settings import Settings

YEAR = "public, max-age=31536000, immutable"


@pytest.fixture
def client(sqlite_url):
    with TestClient(create_app(Settings(database_url=sqlite_url))) as c:
        yield c


def _version(client: TestClient) -> str:
    page = client.get("/").text
    found = re.findall(r'"/static/v/([0-9a-f]{16})/app\.js"', page)
    assert found, page
    return found[0]


def test_the_page_links_versioned_files_kept_a_year_and_is_itself_revalidated(client):
    r = client.get("/")
    assert r.status_code == 200 and r.headers["cache-control"] == "no-cache" and r.headers["etag"]
    assert "/static/style.css" not in r.text  # every link of the page is versioned
    version = _version(client)
    for name in ("app.js", "style.css", "game.js", "manifest.webmanifest"):
        r = client.get(f"/static/v/{version}/{name}")
        assert r.status_code == 200 and r.headers["cache-control"] == YEAR, (name, r.headers)
        assert r.content == (WEB_ROOT / name).read_bytes()
    assert client.get("/static/v/0000000000000000/app.js").headers["cache-control"] == "no-cache"  # not this release's
    assert client.get("/static/game.js").headers["cache-control"] == "no-cache"


def test_an_unchanged_file_is_not_sent_again(client):
    first = client.get("/static/game.js")
    again = client.get("/static/game.js", headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == first.headers["etag"]
    page = client.get("/")
    assert client.get("/", headers={"If-None-Match": page.headers["etag"]}).status_code == 304
    assert client.get("/static/game.js", headers={"If-None-Match": '"other"'}).status_code == 200


def test_text_is_gzipped_when_the_browser_accepts_it(client):
    raw = (WEB_ROOT / "game.js").read_bytes()
    r = client.get("/static/game.js", headers={"Accept-Encoding": "gzip, br"})  # httpx decodes it back
    assert r.headers["content-encoding"] == "gzip" and r.headers["vary"] == "Accept-Encoding"
    assert int(r.headers["content-length"]) < len(raw) // 2 and r.content == raw
    plain = client.get("/static/game.js", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.content == raw
    assert r.headers["content-type"].startswith("text/javascript")


def test_only_the_pages_own_files_are_served(client):
    for path in (
        "/static/../../service/settings.py",
        "/static/%2e%2e/%2e%2e/pyproject.toml",
        "/static/nothing.js",
        f"/static/v/{_version(client)}/../app.py",
    ):
        assert client.get(path).status_code == 404, path


def test_the_page_links_a_web_app_manifest_that_installs(client):
    page = client.get("/").text
    link = re.search(r'<link rel="manifest" href="([^"]+)"', page)
    assert link, page
    r = client.get(link.group(1))
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/manifest+json")
    manifest = json.loads(r.content)
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone" and manifest["name"]
    icon = client.get(link.group(1).rsplit("/", 1)[0] + "/" + manifest["icons"][0]["src"])
    assert icon.status_code == 200 and icon.headers["content-type"] == "image/svg+xml"
    assert icon.content == (WEB_ROOT / "icon.svg").read_bytes()
