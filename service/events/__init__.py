"""The log: envelope, codec, store, replay, redaction and the application service."""
