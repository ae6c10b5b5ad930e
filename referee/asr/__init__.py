"""Offline speech recognition behind one interface: Vosk, PocketSphinx, and a scripted one for tests."""

from referee.asr.base import SAMPLE_RATE, Recognizer, RecognizerError, Result, Word

__all__ = ["SAMPLE_RATE", "Recognizer", "RecognizerError", "Result", "Word"]
