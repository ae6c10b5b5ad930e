"""Two team microphones, one voice: what the decoder should hear.

Every corpus file is heard by two microphones: the speaker's team's (near) and the other team's,
GAIN times as loud and DELAY_MS later (the longer way to it).  The corpus's noise comes SNR dB
below the near microphone's speech, at each microphone a stretch of its own (``--noise own``:
noises near each microphone, or two spliced apart) or the same at both, as loud (``--noise
shared``: one noise in the room, as far from both).  The Spanish Sphinx listener then hears, in
turn:

- near      the near microphone alone
- far       the other one alone
- loudest   both, as two channels: the referee hears one channel of each 0.1 s chunk, the one
            that hears a voice best (``referee.audio.Channels``), as with two microphones on two
            devices (``referee.mics``); named for the louder chunk it took until 2026-12-04
- average   their average, one channel (a downmix)
- devices   both, as two devices (``referee.mics.TeamMics``, as ``--mic`` twice), opened before
            the file at different moments: each sends its 0.1 s chunks once their sound is in
            and up to 30 ms late, the far one's ``--phase-ms`` after the near one's; with
            ``--latency-ms L`` the far one hands over each moment L ms later still, which its
            chunks' arrivals do not show (a slower device).  Just before each file the two
            heard it over and over for 8 s, as the table's talk before it (with ``--cold``,
            nothing: the evening's first phrase)

With ``--far-noise-db D`` the far microphone's noise is D dB louder than the near one's: a radio by
the other team (below 0, by the speaker's).  With both microphones heard (``loudest``) the report
says which team each phrase went to (the near microphone is the speaker's team's).

With ``--room RT60 NEAR FAR`` the voice is said in a room first (``speech_corpus.in_room``), its
reverberation NEAR dB below the direct sound at the near microphone and FAR dB at the far one
(each with a reverberation of its own).

    python -m benchmarks.two_mics --snr 20 10 --gain 0.85 --delay-ms 2.9 --limit 60
    python -m benchmarks.two_mics --snr clean 10 --gain 0.5 --room 0.3 10 -5 --heard near far loudest
    python -m benchmarks.two_mics --snr 10 --gain 0.5 --room 0.3 10 -5 --heard loudest --noise shared
    python -m benchmarks.two_mics --snr clean 10 --gain 0.5 --room 0.3 10 -5 --heard devices --phase-ms 50
    python -m benchmarks.two_mics --snr clean 10 --gain 0.5 --room 0.3 10 -5 --heard devices --latency-ms 150
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
from dataclasses import replace
from functools import partial
from multiprocessing import Pool

import numpy as np

from benchmarks.speech import report
from benchmarks.speech_corpus import (
    NOISE_LEAD_S,
    NOISE_TAIL_S,
    SPEECH,
    in_room,
    load_items,
    mix_noise,
    noises,
    speech_power,
)
from benchmarks.speech_listening import init_worker, run_one
from benchmarks.speech_scoring import score
from referee.audio import AudioChunk, to_chunk
from referee.mics import Devices
from referee.wav import read_wav

WARM_S = 8.0  # --heard devices: how long the devices heard the table's talk before each file
HEARD = ("near", "far", "loudest", "average", "devices")
NOISE = ("own", "shared")


def two_mics(file: str, seed: int, snr_db: float | None, gain: float, delay: int,
             room: tuple[float, float, float] | None = None,
             noise: str = "own", far_noise_db: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """The file as the near and the far microphone hear it, each with its ``noise``: its ``own``
    or the ``shared`` one (none when ``snr_db`` is None; it starts ``NOISE_LEAD_S`` before the
    file and goes on ``NOISE_TAIL_S`` after it), ``far_noise_db`` louder at the far microphone,
    said in a ``room`` (RT60, near DRR, far DRR) first."""
    dry = read_wav(SPEECH / file)
    x = dry[:, 0]
    near, far = (x, x) if room is None else (in_room(dry, room[0], room[1], seed)[:, 0],
                                            in_room(dry, room[0], room[2], seed + 1)[:, 0])
    far = gain * np.concatenate([np.zeros(delay), far[: len(x) - delay]])
    if snr_db is None:
        return near, far
    power = speech_power(dry)  # the noise's level is set against the near speech's
    lead, tail = np.zeros(int(NOISE_LEAD_S * 16000)), np.zeros(int(NOISE_TAIL_S * 16000))
    near_rng = random.Random(seed)
    far_rng = near_rng if noise == "own" else random.Random(seed)  # shared: the near one's draws
    near, far = (mix_noise(np.concatenate([lead, signal, tail])[:, None], snr_db - louder,
                           rng.choice(noises()), rng, power)[:, 0]
                 for signal, rng, louder in ((near, near_rng, 0.0), (far, far_rng, far_noise_db)))
    return near, far


def frames(file: str, seed: int, how: str, snr_db: float | None, gain: float, delay: int,
           room: tuple[float, float, float] | None = None, noise: str = "own",
           far_noise_db: float = 0.0) -> np.ndarray:
    """What the listener is handed (frames × channels)."""
    near, far = two_mics(file, seed, snr_db, gain, delay, room, noise, far_noise_db)
    both = np.stack([near, far], axis=1)
    return {"near": near[:, None], "far": far[:, None], "loudest": both, "devices": both,
            "average": ((near + far) / 2)[:, None]}[how]


def devices(frames: np.ndarray, seed: int, phase_s: float, latency_s: float = 0.0,
            warm: bool = True) -> list[AudioChunk]:
    """The two microphones' frames as two devices hand them over: each device's 0.1 s chunks
    come once their sound is in, and up to 30 ms late; the far one's end ``phase_s`` after the
    near one's (its first is shorter), and carry the sound ``latency_s`` earlier still (its
    first, the end of the file's: noise, or silence).  They go to the listener through
    ``TeamMics``, in the order they come.  ``warm``: the devices heard the same file over and
    over for ``WARM_S`` just before, as the table's talk before it, so what ``TeamMics`` measures
    of them from what both heard (the lag) can be known; the listener is handed the stream from
    the near microphone's sound of the file's start (cold, the whole stream)."""
    talk = np.tile(frames, (1 + math.ceil(WARM_S * 16000 / len(frames)) if warm else 1, 1))
    heard = (talk[:, 0], np.roll(talk[:, 1], round(latency_s * 16000)))
    rng = np.random.default_rng(seed)
    step, first = 1600, round(phase_s * 16000)
    starts = {0: list(range(0, len(talk), step)),
              1: ([0] if first else []) + list(range(first, len(talk), step))}
    stream = Devices().hand((mic, to_chunk(heard[mic][start:end, None], start / 16000),
                              end / 16000 + rng.uniform(0, 0.03))
                             for mic, cut in starts.items()
                             for start, end in zip(cut, [*cut[1:], len(talk)]))
    # the file starts where the near microphone's sound of it does (it goes on whole, from its
    # first chunk on); cold, with the stream
    begins = stream[0].t if not warm else (
        next(chunk.t for chunk in stream if not math.isnan(chunk.levels[0]))
        + (len(talk) - len(frames)) / 16000)
    handed = []
    for chunk in stream:
        cut = max(0, round((begins - chunk.t) * 16000))  # samples of it before the file's start
        if cut < len(chunk.pcm) // 2:
            handed.append(replace(chunk, pcm=chunk.pcm[2 * cut:], t=chunk.t + cut / 16000 - begins))
    return handed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.two_mics", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--snr", nargs="+", default=["20", "10"], help="SNRs in dB, or clean")
    parser.add_argument("--gain", type=float, default=0.85,
                        help="the far microphone's level of the voice, against the near one's")
    parser.add_argument("--delay-ms", type=float, default=2.9,
                        help="how much later the far microphone hears it (2.9 ms: 1 m further)")
    parser.add_argument("--limit", type=int, default=60, help="at most N files per group")
    parser.add_argument("--voices", choices=["held-out", "tuning"], default="held-out")
    parser.add_argument("--heard", nargs="+", choices=HEARD, default=list(HEARD))
    parser.add_argument("--room", type=float, nargs=3, metavar=("RT60", "NEAR", "FAR"),
                        help="say every file in a room: reverberation time (s), and the "
                             "reverberation's level below the direct sound at each microphone (dB)")
    parser.add_argument("--noise", choices=NOISE, default="own",
                        help="each microphone's own stretch of noise, or one noise heard by both")
    parser.add_argument("--far-noise-db", type=float, default=0.0,
                        help="the noise this much louder at the far microphone (a radio by the "
                             "other team; below 0, by the speaker's)")
    parser.add_argument("--phase-ms", type=float, default=50.0,
                        help="with --heard devices: how long after each chunk of the near "
                             "microphone's device the far one's chunk ends (0-100 ms)")
    parser.add_argument("--latency-ms", type=float, default=0.0,
                        help="with --heard devices: how much later the far microphone's device "
                             "hands over each moment, beyond what its chunks' arrivals show")
    parser.add_argument("--cold", action="store_true",
                        help="with --heard devices: devices opened for each file, which have "
                             "heard nothing before it")
    parser.add_argument("--min-conf", type=float, default=0.6)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    if not (SPEECH / "manifest.csv").is_file():
        print(f"no speech corpus at {SPEECH.resolve()}", file=sys.stderr)
        return 2
    items = [it for it in load_items(args.voices, args.limit) if it.render]
    delay = round(args.delay_ms * 16)
    room = tuple(args.room) if args.room else None
    print(f"{len(items)} files, voices: {args.voices}, far microphone at {args.gain} of the near "
          f"one's level and {delay / 16:.2f} ms later"
          + (f", in a room of RT60 {room[0]:g} s, DRR {room[1]:g} / {room[2]:g} dB" if room else "")
          + f", noise: {args.noise}"
          + (f", {args.far_noise_db:g} dB louder at the far one" if args.far_noise_db else "")
          + (f", its device {args.latency_ms:g} ms slower" if args.latency_ms else "")
          + (", devices opened for each file" if args.cold else ""))
    for snr in args.snr:
        for how in args.heard:
            load = partial(frames, how=how, snr_db=None if snr == "clean" else float(snr),
                           gain=args.gain, delay=delay, room=room, noise=args.noise,
                           far_noise_db=args.far_noise_db)
            chunks = (partial(devices, phase_s=args.phase_ms / 1000,
                              latency_s=args.latency_ms / 1000, warm=not args.cold)
                      if how == "devices" else None)
            with Pool(args.workers, init_worker,
                      ("sphinx-es", "clean", None, None, None, True, True, load, chunks)) as pool:
                outcomes = pool.map(run_one, items, chunksize=8)
            condition = "clean" if snr == "clean" else f"{snr} dB SNR"
            report("sphinx-es", f"{condition} · {how}", score(outcomes, args.min_conf), 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
