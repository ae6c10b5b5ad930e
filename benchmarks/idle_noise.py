"""What a noisy table costs while no one talks: the corpus's steady noises heard for a while,
at the level they have under a call said at each SNR, by a recognizer settled on the table.

    python -m benchmarks.idle_noise [--snr 10 5] [--seconds 30] [--tune JSON]

Per noise and SNR: the share of the noise the voice detector took for voice, how much of it was
decoded, the phrases it made, the calls and numbers heard in it, and the CPU real-time factor.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
import time

import numpy as np

from benchmarks.speech_corpus import SPEECH, mix_noise, noises, speech_power
from benchmarks.speech_listening import SPHINX_ES_DIR
from referee.asr.sphinx_decoder import SphinxTuning

SETTLE_FILES = 10  # the table's voice heard in the noise before it goes quiet
VOICE = "mbrola:es3"  # a held-out voice: its calls set the noise's level


def _calls() -> list[str]:
    with (SPEECH / "manifest.csv").open(encoding="utf-8") as fh:
        return [r["file"] for r in csv.DictReader(fh) if r["voice"] == VOICE and r["group"] == "call"]


def _voice_share(pcm: bytes, t: SphinxTuning) -> float:
    """The share of this audio the recognizer's voice detector takes for voice."""
    import pocketsphinx

    ep = pocketsphinx.Endpointer(window=t.vad_window, ratio=t.vad_ratio, vad_mode=t.vad_mode)
    size = ep.frame_bytes
    voice = sum(ep.process(pcm[i:i + size]) is not None for i in range(0, len(pcm) - size + 1, size))
    return voice * size / len(pcm)


def idle(noise: np.ndarray, snr: float, seconds: float, tune: str | None) -> dict[str, float]:
    """One noise at one SNR: the figures of ``seconds`` of it heard with no one talking."""
    from referee.asr.grammar import PhraseList
    from referee.asr.sphinx import SphinxRecognizer
    from referee.audio import to_chunk
    from referee.phrases import parse
    from referee.wav import read_wav

    tuning = SphinxTuning(**json.loads(tune)) if tune else SphinxTuning()
    rec = SphinxRecognizer(PhraseList.from_table(), SPHINX_ES_DIR, tuning=tuning)
    files = _calls()
    for k, file in enumerate(files[:SETTLE_FILES]):
        said = mix_noise(read_wav(SPEECH / file), snr, noise, random.Random(k))
        rec.settle(to_chunk(said, 0.0).pcm)
    power = speech_power(read_wav(SPEECH / files[0]))
    quiet = mix_noise(np.zeros((int(seconds * 16000), 1)), snr, noise, random.Random(1), power)
    pcm = to_chunk(quiet, 0.0).pcm
    voice = _voice_share(pcm, tuning)
    t0 = time.process_time()
    results = [r for i in range(0, len(pcm), 3200) for r in rec.feed(pcm[i:i + 3200])]
    results += rec.flush()
    cpu = time.process_time() - t0
    finals = [r for r in results if r.final]
    heard = [h for r in finals for h in parse(r.text) if h.kind in ("call", "points")]
    return {"noisy": float(rec.noisy), "voice": voice,
            "decoded": rec.decoded_time / seconds, "phrases": len(finals),
            "heard": len(heard), "rtf": cpu / seconds}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--snr", type=float, nargs="+", default=[10.0, 5.0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--tune", metavar="JSON", help="Sphinx settings to try (SphinxTuning fields)")
    args = parser.parse_args(argv)
    if not (SPEECH / "noise").is_dir() or not (SPHINX_ES_DIR / "mdef").is_file():
        print(f"no speech corpus or Spanish model under {SPEECH.parent.resolve()}", file=sys.stderr)
        return 2
    names = [p.stem for p in sorted((SPEECH / "noise").glob("*.wav"))]
    print(f"{args.seconds:g} s of each noise with no one talking, after {SETTLE_FILES} calls of "
          f"{VOICE} in it" + (f"; settings {args.tune}" if args.tune else ""))
    print(f"  {'noise':12} {'SNR':>6} {'taken for voice':>16} {'decoded':>8} {'phrases':>8} "
          f"{'calls/numbers':>14} {'CPU RTF':>8}")
    for name, noise in zip(names, noises()):
        for snr in args.snr:
            f = idle(noise, snr, args.seconds, args.tune)
            table = "" if f["noisy"] else "  (a quiet table)"
            print(f"  {name:12} {snr:>4g} dB {f['voice']:>15.0%} {f['decoded']:>8.0%} "
                  f"{f['phrases']:>8.0f} {f['heard']:>14.0f} {f['rtf']:>8.3f}{table}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
