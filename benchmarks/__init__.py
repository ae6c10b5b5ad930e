"""Benchmarks: commands that print figures (python -m benchmarks.NAME: cards, cards_instructions,
engine, scoreboard_load, speech); game_states and speech_* are parts of the speech benchmark."""
