"""The transport a test run is on: ``SALVO_FAST_PATH`` (service/settings.py). ``scripts/test.sh`` runs the
transport's tests a second time with it off, on the plain FastAPI/Starlette/uvicorn path.

    pytestmark = fast_only     # a module that tests a fast-path piece itself: skipped on the plain path
"""

from __future__ import annotations

import pytest

from service.settings import fast_path_from_env

FAST_PATH = fast_path_from_env()

fast_only = pytest.mark.skipif(not FAST_PATH, reason="tests a fast-path piece itself (SALVO_FAST_PATH=off)")
