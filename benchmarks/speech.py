"""Speech benchmark: how well each recognizer hears the calls in the shared corpus, clean and noisy.

    python -m benchmarks.speech [--recognizer sphinx-es sphinx-en vosk-es] [--snr clean 20 10 5]
                                [--limit N] [--voices held-out|tuning|real|all] [--workers 2] [--calibrate]

Figures per recognizer and condition: recall per call, envido-number accuracy, look-alike false
accepts, chatter false triggers, latency from the end of the spoken phrase to the emitted event
(p50/p95, in audio time through the same listener the referee runs; early emission included; and
again with the time this machine took to decode, each 0.1 s chunk taken once it is heard and the
one before is done), and CPU real-time factor (CPU seconds per second of audio, one process). In
a noisy condition the noise starts ``speech_corpus.NOISE_LEAD_S`` before each file and goes on
``NOISE_TAIL_S`` after it, as a table's noise does around a call: a call is said into noise the
referee has been hearing, a phrase that ends only when the noise stops shows in the latency, and
that noise is heard (and counted in the real-time factor) as the rest is.

Each file is said at a moment of a hand (``game_states.MOMENTS``), and the recognizer is told what
the table expects there, as the referee tells it: a call or a number at a moment where the rules
take it, a look-alike or chatter once at each of the four moments of talk (its figures count
file-moments). ``--tune '{"expected_weight": 1, "unexpected_weight": 1}'`` hears every file as if
nothing were expected.

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
--calibrate-in-noise [SNR] (with --calibrate): one report more per condition, with the prompts said
in the corpus's noise, at the condition's own SNR (noisy conditions only: a table that calibrates
in the noise it plays in) or at SNR in every condition (a table calibrated in noise that later
plays quiet); --calibrate alone calibrates on the clean prompts.
--room RT60 [DRR]: every file said in a room first (``speech_corpus.in_room``: reverberation that
falls 60 dB in RT60 seconds, DRR dB below the direct sound, 0 by default), then the condition's
noise; with --calibrate, the prompts are said in the same room (a table calibrates where it plays).
--narrowband: every file, its noise and its room handed over through an 8 kHz line
(``speech_corpus.through_line``), as a Bluetooth headset's microphone or a telephone hands them
over; with --calibrate, the prompts too (a table calibrates with the microphone it plays with).
--narrowband prompts (with --calibrate): only the prompts, the files heard full band (a table
that calibrated with a headset and plays with another microphone); --narrowband files: only the
files (one that calibrated with a full microphone and plays with a headset).
--clipped DB: every file (its room and its noise too) turned up until its loudest sample stands DB
dB above full scale and cut flat there (``speech_corpus.clipped``), as a microphone turned up too
far hands it over; the calibration's prompts are not.
--calibrate-together [all|others|pairs] (with --calibrate): one calibration for every voice tested,
on all their prompts, as a table calibrates its players one after another ('voices calibrate');
with "others", each voice is heard with the calibration of the other voices, as a player who sat
down after the table calibrated; with "pairs", with the calibration of itself and one other voice,
a table of two: against "all", the cost of a third voice in it, a player who left.
--table-talk: the cepstral mean each file starts from settled on a table of several voices (the
caller's other files among every synthetic voice's, in equal shares) instead of the caller's alone:
at a table the referee has heard everyone, and the caller may not have spoken for a while.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from functools import partial
from multiprocessing import Pool
from pathlib import Path

from benchmarks.game_states import TALK_MOMENTS, at_moments
from benchmarks.speech_corpus import LINE_HZ, NOISE_LEAD_S, NOISE_TAIL_S, SPEECH, heard, load_items
from benchmarks.speech_listening import SPHINX_ES_DIR, init_worker, run_one
from benchmarks.speech_scoring import OPPOSITES, OWN_BARS, SAME_BAR, TALK_GROUPS, Score, score
from benchmarks.speech_voices import (
    CALIBRATION_RENDER,
    LEARN_CONF,
    LEARN_RENDERS,
    calibrate_voices,
    learn_voices,
)

MIN_CONF = 0.6  # the listen command's "unsure" threshold
LINES = ("both", "prompts", "files")  # what --narrowband hands over through the line


def _pct(pair: list[int]) -> str:
    return f"{100 * pair[0] / pair[1]:5.1f}% ({pair[0]}/{pair[1]})" if pair[1] else "   -"


def _p50_p95(ordered: list[float]) -> tuple[float, float]:
    """The median and 95th percentile of sorted seconds, in milliseconds."""
    if not ordered:
        return float("nan"), float("nan")
    return (statistics.median(ordered) * 1000,
            ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] * 1000)


def report(name: str, condition: str, s: Score, show_misses: int, show_slow: int = 0) -> None:
    total = [sum(v[0] for v in s.per_call.values()), sum(v[1] for v in s.per_call.values())]
    lat = sorted(s.latencies)
    p50, p95 = _p50_p95(lat)
    busy50, busy95 = _p50_p95(sorted(s.busy_latencies))
    rtf = s.cpu_s / s.audio_s if s.audio_s else float("nan")
    print(f"\n== {name} · {condition} ==")
    print(f"  call recall           {_pct(total)}")
    print(f"    every call after a doubtful one in its phrase waiting: {_pct(s.strict)}  (the "
          "table lets through those the doubtful one cannot change: between the two)")
    print(f"    right with a tap at most: {_pct(s.one_tap)}  (applied; dudoso as said or as the "
          "end of a longer call: «Era «falta envido»»; or its end or opposite applied last: "
          "«⇄ Era «falta envido»», «⇄ Era «no quiero»»)")
    for call in sorted(s.per_call):
        print(f"    {call:22s}{_pct(s.per_call[call])}")
    print("   by voice")
    for voice in sorted(s.per_voice):
        print(f"    {voice:22s}{_pct(s.per_voice[voice])}")
    print(f"  envido numbers        {_pct(s.numbers)}")
    print(f"  look-alike accepts    {_pct(s.lookalike.heard)}  (file-moments)")
    print(f"    of which a call     {_pct(s.lookalike.calls)}  (the rest: a number only)")
    print(f"  chatter triggers      {_pct(s.chatter.heard)}")
    print(f"    of which a call     {_pct(s.chatter.calls)}  (the rest: a number only)")
    print(f"  extra calls in calls  {_pct(s.extra)}")
    if s.real_other[1]:
        print(f"  real non-call prompts {_pct(s.real_other)}  (numbers 8-19 etc.; any call/number)")
    print("  in game (applied only if the rules allow it at that moment):")
    print(f"    look-alike applied  {_pct(s.lookalike.game)}  (each at {len(TALK_MOMENTS)} moments of talk)")
    print(f"    chatter applied     {_pct(s.chatter.game)}")
    print(f"    the same sin flor   {_pct(s.lookalike.game_sin_flor)} look-alikes, "
          f"{_pct(s.chatter.game_sin_flor)} chatter  (flor is off by default)")
    if s.false_calls_sin_flor:
        calls = ", ".join(f"{call} {n}" for call, n in s.false_calls_sin_flor.most_common())
        print(f"      by call           {calls}  (look-alike and chatter file-moments)")
    print(f"    extra call applied  {_pct(s.extra_game)}  (with a call, where it is legal)")
    for said, other in OPPOSITES.items():
        print(f"    «{other}» for «{said}»{' ' * (11 - len(other + said))}{_pct(s.opposite[said])}  "
              "(the opposite answer applied: the first answer heard)")
    print(f"    wrong number        {_pct(s.numbers_wrong_game)}  (while the tantos are said)")
    if s.teams[1]:
        print(f"  who said it           {_pct(s.teams)}  (phrases with a call or a number given to "
              "the speaker's team, of those the microphones gave a team)")
    print(f"  latency p50/p95       {p50:.0f} / {p95:.0f} ms  (n={len(lat)})")
    print(f"    with the decoding   {busy50:.0f} / {busy95:.0f} ms  (and the time this machine took "
          "to hand each over, one core, chunks of 0.1 s)")
    calls = ", ".join(f"{call} {n}" for call, n in s.early_back_calls.most_common() if n)
    print(f"  early calls taken back {_pct(s.early_back)}  (applied at once, then taken back by "
          f"the whole phrase{': ' + calls if calls else ''})")
    after = f", {s.after_s / 60:.1f} of it the noise around the files" if s.after_s else ""
    print(f"  CPU real-time factor  {rtf:.3f}  ({s.audio_s / 60:.1f} min of audio{after})")
    for line in s.misses[:show_misses]:
        print(f"    miss: {line}")
    for latency, what in sorted(s.timed, reverse=True)[:show_slow]:
        print(f"    slow: {latency * 1000:.0f} ms  {what}")
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
    parser.add_argument("--room", type=float, nargs="+", metavar=("RT60", "DRR"),
                        help="say every file in a room: reverberation time in seconds, and the "
                             "reverberation's level below the direct sound in dB (default 0)")
    parser.add_argument("--narrowband", nargs="?", const="both", choices=LINES,
                        help="hand every file over through an 8 kHz line, as a Bluetooth headset "
                             f"or a telephone does: nothing above {LINE_HZ:g} Hz (noise and room "
                             "too); 'prompts' or 'files': only those through it")
    parser.add_argument("--clipped", type=float, metavar="DB",
                        help="every file (its noise too) turned up until its loudest sample stands "
                             "DB dB above full scale and cut flat there, as a microphone turned up "
                             "too far hands it over")
    parser.add_argument("--table-talk", action="store_true",
                        help="each file starts from the mean settled on the talk of every synthetic "
                             "voice and the caller's, not the caller's alone")
    parser.add_argument("--show-misses", type=int, default=0, metavar="N")
    parser.add_argument("--show-slow", type=int, default=0, metavar="N",
                        help="the N calls handed over latest after the end of their speech")
    parser.add_argument("--same-bar", action="store_true",
                        help="every call needs only --min-conf (flor's surer bar and the lower bar of "
                             "calls of several words off: phrases.SURER, phrases.EASIER)")
    parser.add_argument("--calibrate", action="store_true",
                        help="sphinx-es: also report with each voice calibrated on other renders")
    parser.add_argument("--calibrate-in-noise", nargs="?", const="same", metavar="SNR",
                        help="with --calibrate: also report with each voice calibrated on its prompts "
                             "mixed with the corpus's noise, at each noisy condition's own SNR, or "
                             "at SNR for every condition (clean included)")
    parser.add_argument("--calibrate-together", nargs="?", const="all", default="",
                        choices=["all", "others", "pairs"],
                        help="with --calibrate: one calibration for all the voices, on every "
                             "voice's prompts, as a table of them calibrates; 'others': each voice "
                             "heard with the other voices' calibration, as a player who came later; "
                             "'pairs': with its own and one other voice's, a table of two")
    parser.add_argument("--learn", type=float, nargs="?", const=LEARN_CONF, metavar="CONF",
                        help="sphinx-es: also report with each voice adapted, without prompts, on "
                             "what it said at the low-pitch renders (tested on the high-pitch ones) and the referee heard with "
                             f"confidence ≥ CONF (default {LEARN_CONF})")
    args = parser.parse_args(argv)
    if args.calibrate_together and not args.calibrate:
        parser.error("--calibrate-together: how the voices are calibrated; add --calibrate")
    if args.narrowband == "prompts" and not args.calibrate:
        parser.error("--narrowband prompts: only the calibration's prompts through the line; "
                     "add --calibrate")
    if not (SPEECH / "manifest.csv").is_file():
        print(f"no speech corpus at {SPEECH.resolve()}", file=sys.stderr)
        return 2
    for given, name in ((args.room, "--room"), (args.narrowband, "--narrowband"),
                        (args.clipped, "--clipped")):
        if given is not None and args.learn:
            parser.error(f"{name}: learning from play hears the files as they are; leave --learn out")
    files_line = args.narrowband in ("both", "files")
    prompts_line = args.narrowband in ("both", "prompts")
    # the prompts said through the line where the files are not, or the other way round
    through = {(True, False): " through an 8 kHz line", (False, True): " full band"}.get(
        (prompts_line, files_line), "") if args.calibrate else ""
    together = {"all": " together", "others": " by the others",
                "pairs": " in pairs"}.get(args.calibrate_together, "")
    items = load_items(args.voices, args.limit)
    room = (args.room[0], args.room[1] if len(args.room) > 1 else 0.0) if args.room else None
    calibrations: list[tuple[str, dict[str, str]]] = [("", {})]
    tmp = tempfile.TemporaryDirectory(prefix="truco-bench-means-")
    if args.calibrate or args.learn:
        left_out = LEARN_RENDERS if args.learn else (CALIBRATION_RENDER,)
        items = [it for it in items if it.render and it.render not in left_out]
        print(f"renders {', '.join(left_out)} and real recordings left out")
    if args.calibrate:
        calibrations.append((f" · calibrated{together}{through}",
                             calibrate_voices({it.voice for it in items}, Path(tmp.name), room=room,
                                              line=prompts_line, together=args.calibrate_together)))
    if args.learn:
        calibrations.append((f" · learned ≥ {args.learn}",
                             learn_voices({it.voice for it in items}, Path(tmp.name), args.learn)))
    if args.calibrate and args.learn:
        calibrations.append((f" · calibrated, then learned ≥ {args.learn}",
                             learn_voices({it.voice for it in items}, Path(tmp.name), args.learn,
                                          calibrations[1][1])))
    # --calibrate-in-noise: the voices calibrated in noise, each condition's own or one for all
    noisy_prompts = {cond: cond if args.calibrate_in_noise == "same" else args.calibrate_in_noise
                     for cond in args.snr if args.calibrate and args.calibrate_in_noise}
    in_noise = {snr: [(f" · calibrated{together} in noise at {snr} dB SNR{through}",
                       calibrate_voices({it.voice for it in items}, Path(tmp.name), snr, room,
                                        prompts_line, args.calibrate_together))]
                for snr in sorted(set(noisy_prompts.values()) - {"clean"})}
    print(f"{len(items)} files, voices: {args.voices}, workers: {args.workers}")
    said = at_moments(items, TALK_GROUPS)  # look-alikes and chatter at each moment of talk

    bars = SAME_BAR if args.same_bar else OWN_BARS
    for name in args.recognizer:
        problem = _preflight(name, args.models_dir)
        if problem:
            print(f"\n== {name} ==\n  could not run: {problem}")
            continue
        for cond, (how, calibration) in ((c, cal) for c in args.snr
                                         for cal in calibrations + in_noise.get(noisy_prompts.get(c, ""), [])):
            if calibration and name != "sphinx-es":
                continue
            label = ("clean" if cond == "clean" else f"{cond} dB SNR") + how
            frames = None
            if room or files_line or args.clipped is not None:
                frames = partial(heard, snr=cond, room=room, line=files_line,
                                 tail_s=NOISE_TAIL_S, lead_s=NOISE_LEAD_S, clip=args.clipped)
            if room:
                label += f" · room RT60 {room[0]:g} s, DRR {room[1]:g} dB"
            if args.clipped is not None:
                label += f" · clipped {args.clipped:g} dB over full scale"
            if files_line:
                label += " · through an 8 kHz line"
            if args.table_talk:
                label += " · settled on a table's talk"
            try:
                with Pool(args.workers, init_worker,
                          (name, cond, args.models_dir, args.tune, calibration,
                           not args.no_early, not args.no_revise, frames, None,
                           args.table_talk)) as pool:
                    outcomes = pool.map(run_one, said, chunksize=8)
            except Exception as err:  # noqa: BLE001 - report and go on with the next one
                print(f"\n== {name} · {label} ==\n  could not run: {err}")
                break
            for min_conf in args.min_conf:
                report(name, f"{label} · confidence ≥ {min_conf}", score(outcomes, min_conf, bars),
                       args.show_misses, args.show_slow)
    tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
