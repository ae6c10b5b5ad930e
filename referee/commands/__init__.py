"""Subcommands of truco-referee, one module each."""
