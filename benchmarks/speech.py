"""Speech benchmark: how well each recognizer hears the calls in the shared corpus, clean and noisy.

    python -m benchmarks.speech [--recognizer sphinx-es sphinx-en vosk-es] [--snr clean 20 10 5]
                                [--limit N] [--voices held-out|tuning|real|all] [--workers 2] [--calibrate]

Figures per recognizer and condition: recall per call, envido-number accuracy, look-alike false
accepts, chatter false triggers, latency from the end of the spoken phrase to the emitted event
(p50/p95, in audio time through the same listener the referee runs; early emission included), and
CPU real-time factor (CPU seconds per second of audio, one process).

The recognizers' settings were chosen on the "tuning" voices only (espeak-ng:es, pico:es-ES,
mbrola:es1); "held-out" reports the other three synthetic voices and the real recordings.

--calibrate (sphinx-es): each synthetic voice is calibrated (referee.asr.adapt, what
'truco-referee voices calibrate' records) on its renders of the call and number texts at one
speed and pitch (normal, low), and tested on its other renders only; the report is given twice on
those same files, without and with calibration. Real recordings are left out (no second render).
--learn: each voice adapted with no prompts on what the referee heard surely at its low-pitch
renders, tested on the high-pitch ones. With both, a third report: calibrated, then learned from
play (the calibrated referee listens, and the prompts are learned from with what it heard), as
'serve --learn' goes on after 'voices calibrate'.
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import statistics
import sys
import tempfile
import time
import zlib
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from multiprocessing import Pool
from pathlib import Path

import numpy as np

from benchmarks.game_states import TALK_MOMENTS, legal_labels, moments_for
from benchmarks.game_states import label as heard_label
from referee.listener import Utterance
from referee.phrases import EASIER, SURER, confidence_needed

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared"
SPEECH = SHARED / "speech"
SPHINX_ES_DIR = SHARED / "models" / "cmusphinx-es-5.2-ptm" / "acoustic_model"
TUNING_VOICES = {"espeak-ng:es", "pico:es-ES", "mbrola:es1"}
LEAD_SILENCE_S = 0.25
SETTLE_S = 30.0  # audio of the same voice heard before each file (a table talks before it calls)
MIN_CONF = 0.6  # the listen command's "unsure" threshold
CALIBRATION_RENDER = "normal/low"  # speed/pitch of the renders a voice is calibrated on
LEARN_RENDERS = ("slow/low", "normal/low", "fast/low")  # --learn: what a voice said before
LEARN_CONF = 0.8  # --learn: what the referee heard at least this surely is taken as said
# The per-call bars a call is applied by (``phrases.confidence_needed``): flor's higher one and
# the lower one of calls of several words; ``--same-bar`` drops both.
Bars = tuple[dict[str, float], frozenset[str]]
OWN_BARS: Bars = (SURER, EASIER)
SAME_BAR: Bars = ({}, frozenset())


@dataclass(frozen=True)
class Item:
    file: str
    text: str
    label: str
    group: str
    voice: str
    render: str = ""  # speed/pitch of a synthetic file


@dataclass
class Outcome:
    item: Item
    # (label, confidence, latency, utterance, phrase): the early utterances of a phrase and what
    # its end hands over share the phrase; an early call the whole phrase heard as other words
    # has no phrase (it holds nothing back: those words are handed over on their own)
    heard: list[tuple[str, float, float, int, int | None]]
    audio_s: float
    cpu_s: float
    # each call handed over early (applied at once), with the confidence the whole phrase gave it
    early: list[tuple[str, float]] = field(default_factory=list)

    def applied(self, min_conf: float, bars: Bars = OWN_BARS,
                strict: bool = False) -> list[tuple[str, float]]:
        """(label, latency) of what would be applied at this threshold (a rare call needs more,
        ``phrases.SURER``, a call of several words less, ``phrases.EASIER``): in each utterance,
        what comes before its first call under the bar (the rest waits for a tap, as at the
        table).  ``strict``: in each phrase, across its utterances, as if every call after a
        doubtful one waited; at the table only those the doubtful one can change wait
        (``doubt.Held``), so the two bound what the table applies.  A number under the bar holds
        nothing back: the rules refuse it where a call is said (it is legal only while the tantos
        are said), and a refused item is no doubtful one."""
        out, held = [], set()
        for label, conf, lat, utterance, phrase in self.heard:
            key = (phrase if phrase is not None else ("alone", utterance)) if strict else utterance
            if key not in held and conf >= confidence_needed(label, min_conf, *bars):
                out.append((label, lat))
            elif not label.startswith("puntos"):
                held.add(key)
        return out

    def got(self, min_conf: float, bars: Bars = OWN_BARS, strict: bool = False) -> list[str]:
        return [label for label, _ in self.applied(min_conf, bars, strict)]

    def latencies(self, min_conf: float, bars: Bars = OWN_BARS) -> list[float]:
        return [lat for _, lat in self.applied(min_conf, bars)]


def load_items(voices: str, limit: int | None, seed: int = 7) -> list[Item]:
    """Corpus items (synthetic and real) for the requested voice split, sampled per group."""
    items: list[Item] = []
    with (SPEECH / "manifest.csv").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            tuning = row["voice"] in TUNING_VOICES
            if voices == "all" or (voices != "real" and (voices == "tuning") == tuning):
                items.append(Item(row["file"], row["text"], row["label"], row["group"], row["voice"],
                                  f"{row['speed']}/{row['pitch']}"))
    if voices != "tuning":
        with (SPEECH / "real_manifest.csv").open(encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                label = row["label"] if row["label"] != "none?" else "none"
                group = "real_call" if label != "none" and not label.startswith("puntos") else (
                    "real_points" if label.startswith("puntos") else "real_other")
                if row["text"] == "con flor me achico":
                    label, group = "con flor me achico", "real_call"
                if row["text"] == "contra flor al resto":
                    label = "contraflor al resto"
                items.append(Item(row["file"], row["text"], label, group, row["accent"]))
    if limit:
        rng = random.Random(seed)
        by_group: dict[str, list[Item]] = defaultdict(list)
        for it in items:
            by_group[it.group].append(it)
        items = [it for g in sorted(by_group) for it in
                 rng.sample(by_group[g], min(limit, len(by_group[g])))]
    return items


def mix_noise(frames: np.ndarray, snr_db: float, noise: np.ndarray, rng: random.Random) -> np.ndarray:
    """Add noise at ``snr_db`` relative to the speech part (the file minus its silent ends)."""
    mono = frames[:, 0]
    lead = int(LEAD_SILENCE_S * 16000)
    speech = mono[lead:-lead] if len(mono) > 2 * lead + 160 else mono
    p_speech = float(np.mean(speech**2)) or 1e-12
    start = rng.randrange(0, max(1, len(noise) - len(mono)))
    seg = np.resize(noise[start:start + len(mono)], len(mono))
    p_noise = float(np.mean(seg**2)) or 1e-12
    gain = np.sqrt(p_speech / (p_noise * 10 ** (snr_db / 10)))
    return np.clip(mono + gain * seg, -1.0, 1.0)[:, None]


# -- worker ---------------------------------------------------------------------------------------
_STATE: dict[str, object] = {}


def _voice_files() -> dict[str, list[str]]:
    """Every corpus file by voice, synthetic and real."""
    out: dict[str, list[str]] = defaultdict(list)
    for manifest, voice in (("manifest.csv", "voice"), ("real_manifest.csv", "accent")):
        with (SPEECH / manifest).open(encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                out[row[voice]].append(row["file"])
    return out


def _seed(item: Item) -> int:
    return zlib.crc32(item.file.encode())


def settle_files(voice: str, half: int, files: dict[str, list[str]]) -> list[str]:
    """About ``SETTLE_S`` seconds of the voice's files from one half of them (by name): what the
    referee heard from this table before the calls of the other half were said."""
    mine = sorted(f for f in files.get(voice, []) if zlib.crc32(f.encode()) % 2 == half)
    random.Random(voice).shuffle(mine)
    return mine[: max(1, int(SETTLE_S / 1.2))]  # the files last about 1.2 s


def calibration_script(voice: str) -> list[tuple[str, str]]:
    """(file, text) of a voice's calibration renders: the call and number texts, said once."""
    with (SPEECH / "manifest.csv").open(encoding="utf-8") as fh:
        return [(row["file"], row["text"]) for row in csv.DictReader(fh)
                if row["voice"] == voice and row["group"] in ("call", "points")
                and f"{row['speed']}/{row['pitch']}" == CALIBRATION_RENDER]


def calibrate_voices(voices: Iterable[str], folder: Path) -> dict[str, str]:
    """One adapted means file per voice, estimated on its calibration script."""
    from referee.asr.adapt import calibrate, write_means
    from referee.audio import read_pcm

    out: dict[str, str] = {}
    for voice in sorted(voices):
        utts = [(read_pcm(SPEECH / f), text) for f, text in calibration_script(voice)]
        means, stats = calibrate(SPHINX_ES_DIR, [utts])
        path = folder / f"means-{zlib.crc32(voice.encode())}"
        write_means(path, means)
        out[voice] = str(path)
        print(f"  calibrated {voice}: {len(utts)} prompts, {stats.frames / 100:.0f} s of speech")
    return out


def learned_samples(item: Item, utterances: Iterable[Utterance],
                    min_conf: float) -> list[tuple[bytes, str]]:
    """(audio, text) of what the referee would learn from in this file: utterances whose every
    word reached ``min_conf`` (flor's surer bar if higher) and that carry a call or a number the
    game would have applied, cut from their clip.  A call or number file is said at a moment where
    its call is legal, a look-alike or chatter at one of the moments of talk (chosen by file)."""
    from referee.asr.learn import words_of
    from referee.phrases import parse

    if item.group in ("lookalike", "chatter"):
        moment = TALK_MOMENTS[_seed(item) % len(TALK_MOMENTS)]
    else:
        moment = (moments_for(item.label.split("+")) or list(TALK_MOMENTS))[0]
    legal = legal_labels(moment)
    out: list[tuple[bytes, str]] = []
    for utt in utterances:
        found = [heard_label(h) for h in parse(utt.text) if h.kind != "decoy"]
        # learning takes only what it is sure of: no call's bar is lowered below ``min_conf``
        if not any(label in legal
                   and utt.confidence >= confidence_needed(label, min_conf, easier=frozenset())
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
    from referee.asr.adapt import calibrate, write_means
    from referee.asr.base import RecognizerError
    from referee.audio import read_pcm

    with (SPEECH / "manifest.csv").open(encoding="utf-8") as fh:
        rows = [row for row in csv.DictReader(fh) if f"{row['speed']}/{row['pitch']}" in LEARN_RENDERS]
    _start("sphinx-es", "clean", None, None)
    _STATE["calibration"] = calibrated or {}
    out: dict[str, str] = {}
    for voice in sorted(voices):
        said = [Item(r["file"], r["text"], r["label"], r["group"], voice) for r in rows if r["voice"] == voice]
        samples: list[tuple[bytes, str]] = []
        groups: dict[str, int] = defaultdict(int)
        for it in said:
            got = learned_samples(it, _listen(it)[0], min_conf)
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
    _STATE.clear()
    return out


def _init(recognizer: str, snr: str, models_dir: str | None, tune: str | None,
          calibration: dict[str, str] | None = None, early: bool = True,
          revise: bool = True) -> None:
    # A worker that fails here would be restarted by the pool forever: keep the error and let the
    # first item raise it, so the run stops with the reason.
    try:
        _start(recognizer, snr, models_dir, tune)
        _STATE["calibration"] = calibration or {}
        _STATE["early"] = early
        _STATE["revise"] = revise
    except Exception as err:  # noqa: BLE001 - reported by _run_one
        _STATE["error"] = f"{type(err).__name__}: {err}"


def _start(recognizer: str, snr: str, models_dir: str | None, tune: str | None) -> None:
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
    _STATE["rec"] = rec
    _STATE["tuning"] = tuning
    _STATE["snr"] = snr
    _STATE["voice_files"] = _voice_files()
    if snr != "clean":
        from referee.audio import read_wav

        _STATE["noises"] = [read_wav(p)[:, 0] for p in sorted((SPEECH / "noise").glob("*.wav"))]


def _calibrated(voice: str, means: str) -> object:
    """The worker's recognizer for one calibrated voice (made once)."""
    from referee.asr.grammar import PhraseList
    from referee.asr.sphinx import SphinxRecognizer
    from referee.asr.sphinx_decoder import SphinxTuning

    recs: dict[str, object] = _STATE.setdefault("calibrated", {})  # type: ignore[assignment]
    if voice not in recs:
        tuning: SphinxTuning | None = _STATE.get("tuning")  # type: ignore[assignment]
        recs[voice] = SphinxRecognizer(PhraseList.from_table(), SPHINX_ES_DIR, tuning=tuning,
                                       means=Path(means))
    return recs[voice]


def _listen(item: Item) -> tuple[list[Utterance], float, float, list[tuple[Utterance, Utterance]]]:
    """What the listener hands over for one file (from its voice's settled cepstral mean), the
    file's length, the CPU seconds it took, and each utterance handed over early with its
    revision by the whole phrase (none with --no-revise)."""
    from referee.audio import read_wav, to_chunk
    from referee.listener import Listener

    if "error" in _STATE:
        raise RuntimeError(_STATE["error"])
    rec = _STATE["rec"]
    calibration: dict[str, str] = _STATE.get("calibration", {})  # type: ignore[assignment]
    if item.voice in calibration:
        rec = _calibrated(item.voice, calibration[item.voice])
    snr = str(_STATE["snr"])

    def load(file: str, seed: int) -> np.ndarray:
        frames = read_wav(SPEECH / file)
        if snr != "clean":
            rng = random.Random(seed)
            noises = _STATE["noises"]
            frames = mix_noise(frames, float(snr), rng.choice(noises), rng)  # type: ignore[arg-type]
        return frames

    rec.reset()  # type: ignore[attr-defined]
    if hasattr(rec, "settle"):
        # The cepstral mean the stream would have after hearing this voice for a while, from the
        # other half of its files (computed once per voice and half).
        half = 1 - _seed(item) % 2
        means: dict[tuple[str, int], tuple[list[float], str]] = _STATE.setdefault("means", {})  # type: ignore[assignment]
        if (item.voice, half) not in means:
            files = _STATE["voice_files"]
            for k, file in enumerate(settle_files(item.voice, half, files)):  # type: ignore[arg-type]
                rec.settle(to_chunk(load(file, k), 0.0).pcm)
            means[(item.voice, half)] = (rec.noise_levels, rec.cepstral_mean)
        rec.reset()
        # the table's noise heard so far, then its mean (for the decoder that noise chooses)
        rec.noise_levels, rec.cepstral_mean = means[(item.voice, half)]
    frames = load(item.file, _seed(item))
    utterances: list[Utterance] = []
    revised: dict[int, Utterance] = {}
    listener = Listener(rec, utterances.append, early=bool(_STATE.get("early", True)),  # type: ignore[arg-type]
                        on_revisions=lambda pairs: revised.update((id(utt), later) for utt, later in pairs))
    t0 = time.process_time()
    step = 1600
    for i in range(0, len(frames), step):
        listener.feed(to_chunk(frames[i:i + step], i / 16000))
    listener.close()
    cpu = time.process_time() - t0
    early: list[tuple[Utterance, Utterance]] = []
    if _STATE.get("revise", True):
        early = [(u, revised.get(id(u), u)) for u in utterances if u.early]
        utterances = [revised.get(id(u), u) for u in utterances]
    return utterances, len(frames) / 16000, cpu, early


def spoken_end(file: str) -> float:
    """Where the speech of a recording ends (seconds): the end of its last 10 ms frame within
    26 dB of its loudest.  The synthetic files end with a known 0.25 s of silence; the real
    recordings with anything from none to more than a second."""
    from referee.audio import read_wav

    x = read_wav(SPEECH / file)[:, 0]
    n = len(x) // 160
    rms = np.sqrt(np.mean(x[: n * 160].reshape(n, 160) ** 2, axis=1))
    loud = np.flatnonzero(rms >= 0.05 * rms.max()) if n else np.array([], dtype=int)
    return (int(loud[-1]) + 1) * 0.01 if len(loud) else len(x) / 16000


def _run_one(item: Item) -> Outcome:
    from referee.listener import item_confidence
    from referee.phrases import parse

    utterances, audio_s, cpu, early = _listen(item)
    speech_end = audio_s - LEAD_SILENCE_S if item.render else spoken_end(item.file)
    heard: list[tuple[str, float, float, int, int | None]] = []
    for index, utt in enumerate(utterances):
        other_words = utt.early and utt.confidence == 0.0  # the whole phrase heard others there
        for h in parse(utt.text):
            if h.kind == "decoy":
                continue
            conf = item_confidence(utt, h.start, h.end)
            heard.append((heard_label(h), conf, utt.emitted_at - speech_end, index,
                          None if other_words else utt.phrase))
    early_calls = [(heard_label(h), item_confidence(later, h.start, h.end))
                   for first, later in early for h in parse(first.text) if h.kind == "call"]
    return Outcome(item, heard, audio_s, cpu, early_calls)


# -- scoring --------------------------------------------------------------------------------------
@dataclass
class Score:
    per_call: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    per_voice: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    strict: list[int] = field(default_factory=lambda: [0, 0])  # calls, ``Outcome.applied(strict)``
    numbers: list[int] = field(default_factory=lambda: [0, 0])
    lookalike: list[int] = field(default_factory=lambda: [0, 0])
    lookalike_calls: list[int] = field(default_factory=lambda: [0, 0])
    chatter: list[int] = field(default_factory=lambda: [0, 0])
    chatter_calls: list[int] = field(default_factory=lambda: [0, 0])
    real_other: list[int] = field(default_factory=lambda: [0, 0])
    extra: list[int] = field(default_factory=lambda: [0, 0])
    # In game: only what the rules allow at that moment is applied (benchmarks.game_states).
    lookalike_game: list[int] = field(default_factory=lambda: [0, 0])
    chatter_game: list[int] = field(default_factory=lambda: [0, 0])
    lookalike_game_sin_flor: list[int] = field(default_factory=lambda: [0, 0])
    chatter_game_sin_flor: list[int] = field(default_factory=lambda: [0, 0])
    # what look-alikes and chatter apply sin flor, by call: (file, moment) pairs
    false_calls_sin_flor: Counter[str] = field(default_factory=Counter)
    extra_game: list[int] = field(default_factory=lambda: [0, 0])
    # said -> [files where its opposite answer was applied, files] ("quiero" for "no quiero")
    opposite: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    numbers_wrong_game: list[int] = field(default_factory=lambda: [0, 0])
    latencies: list[float] = field(default_factory=list)
    # calls handed over early (applied at once) that the whole phrase then took back, by call
    early_back: list[int] = field(default_factory=lambda: [0, 0])
    early_back_calls: Counter[str] = field(default_factory=Counter)
    audio_s: float = 0.0
    cpu_s: float = 0.0
    misses: list[str] = field(default_factory=list)


# An answer taken for its opposite: the worst mistake a referee can make on an answer.
OPPOSITES = {"no quiero": "quiero", "quiero": "no quiero"}


def _in_game(got: list[str], moments: Iterable[str], expected: Iterable[str] = (),
             flor: bool = True) -> list[int]:
    """[moments where something not expected would be applied, moments]."""
    wanted = set(expected)
    hits = [any(g in legal_labels(m, flor) and g not in wanted for g in got) for m in moments]
    return [sum(hits), len(hits)]


def _count_false_calls(counts: Counter[str], got: list[str]) -> None:
    """Count, by call, what a look-alike or chatter file would apply at each moment of talk at a
    table sin flor (a call legal at three moments counts three times)."""
    for moment in TALK_MOMENTS:
        counts.update({g for g in got if g in legal_labels(moment, False)})


def _add(total: list[int], pair: list[int]) -> None:
    total[0] += pair[0]
    total[1] += pair[1]


def _tally(total: list[int], hit: bool) -> None:
    _add(total, [int(hit), 1])


def score(outcomes: Iterable[Outcome], min_conf: float, bars: Bars = OWN_BARS) -> Score:
    s = Score()
    for o in outcomes:
        it, got = o.item, o.got(min_conf, bars)
        s.audio_s += o.audio_s
        s.cpu_s += o.cpu_s
        for label, conf in o.early:
            back = conf < confidence_needed(label, min_conf, *bars)
            _tally(s.early_back, back)
            s.early_back_calls[label] += back
        triggered = bool(got)
        a_call = any(not g.startswith("puntos") for g in got)
        if it.group in ("call", "chatter_call", "real_call") and not it.label.startswith("puntos"):
            expected = it.label.split("+")
            for call in expected:
                _tally(s.per_call[call], call in got)
                _tally(s.per_voice[it.voice], call in got)
                _tally(s.strict, call in o.got(min_conf, bars, strict=True))
                if call not in got:
                    s.misses.append(f"{it.voice}: «{it.text}» → {got}")
            _tally(s.extra, any(g not in expected for g in got))
            _add(s.extra_game, _in_game(got, moments_for(expected)[:1], expected))
            for said, other in OPPOSITES.items():
                if said in expected:
                    _tally(s.opposite[said], other in got and other not in expected)
            if it.group != "chatter_call" and expected[-1] in got:
                s.latencies.append(min(o.latencies(min_conf, bars)))
        elif it.label.startswith("puntos"):
            ok = [g for g in got if g.startswith("puntos")] == [it.label]
            _tally(s.numbers, ok)
            _add(s.numbers_wrong_game, _in_game(got, moments_for([it.label])[:1], [it.label]))
            if not ok:
                s.misses.append(f"{it.voice}: «{it.text}» → {got}")
        elif it.group == "lookalike":
            _tally(s.lookalike, triggered)
            _tally(s.lookalike_calls, a_call)
            _add(s.lookalike_game, _in_game(got, TALK_MOMENTS))
            _add(s.lookalike_game_sin_flor, _in_game(got, TALK_MOMENTS, flor=False))
            _count_false_calls(s.false_calls_sin_flor, got)
            if triggered:
                s.misses.append(f"{it.voice}: look-alike «{it.text}» → {got}")
        elif it.group == "chatter":
            _tally(s.chatter, triggered)
            _tally(s.chatter_calls, a_call)
            _add(s.chatter_game, _in_game(got, TALK_MOMENTS))
            _add(s.chatter_game_sin_flor, _in_game(got, TALK_MOMENTS, flor=False))
            _count_false_calls(s.false_calls_sin_flor, got)
            if triggered:
                s.misses.append(f"{it.voice}: chatter «{it.text}» → {got}")
        elif it.group == "real_other" and it.text[:1] != "(" and not it.text.isdigit():
            _tally(s.real_other, triggered)
    return s


def _pct(pair: list[int]) -> str:
    return f"{100 * pair[0] / pair[1]:5.1f}% ({pair[0]}/{pair[1]})" if pair[1] else "   -"


def report(name: str, condition: str, s: Score, show_misses: int) -> None:
    total = [sum(v[0] for v in s.per_call.values()), sum(v[1] for v in s.per_call.values())]
    lat = sorted(s.latencies)
    p50 = statistics.median(lat) * 1000 if lat else float("nan")
    p95 = lat[min(len(lat) - 1, int(0.95 * len(lat)))] * 1000 if lat else float("nan")
    rtf = s.cpu_s / s.audio_s if s.audio_s else float("nan")
    print(f"\n== {name} · {condition} ==")
    print(f"  call recall           {_pct(total)}")
    print(f"    every call after a doubtful one in its phrase waiting: {_pct(s.strict)}  (the "
          "table lets through those the doubtful one cannot change: between the two)")
    for call in sorted(s.per_call):
        print(f"    {call:22s}{_pct(s.per_call[call])}")
    print("   by voice")
    for voice in sorted(s.per_voice):
        print(f"    {voice:22s}{_pct(s.per_voice[voice])}")
    print(f"  envido numbers        {_pct(s.numbers)}")
    print(f"  look-alike accepts    {_pct(s.lookalike)}")
    print(f"    of which a call     {_pct(s.lookalike_calls)}  (the rest: a number only)")
    print(f"  chatter triggers      {_pct(s.chatter)}")
    print(f"    of which a call     {_pct(s.chatter_calls)}  (the rest: a number only)")
    print(f"  extra calls in calls  {_pct(s.extra)}")
    if s.real_other[1]:
        print(f"  real non-call prompts {_pct(s.real_other)}  (numbers 8-19 etc.; any call/number)")
    print("  in game (applied only if the rules allow it at that moment):")
    print(f"    look-alike applied  {_pct(s.lookalike_game)}  (each at {len(TALK_MOMENTS)} moments of talk)")
    print(f"    chatter applied     {_pct(s.chatter_game)}")
    print(f"    the same sin flor   {_pct(s.lookalike_game_sin_flor)} look-alikes, "
          f"{_pct(s.chatter_game_sin_flor)} chatter  (flor is off by default)")
    if s.false_calls_sin_flor:
        calls = ", ".join(f"{call} {n}" for call, n in s.false_calls_sin_flor.most_common())
        print(f"      by call           {calls}  (look-alike and chatter file-moments)")
    print(f"    extra call applied  {_pct(s.extra_game)}  (with a call, where it is legal)")
    for said, other in OPPOSITES.items():
        print(f"    «{other}» for «{said}»{' ' * (11 - len(other + said))}{_pct(s.opposite[said])}  "
              "(the opposite answer applied)")
    print(f"    wrong number        {_pct(s.numbers_wrong_game)}  (while the tantos are said)")
    print(f"  latency p50/p95       {p50:.0f} / {p95:.0f} ms  (n={len(lat)})")
    calls = ", ".join(f"{call} {n}" for call, n in s.early_back_calls.most_common() if n)
    print(f"  early calls taken back {_pct(s.early_back)}  (applied at once, then taken back by "
          f"the whole phrase{': ' + calls if calls else ''})")
    print(f"  CPU real-time factor  {rtf:.3f}  ({s.audio_s / 60:.1f} min of audio)")
    for line in s.misses[:show_misses]:
        print(f"    miss: {line}")
    sys.stdout.flush()


def _preflight(name: str, models_dir: str | None) -> str | None:
    """Why a recognizer cannot run here (checked before starting workers), or None."""
    if name == "sphinx-es" and not SPHINX_ES_DIR.is_dir():
        return f"no Spanish Sphinx model at {SPHINX_ES_DIR.resolve()}"
    if name == "vosk-es":
        from models.paths import models_dir as resolve
        from referee.asr.base import RecognizerError
        from referee.asr.find import find_model

        try:
            find_model(resolve(models_dir), "vosk")
        except RecognizerError as err:
            return err.message
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.speech", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--recognizer", nargs="+", default=["sphinx-es", "sphinx-en"],
                        choices=["sphinx-es", "sphinx-en", "vosk-es"])
    parser.add_argument("--snr", nargs="+", default=["clean", "20", "10", "5"],
                        help="conditions: clean and/or SNRs in dB")
    parser.add_argument("--limit", type=int, help="at most N files per group (random, fixed seed)")
    parser.add_argument("--voices", choices=["held-out", "tuning", "real", "all"], default="all",
                        help="real: only the 135 real recordings (part of held-out)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--models-dir", help="for vosk-es: where the Spanish Vosk model is")
    parser.add_argument("--min-conf", type=float, nargs="+", default=[MIN_CONF],
                        help=f"a call counts only at this confidence or more (default {MIN_CONF}, "
                             "as in listen); several values = one report each")
    parser.add_argument("--tune", metavar="JSON", help="Sphinx settings to try (SphinxTuning fields)")
    parser.add_argument("--no-early", action="store_true",
                        help="hand calls over only from final results (no early emission)")
    parser.add_argument("--no-revise", action="store_true",
                        help="keep early calls whatever the final result says of them")
    parser.add_argument("--show-misses", type=int, default=0, metavar="N")
    parser.add_argument("--same-bar", action="store_true",
                        help="every call needs only --min-conf (flor's surer bar and the lower bar of "
                             "calls of several words off: phrases.SURER, phrases.EASIER)")
    parser.add_argument("--calibrate", action="store_true",
                        help="sphinx-es: also report with each voice calibrated on other renders")
    parser.add_argument("--learn", type=float, nargs="?", const=LEARN_CONF, metavar="CONF",
                        help="sphinx-es: also report with each voice adapted, without prompts, on "
                             "what it said at the low-pitch renders (tested on the high-pitch ones) and the referee heard with "
                             f"confidence ≥ CONF (default {LEARN_CONF})")
    args = parser.parse_args(argv)
    if not (SPEECH / "manifest.csv").is_file():
        print(f"no speech corpus at {SPEECH.resolve()}", file=sys.stderr)
        return 2
    items = load_items(args.voices, args.limit)
    calibrations: list[tuple[str, dict[str, str]]] = [("", {})]
    tmp = tempfile.TemporaryDirectory(prefix="truco-bench-means-")
    if args.calibrate or args.learn:
        left_out = LEARN_RENDERS if args.learn else (CALIBRATION_RENDER,)
        items = [it for it in items if it.render and it.render not in left_out]
        print(f"renders {', '.join(left_out)} and real recordings left out")
    if args.calibrate:
        calibrations.append((" · calibrated", calibrate_voices({it.voice for it in items}, Path(tmp.name))))
    if args.learn:
        calibrations.append((f" · learned ≥ {args.learn}",
                             learn_voices({it.voice for it in items}, Path(tmp.name), args.learn)))
    if args.calibrate and args.learn:
        calibrations.append((f" · calibrated, then learned ≥ {args.learn}",
                             learn_voices({it.voice for it in items}, Path(tmp.name), args.learn,
                                          calibrations[1][1])))
    print(f"{len(items)} files, voices: {args.voices}, workers: {args.workers}")
    bars = SAME_BAR if args.same_bar else OWN_BARS
    for name in args.recognizer:
        problem = _preflight(name, args.models_dir)
        if problem:
            print(f"\n== {name} ==\n  could not run: {problem}")
            continue
        for cond, (how, calibration) in ((c, cal) for c in args.snr for cal in calibrations):
            if calibration and name != "sphinx-es":
                continue
            label = ("clean" if cond == "clean" else f"{cond} dB SNR") + how
            try:
                with Pool(args.workers, _init,
                          (name, cond, args.models_dir, args.tune, calibration,
                           not args.no_early, not args.no_revise)) as pool:
                    outcomes = pool.map(_run_one, items, chunksize=8)
            except Exception as err:  # noqa: BLE001 - report and go on with the next one
                print(f"\n== {name} · {label} ==\n  could not run: {err}")
                break
            for min_conf in args.min_conf:
                report(name, f"{label} · confidence ≥ {min_conf}", score(outcomes, min_conf, bars),
                       args.show_misses)
    tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
