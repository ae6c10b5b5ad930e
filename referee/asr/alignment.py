"""Utterances aligned to their known text, frame by frame (PocketSphinx's aligner), and the
alignments kept from one relearning to the next."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

from referee.asr.lexicon import dictionary_file, dictionary_lines, normalize_word

Aligned = tuple[np.ndarray, list[str]] | None  # senone id and phone per frame; None: did not fit


class Aligner:
    """PocketSphinx forced alignment of utterances to their known text, frame by frame."""

    def __init__(self, model_dir: Path, words: Iterable[str]) -> None:
        import pocketsphinx

        with dictionary_file(dictionary_lines(sorted(set(words)))) as dict_path:
            config = pocketsphinx.Config(hmm=str(model_dir), dict=dict_path, loglevel="FATAL")
            config["lm"] = None
            self._decoder = pocketsphinx.Decoder(config)

    def _decode(self, data: bytes, cmn: np.ndarray) -> None:
        dec = self._decoder
        dec.set_cmn(",".join(f"{v:.4f}" for v in cmn))
        dec.start_utt()
        dec.process_cep(data, False, True)
        dec.end_utt()

    def align(self, cep: np.ndarray, cmn: np.ndarray, text: str) -> Aligned:
        """Senone id and phone per frame, or None if the text could not be aligned."""
        dec = self._decoder
        data = np.ascontiguousarray(cep, dtype=np.float32).tobytes()
        try:
            dec.set_align_text(text)
            self._decode(data, cmn)  # a word pass, then the state alignment (PocketSphinx's recipe)
            dec.set_alignment()
            self._decode(data, cmn)
            alignment = dec.get_alignment()
        except RuntimeError:  # the text did not fit the audio
            return None
        if alignment is None:
            return None
        senones = np.full(len(cep), -1)
        phones = [""] * len(cep)
        for word in alignment:
            for phone in word:
                for state in phone:
                    end = min(len(cep), state.start + state.duration)
                    senones[state.start:end] = int(state.name)
                    phones[state.start:end] = [phone.name] * (end - state.start)
        return senones, phones


SpeechFrames = tuple[np.ndarray, np.ndarray, np.ndarray]  # speech or not per frame; senone, codebook


def speech_frames(aligner: Aligner, cep: np.ndarray, cmn: np.ndarray, text: str,
                  codebook: dict[str, int]) -> SpeechFrames | None:
    """An utterance aligned to its text: which frames are speech (not silence, all aligned), and
    their senones and codebooks, in small integers; None if the text did not fit the audio."""
    got = aligner.align(cep, cmn, text)
    if got is None:
        return None
    senones, phones = got
    keep = (senones >= 0) & np.array([ph not in ("", "SIL") for ph in phones])
    cbs = np.array([codebook.get(ph, -1) for ph in phones])
    return keep, senones[keep].astype(np.int32), cbs[keep].astype(np.int16)


class Alignments:
    """The alignments made in one relearning, kept for the next (``serve --learn`` adapts every
    few minutes on the newest phrases of play, most of them aligned the time before): an
    utterance, known by its audio and text, is aligned once, with the cepstral mean its voice had
    then, and what a round did not ask for again is dropped at its end."""

    def __init__(self) -> None:
        self._kept: dict[tuple[bytes, str], SpeechFrames | None] = {}
        self._asked: dict[tuple[bytes, str], SpeechFrames | None] = {}

    def get(self, pcm: bytes, text: str,
            align: Callable[[], SpeechFrames | None]) -> SpeechFrames | None:
        """The utterance's frames as kept, or aligned now (``align``)."""
        key = (hashlib.blake2b(pcm, digest_size=16).digest(), text)
        got = self._kept[key] if key in self._kept else align()
        self._asked[key] = got
        return got

    def end_round(self) -> None:
        self._kept, self._asked = self._asked, {}

    def __len__(self) -> int:
        return len(self._kept)


def spoken(text: str) -> str:
    """The words of a prompt as the dictionary spells them."""
    return " ".join(w for w in (normalize_word(t) for t in text.split()) if w)
