"""Salvo's Python client: typed HTTP (sync and async), the resumable websocket stream, and a terminal CLI.

It speaks to the service only over HTTP and websockets (it imports nothing of the service).
"""

from .client import AsyncSalvoClient, SalvoClient
from .errors import ApiError
from .stream import GameStream, SyncGameStream

__all__ = ["ApiError", "AsyncSalvoClient", "GameStream", "SalvoClient", "SyncGameStream"]
