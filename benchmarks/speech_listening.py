"""The speech benchmark's listening: each worker process hears corpus files as the referee would."""

from __future__ import annotations

import random
import time
import zlib
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from benchmarks.game_states import expected_at
from benchmarks.game_states import label as heard_label
from benchmarks.speech_corpus import (
    NOISE_LEAD_S,
    NOISE_TAIL_S,
    SHARED,
    Item,
    file_seconds,
    file_seed,
    heard,
    speech_end,
    synthetic_voices,
    voice_files,
)
from benchmarks.speech_scoring import Outcome
from referee.utterance import Utterance

SPHINX_ES_DIR = SHARED / "models" / "cmusphinx-es-5.2-ptm" / "acoustic_model"
SETTLE_S = 30.0  # audio of the same voice (or a table's, --table-talk) heard before each file

# What a worker process (or the main one, to learn voices) listens with: set by ``start_worker``.
STATE: dict[str, object] = {}


def settle_files(voice: str, half: int, files: dict[str, list[str]],
                 table: frozenset[str] = frozenset()) -> list[str]:
    """About ``SETTLE_S`` seconds of the voice's files from one half of them (by name): what the
    referee heard from this table before the calls of the other half were said. With the voices
    of a ``table``, the caller's files and theirs, in equal shares and shuffled: a table of
    several voices, the caller one of them."""
    count = max(1, int(SETTLE_S / 1.2))  # the files last about 1.2 s
    talk: list[str] = []
    for talker in sorted({voice} | table):
        theirs = sorted(f for f in files.get(talker, []) if zlib.crc32(f.encode()) % 2 == half)
        random.Random(talker).shuffle(theirs)
        talk += theirs[:count]
    if table:
        random.Random(voice).shuffle(talk)
    return talk[:count]


def init_worker(recognizer: str, snr: str, models_dir: str | None, tune: str | None,
                calibration: dict[str, str] | None = None, early: bool = True,
                revise: bool = True, frames: Callable[[str, int], np.ndarray] | None = None,
                chunks: Callable[[np.ndarray, int], list[Any]] | None = None,
                table: bool = False) -> None:
    # A worker that fails here would be restarted by the pool forever: keep the error and let the
    # first item raise it, so the run stops with the reason.
    try:
        start_worker(recognizer, snr, models_dir, tune)
        STATE["calibration"] = calibration or {}
        STATE["early"] = early
        STATE["revise"] = revise
        STATE["table"] = synthetic_voices() if table else frozenset()
        if frames is not None:
            STATE["frames"] = frames
        if chunks is not None:  # the frames cut into the listener's chunks another way
            STATE["chunks"] = chunks
    except Exception as err:  # noqa: BLE001 - reported by run_one
        STATE["error"] = f"{type(err).__name__}: {err}"


def start_worker(recognizer: str, snr: str, models_dir: str | None, tune: str | None) -> None:
    """This process's recognizer, condition and corpus files by voice (and noises), in ``STATE``."""
    import json

    from referee.asr.grammar import PhraseList
    from referee.asr.sphinx import SphinxRecognizer
    from referee.asr.sphinx_decoder import SphinxTuning

    plist = PhraseList.from_table()
    tuning = SphinxTuning(**json.loads(tune)) if tune else None
    if recognizer == "sphinx-es":
        rec: object = SphinxRecognizer(plist, SPHINX_ES_DIR, tuning=tuning)
    elif recognizer == "sphinx-en":
        rec = SphinxRecognizer(plist, None, english=True, tuning=tuning)
    else:
        from models.paths import models_dir as resolve
        from referee.asr.find import find_model, make_recognizer

        rec = make_recognizer(find_model(resolve(models_dir), "vosk"), plist)
    STATE["rec"] = rec
    STATE["tuning"] = tuning
    STATE["snr"] = snr
    STATE["voice_files"] = voice_files()


def _calibrated(voice: str, means: str) -> object:
    """The worker's recognizer for one calibrated voice (made once)."""
    from referee.asr.grammar import PhraseList
    from referee.asr.sphinx import SphinxRecognizer
    from referee.asr.sphinx_decoder import SphinxTuning

    recs: dict[str, object] = STATE.setdefault("calibrated", {})  # type: ignore[assignment]
    if voice not in recs:
        tuning: SphinxTuning | None = STATE.get("tuning")  # type: ignore[assignment]
        recs[voice] = SphinxRecognizer(PhraseList.from_table(), SPHINX_ES_DIR, tuning=tuning,
                                       means=Path(means))
    return recs[voice]


class Heard(NamedTuple):
    """What the listener handed over for one file, and what it took."""

    utterances: list[Utterance]
    audio_s: float  # the file's length, with the table's noise around it
    cpu_s: float
    # each utterance handed over early, with its revision by the whole phrase (none with
    # --no-revise)
    early: list[tuple[Utterance, Utterance]]
    # per utterance, how long after its chunk was heard this machine handed it over (its own
    # decoding, and that of the chunks before it still being done)
    busy_s: list[float]


def delays(heard_at: list[float], spent: list[float]) -> list[float]:
    """How long after each chunk was heard the listener was done with it, on one core: a chunk
    is taken once it has been heard and the one before is done with (seconds, in order)."""
    out, done = [], 0.0
    for at, cpu in zip(heard_at, spent):
        done = max(done, at) + cpu
        out.append(done - at)
    return out


def listen(item: Item) -> Heard:
    """What the listener hands over for one file, from the cepstral mean settled on its voice's
    other files (or on a table's talk, ``settle_files``)."""
    from referee.audio import AudioChunk, Channels, to_chunk, to_pcm
    from referee.listener import Listener

    if "error" in STATE:
        raise RuntimeError(STATE["error"])
    rec = STATE["rec"]
    calibration: dict[str, str] = STATE.get("calibration", {})  # type: ignore[assignment]
    if item.voice in calibration:
        rec = _calibrated(item.voice, calibration[item.voice])
    snr = str(STATE["snr"])

    # a file as the referee hears it: the corpus's, or another benchmark's (frames × channels)
    corpus = partial(heard, snr=snr, tail_s=NOISE_TAIL_S, lead_s=NOISE_LEAD_S)
    load: Callable[[str, int], np.ndarray] = STATE.get("frames", corpus)  # type: ignore[assignment]

    rec.reset()  # type: ignore[attr-defined]
    if hasattr(rec, "settle"):
        # The cepstral mean the stream would have after hearing this voice for a while, from the
        # other half of its files (computed once per voice and half).
        half = 1 - file_seed(item) % 2
        means: dict[tuple[str, int], tuple[list[float], str]] = STATE.setdefault("means", {})  # type: ignore[assignment]
        if (item.voice, half) not in means:
            files = STATE["voice_files"]
            table: frozenset[str] = STATE.get("table", frozenset())  # type: ignore[assignment]
            talk = settle_files(item.voice, half, files, table)  # type: ignore[arg-type]
            for k, file in enumerate(talk):
                rec.settle(to_pcm(load(file, k)))
            means[(item.voice, half)] = (rec.noise_levels, rec.cepstral_mean)
        rec.reset()
        # the table's noise heard so far, then its mean (for the decoder that noise chooses)
        rec.noise_levels, rec.cepstral_mean = means[(item.voice, half)]
    if hasattr(rec, "expecting"):  # the table's moment, as the referee tells its recognizer
        rec.expecting = (lambda: expected_at(item.moment)) if item.moment else None
    frames = load(item.file, file_seed(item))
    utterances: list[Utterance] = []
    revised: dict[int, Utterance] = {}
    listener = Listener(rec, utterances.append, early=bool(STATE.get("early", True)),  # type: ignore[arg-type]
                        on_revisions=lambda pairs: revised.update((id(utt), later) for utt, later in pairs))
    chunks: list[tuple[float, float, int]] = []  # (heard at, CPU seconds, utterances handed over)
    step, channels = 1600, Channels()
    # with two microphones, the one heard last before the file: either team's, as at a table
    channels.heard = file_seed(item) // 2 % 2
    # the chunks as another benchmark's source makes them (two devices), or cut here
    made: Callable[[np.ndarray, int], list[AudioChunk]] | None = STATE.get("chunks")  # type: ignore[assignment]
    given = made(frames, file_seed(item)) if made else None
    count = len(given) if given is not None else -(-len(frames) // step)
    for k in range(count + 1):  # every chunk, then the end of the stream
        before, start = len(utterances), time.process_time()
        if k < count:
            chunk = given[k] if given is not None else to_chunk(frames[k * step:(k + 1) * step],
                                                                k * step / 16000, channels)
            listener.feed(chunk)
            until = chunk.t + chunk.duration
        else:
            listener.close()
            until = len(frames) / 16000
        chunks.append((until, time.process_time() - start, len(utterances) - before))
    heard_at, spent, handed = (list(column) for column in zip(*chunks))
    busy = [wait for wait, n in zip(delays(heard_at, spent), handed) for _ in range(n)]
    early: list[tuple[Utterance, Utterance]] = []
    if STATE.get("revise", True):
        early = [(u, revised.get(id(u), u)) for u in utterances if u.early]
        utterances = [revised.get(id(u), u) for u in utterances]
    return Heard(utterances, len(frames) / 16000, sum(spent), early, busy)


def run_one(item: Item) -> Outcome:
    from referee.phrases import parse
    from referee.utterance import item_confidence

    utterances, audio_s, cpu, early, busy = listen(item)
    around = audio_s - file_seconds(item.file)  # the table's noise heard before and after the file
    end = speech_end(item) + (NOISE_LEAD_S if around > 0 else 0.0)
    heard: list[tuple[str, float, float, int, int | None]] = []
    for index, utt in enumerate(utterances):
        other_words = not utt.heard_again  # the whole phrase heard others there
        for h in parse(utt.text):
            if h.kind == "decoy":
                continue
            conf = item_confidence(utt, h.start, h.end)
            heard.append((heard_label(h), conf, utt.emitted_at - end, index,
                          None if other_words else utt.phrase))
    early_calls = [(heard_label(h), item_confidence(later, h.start, h.end))
                   for first, later in early for h in parse(first.text) if h.kind == "call"]
    # the team of each utterance that handed over a call or a number, where it was given one
    teams = [utterances[i].team for i in sorted({utterance for _, _, _, utterance, _ in heard})
             if utterances[i].team is not None]
    refused = tuple(h.text for utt in utterances if not utt.early for h in parse(utt.text)
                    if h.kind in ("decoy", "points"))
    return Outcome(item, heard, audio_s, cpu, early_calls, around, busy,
                   (teams.count("A"), len(teams)), refused)
