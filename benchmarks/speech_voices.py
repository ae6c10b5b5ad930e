"""The speech benchmark's voices calibrated on a script, or learned from what the referee heard."""

from __future__ import annotations

import csv
import zlib
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from benchmarks.game_states import TALK_MOMENTS, legal_labels, moments_for
from benchmarks.game_states import label as heard_label
from benchmarks.speech_corpus import SPEECH, Item, file_seed, heard
from benchmarks.speech_listening import SPHINX_ES_DIR, STATE, listen, start_worker
from benchmarks.speech_scoring import needed
from referee.audio import to_pcm
from referee.phrases import SURER
from referee.utterance import Utterance

CALIBRATION_RENDER = "normal/low"  # speed/pitch of the renders a voice is calibrated on
LEARN_RENDERS = ("slow/low", "normal/low", "fast/low")  # --learn: what a voice said before
LEARN_CONF = 0.8  # --learn: what the referee heard at least this surely is taken as said


def calibration_script(voice: str) -> list[tuple[str, str]]:
    """(file, text) of a voice's calibration renders: the call and number texts, said once."""
    with (SPEECH / "manifest.csv").open(encoding="utf-8") as fh:
        return [(row["file"], row["text"]) for row in csv.DictReader(fh)
                if row["voice"] == voice and row["group"] in ("call", "points")
                and f"{row['speed']}/{row['pitch']}" == CALIBRATION_RENDER]


def calibrate_voices(voices: Iterable[str], folder: Path, snr: str = "clean",
                     room: tuple[float, float] | None = None, line: bool = False,
                     together: str = "") -> dict[str, str]:
    """One adapted means file per voice, estimated on its calibration script; with an ``snr``,
    the prompts said in the corpus's noise at that SNR, as at a table that calibrates in the noise
    it plays in (each prompt with its own stretch of noise, chosen by its file); with a ``room``
    (RT60, DRR: ``speech_corpus.in_room``), said in that room first; with a ``line``, heard
    through an 8 kHz line (``speech_corpus.through_line``), as the table's microphone is. With
    ``together`` "all", one file for them all, on every voice's script: a table calibrates its
    players one after another into one calibration (``voices calibrate``); "others", each voice
    heard with the one file of the other voices: a player who sat down after the table
    calibrated; "pairs", each voice heard with the file of itself and the voice after it (a
    table of two), to set against "all", where a third voice, one who left, is in it too."""
    from referee.asr.adapt import calibrate
    from referee.asr.ptm_model import write_means

    out: dict[str, str] = {}
    everyone = sorted(voices)
    # (the voices calibrated, the voices heard with that calibration)
    tables = {"all": [(everyone, everyone)],
              "others": [([v for v in everyone if v != voice], [voice]) for voice in everyone],
              "pairs": [([voice, everyone[(k + 1) % len(everyone)]], [voice])
                        for k, voice in enumerate(everyone)],
              "": [([voice], [voice]) for voice in everyone]}[together]
    for table, heard_with in tables:
        prompts = [[(_prompt(f, snr, room, line), text) for f, text in calibration_script(voice)]
                   for voice in table]
        means, stats = calibrate(SPHINX_ES_DIR, prompts)
        path = folder / f"means-{snr}-{room}-{line}-{zlib.crc32(' '.join(table).encode())}"
        write_means(path, means)
        out.update(dict.fromkeys(heard_with, str(path)))
        noise = ("" if snr == "clean" else f" in noise at {snr} dB SNR") + (
            f" in a room (RT60 {room[0]:g} s, DRR {room[1]:g} dB)" if room else "") + (
            " through an 8 kHz line" if line else "")
        print(f"  calibrated {' + '.join(table)}{noise}: {sum(map(len, prompts))} prompts, "
              f"{stats.frames / 100:.0f} s of speech" + (
                  f"; heard with it: {', '.join(heard_with)}" if heard_with != table else ""))
    return out


def _prompt(file: str, snr: str, room: tuple[float, float] | None, line: bool) -> bytes:
    """A calibration prompt as the test files get it (``speech_corpus.heard``): in a ``room``
    (RT60, DRR) if one is given, with noise at ``snr`` (or "clean"), through an 8 kHz ``line`` if
    asked; its noise chosen by its file."""
    return to_pcm(heard(file, zlib.crc32(file.encode()), snr, room, line))


def said_at(item: Item) -> Item:
    """The file said at one moment of a hand, as the referee learning from play hears it: a call
    or number file where its call is legal, a look-alike or chatter at one of the moments of talk
    (chosen by file)."""
    if item.group in ("lookalike", "chatter"):
        moment = TALK_MOMENTS[file_seed(item) % len(TALK_MOMENTS)]
    else:
        moment = (moments_for(item.label.split("+")) or list(TALK_MOMENTS))[0]
    return replace(item, moment=moment)


def learned_samples(item: Item, utterances: Iterable[Utterance],
                    min_conf: float) -> list[tuple[bytes, str]]:
    """(audio, text) of what the referee would learn from in this file, said at its moment
    (``said_at``): utterances whose every word reached ``min_conf`` (flor's surer bar if higher)
    and that carry a call or a number the game would have applied, cut from their clip."""
    from referee.asr.play_phrases import words_of
    from referee.phrases import parse

    legal = legal_labels(item.moment)
    out: list[tuple[bytes, str]] = []
    for utt in utterances:
        found = [heard_label(h) for h in parse(utt.text) if h.kind != "decoy"]
        # learning takes only what it is sure of: no call's bar is lowered below ``min_conf``
        if not any(label in legal
                   and utt.confidence >= needed(label, min_conf, (SURER, frozenset()))
                   for label in found):
            continue
        words = words_of(utt.clip, utt.start - utt.clip_start, utt.end - utt.clip_start)
        if words:
            out.append((words, utt.text))
    return out


def learn_voices(voices: Iterable[str], folder: Path, min_conf: float,
                 calibrated: dict[str, str] | None = None) -> dict[str, str]:
    """One adapted means file per voice, estimated with no prompts: on what the uncalibrated
    referee heard surely, and the game would have applied, in all that voice said at the
    low-pitch renders (calls, numbers, look-alikes and chatter alike), its own transcripts taken
    as the truth.  With ``calibrated`` (a voice's means from ``calibrate_voices``), as at a table
    that calibrated before playing with ``serve --learn``: the calibrated referee listens, and
    the calibration's prompts are learned from with what it heard (``referee.asr.learn.learn``)."""
    from referee.asr.adapt import calibrate
    from referee.asr.base import RecognizerError
    from referee.asr.ptm_model import write_means
    from referee.wav import read_pcm

    with (SPEECH / "manifest.csv").open(encoding="utf-8") as fh:
        rows = [row for row in csv.DictReader(fh) if f"{row['speed']}/{row['pitch']}" in LEARN_RENDERS]
    start_worker("sphinx-es", "clean", None, None)
    STATE["calibration"] = calibrated or {}
    out: dict[str, str] = {}
    for voice in sorted(voices):
        said = [said_at(Item(r["file"], r["text"], r["label"], r["group"], voice))
                for r in rows if r["voice"] == voice]
        samples: list[tuple[bytes, str]] = []
        groups: dict[str, int] = defaultdict(int)
        for it in said:
            got = learned_samples(it, listen(it)[0], min_conf)
            samples += got
            groups[it.group] += len(got)
        prompts = ([(read_pcm(SPEECH / f), text) for f, text in calibration_script(voice)]
                   if calibrated and voice in calibrated else [])
        try:
            means, stats = calibrate(SPHINX_ES_DIR, [prompts, samples] if prompts else [samples])
        except RecognizerError as err:
            print(f"  {voice}: not learned ({err.message})")
            continue
        path = folder / f"learned-{'prompted-' if prompts else ''}{zlib.crc32(voice.encode())}"
        write_means(path, means)
        out[voice] = str(path)
        print(f"  learned {voice}: {len(samples)} phrases from {len(said)} files "
              f"({', '.join(f'{g} {n}' for g, n in sorted(groups.items()))}), "
              f"{stats.frames / 100:.0f} s of speech")
    STATE.clear()
    return out
