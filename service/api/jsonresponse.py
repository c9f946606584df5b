"""Responses encoded by msgspec (the same encoder the store uses), not by FastAPI's jsonable_encoder."""

from __future__ import annotations

from typing import Any

import msgspec
from starlette.responses import Response

_encoder = msgspec.json.Encoder()


class MsgspecResponse(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        if isinstance(content, bytes):
            return content
        return _encoder.encode(content)
