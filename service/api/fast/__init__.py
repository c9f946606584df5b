"""The fast transport, one package behind one setting (``SALVO_FAST_PATH``; off: the plain FastAPI/Starlette/
uvicorn path, the reference the suite also runs over): uvicorn's httptools protocol with coalesced writes and a
direct POST /commands (``http_protocol``, ``command_endpoint``), a websocket protocol whose sockets the fan-out
writes pre-framed (``wsprotocol``, ``rawsocket``, ``direct_stream``, ``fanout``).

The only modules of the service that import private names of uvicorn, Starlette or websockets, written against
uvicorn 0.54.0, starlette 1.10.0, fastapi 0.163.2, websockets 17.4 and httptools 0.9.0 (requirements.lock);
tests/test_layers.py checks that no other module does.
"""
