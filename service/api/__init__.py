"""HTTP and websocket API."""
