"""Benchmarks: commands that print figures (python -m benchmarks.NAME)."""
