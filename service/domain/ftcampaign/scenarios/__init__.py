"""Sample campaigns (JSON)."""
