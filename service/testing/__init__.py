"""What a ruleset package's own tests use, installed with Salvo: the conformance kit (``kit``) and random
legal play (``randomplay``). Imported only by tests; nothing in the service imports this package."""
