#!/usr/bin/env python3
"""Standalone verifier for Salvo battle files: chain, signature, dice (standard library only; the signature
check uses `cryptography` where it is installed).

    python clients/verify_dice.py game.salvo.jsonl [--keys keys.json | --server https://salvo.example]
                                  [--require-signature]

The verifier itself lives in the client package (clients/python/salvo_client/verify.py, installed with
`pip install clients/python` and run as `salvo-client verify`); this script loads that one file by its path,
not the package (whose other modules need httpx), so it still runs with the standard library alone.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_PATH = Path(__file__).resolve().parent / "python" / "salvo_client" / "verify.py"
_spec = importlib.util.spec_from_file_location("salvo_battle_verify", _PATH)
assert _spec is not None and _spec.loader is not None, _PATH
_module = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = _module  # dataclasses look their module up by name
_spec.loader.exec_module(_module)

Dice = _module.Dice
derive_face = _module.derive_face
merkle_root = _module.merkle_root
proof_root = _module.proof_root
slot_key = _module.slot_key
verify = _module.verify
verify_file = _module.verify_file
main = _module.main

if __name__ == "__main__":
    sys.exit(main(sys.argv))
