"""Escucha los cantos (del micrófono o de un archivo WAV) y muestra cada uno apenas lo oye: el
momento, el equipo, el canto o la palabra parecida que se rechazó, y qué tan seguro está."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

from engine.events import Team, team_of
from models.paths import models_dir
from referee.asr.base import Recognizer, RecognizerError
from referee.asr.find import ModelChoice, classify, find_model, make_recognizer
from referee.audio import AudioChunk, AudioError, MicSource, WavSource, print_status
from referee.evidence import EvidenceError, EvidenceStore
from referee.listener import Listener, Utterance, item_confidence
from referee.phrases import BARS_SAID, confidence_needed
from web_scoreboard.heard import rejudged_reason, taken_back_reason

UNSURE_BELOW = 0.6


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--wav", metavar="ARCHIVO", help="escuchar un archivo WAV en vez del micrófono")
    parser.add_argument("--mic", metavar="NOMBRE|NÚMERO",
                        help="qué micrófono usar (ver 'truco-referee devices'); si no, el de siempre")
    parser.add_argument("--channels", type=int, default=1, choices=(1, 2),
                        help="2 = un micrófono (canal) por equipo: el canal 1 es A, el 2 es B")
    parser.add_argument("--json", action="store_true", help="una línea JSON por cosa oída")
    parser.add_argument("--recognizer", choices=("vosk", "sphinx"),
                        help="qué reconocedor usar (si no, el mejor que haya)")
    parser.add_argument("--model", metavar="CARPETA",
                        help="carpeta de un modelo de Vosk o de un modelo acústico de Sphinx")
    parser.add_argument("--models-dir", metavar="CARPETA", help="dónde están los modelos bajados")
    parser.add_argument("--realtime", action="store_true",
                        help="con --wav, ir al ritmo del audio en vez de lo más rápido posible")
    parser.add_argument("--evidence", metavar="CARPETA",
                        help="dónde guardar la evidencia (texto y audio de cada canto)")
    parser.add_argument("--no-evidence", action="store_true", help="no guardar evidencia")
    parser.add_argument("--unsure-below", type=float, default=UNSURE_BELOW, metavar="CONF",
                        help=f"con menos confianza que esto, un canto queda 'dudoso' "
                             f"y no se anota (por defecto {UNSURE_BELOW}; {BARS_SAID})")


def choose_model(args: argparse.Namespace) -> ModelChoice:
    if args.model:
        choice = classify(Path(args.model).expanduser(), models_dir(args.models_dir))
        if args.recognizer and args.recognizer != choice.kind:
            raise RecognizerError("model-mismatch",
                                  f"{args.model} es un modelo de {choice.kind}, no de {args.recognizer}")
        return choice
    return find_model(models_dir(args.models_dir), args.recognizer)


def default_evidence_dir() -> Path:
    return models_dir(None).parent / "evidence"


Applied = tuple[dict[str, Any], tuple[int, int]]  # a call's record and its token span
Refused = tuple[dict[str, Any], tuple[int, int], int]  # ... and the table's lines when judged


class Printer:
    """Interprets each utterance against the table and prints (and stores) what it meant."""

    def __init__(self, out: TextIO, as_json: bool, unsure_below: float,
                 evidence: EvidenceStore | None) -> None:
        from referee.table import Table

        self.table = Table()
        self.out = out
        self.as_json = as_json
        self.unsure_below = unsure_below
        self.evidence = evidence
        # early utterance → (table lines before, after, what it applied: record and token span,
        # what the rules refused in it: record, token span and the table's lines when judged)
        self._early: dict[int, tuple[int, int, list[Applied], list[Refused]]] = {}

    def __call__(self, utt: Utterance) -> None:
        team = as_team(utt.team)
        before = len(self.table.lines)
        try:
            preview = self.table.interpret(utt.text, team)
            confs = [item_confidence(utt, i.heard.start, i.heard.end) for i in preview]
            # early: no real confidence yet; the whole phrase decides later (revise)
            unsure = [c < confidence_needed(i.call, self.unsure_below) and not utt.early
                      and i.call is not None for i, c in zip(preview, confs)]
            if any(unsure):
                # Apply only the sure calls; the unsure ones are shown for one-tap confirmation.
                sure_text = " ".join(i.heard.text for i, u in zip(preview, unsure)
                                     if not u and i.call is not None)
                applied = self.table.hear(sure_text, team) if sure_text else []
                items = _merge(preview, unsure, applied)
            else:
                items = self.table.hear(utt.text, team)
        except Exception as err:  # noqa: BLE001 - a bad transcript must never stop the referee
            print(f"no pude interpretar «{utt.text}»: {err}", file=sys.stderr)
            return
        early_applied: list[Applied] = []
        refused: list[Refused] = []
        for item, conf, doubt in zip(items, confs, unsure):
            accepted = bool(item.accepted) and not doubt
            reason = (f"dudoso (confianza {round(conf, 3):.2f}): no se aplica sin confirmar" if doubt
                      else item.reason)
            record: dict[str, Any] = {
                "t": round(utt.end, 3), "text": utt.text, "call": item.call,
                "points": item.heard.points, "accepted": accepted, "reason": reason,
                "confidence": round(conf, 3), "team": team, "seat": item.seat,
                "unsure": doubt, "early": utt.early, "latency": round(utt.latency, 3),
            }
            record["evidence"] = self._keep(record, utt.clip)
            self._print(record, item.heard.label)
            span = (item.heard.start, item.heard.end)
            if accepted:
                early_applied.append(({**record, "heard": item.heard.text}, span))
            elif item.call is not None and not doubt:
                refused.append(({**record, "heard": item.heard.text}, span,
                                before + len(early_applied)))
        if utt.early:
            self._early[id(utt)] = (before, len(self.table.lines), early_applied, refused)

    def _keep(self, record: dict[str, Any], clip: bytes) -> str | None:
        """Store a heard item as evidence; its id, or None without an evidence folder."""
        if self.evidence is None:
            return None
        return self.evidence.record(
            t=record["t"], text=record["text"], call=record["call"], points=record["points"],
            accepted=record["accepted"], reason=record["reason"],
            confidence=record["confidence"], team=record["team"], clip_pcm=clip,
        ).id

    def revise(self, revisions: list[tuple[Utterance, Utterance]]) -> None:
        """The whole phrase's verdict on the calls heard early from it (``Listener.on_revisions``,
        in the order they were said): the applied ones it is not sure of are taken back, last to
        first, each if nothing came after it, and printed again as not applied; then the ones the
        rules refused are judged again (``_rejudge``), first to last."""
        early = [(revised, self._early.pop(id(utt), (0, 0, [], []))) for utt, revised in revisions]
        for revised, (before, after, applied, _) in reversed(early):
            self._take_back(revised, before, after, applied)
        for revised, (*_, refused) in early:
            self._rejudge(revised, refused)

    def _take_back(self, revised: Utterance, before: int, after: int,
                   applied: list[Applied]) -> None:
        """Undo the calls an early utterance applied (table lines ``before``..``after``) if the
        whole phrase is not sure of one of them, apply again the sure ones, and print the rest
        as taken back."""
        confs = [item_confidence(revised, *span) for _, span in applied]
        sure = [c >= confidence_needed(record["call"], self.unsure_below)
                for (record, _), c in zip(applied, confs, strict=True)]
        if all(sure) or len(self.table.lines) != after:
            return
        for _ in range(after - before):
            self.table.undo()
        kept = " ".join(record["heard"] for (record, _), ok in zip(applied, sure, strict=True)
                        if ok)
        if kept:
            self.table.hear(kept, as_team(applied[0][0].get("team")))
        for (record, _), conf, ok in zip(applied, confs, sure, strict=True):
            if ok:
                continue
            retracted = {**record, "accepted": False, "confidence": round(conf, 3),
                         "unsure": True, "retracted": True,
                         "reason": taken_back_reason(conf)}
            retracted.pop("heard")
            self._print(retracted, str(record.get("call")))

    def _rejudge(self, revised: Utterance, refused: list[Refused]) -> None:
        """Apply a call the rules refused when the whole phrase confirms it and the table has
        only lost lines since it was judged (an early call taken back: an «envido» heard in
        chatter must not leave the «truco» said after it refused); printed again as applied."""
        for record, span, length in refused:
            conf = item_confidence(revised, *span)
            if conf < confidence_needed(record["call"], self.unsure_below):
                continue
            if len(self.table.lines) >= length:
                continue
            items = self.table.hear(record["heard"], as_team(record.get("team")))
            if not any(i.accepted for i in items):
                continue
            again = {**record, "accepted": True, "confidence": round(conf, 3),
                     "seat": items[0].seat, "rejudged": True,
                     "reason": rejudged_reason(record["reason"])}
            again.pop("heard")
            self._print(again, str(record.get("call")))

    def _print(self, record: dict[str, Any], label: str) -> None:
        if self.as_json:
            shown = {**record, "team": seat_team(record)}
            print(json.dumps(shown, ensure_ascii=False), file=self.out, flush=True)
            return
        who = record["seat"] or record["team"] or "?"
        if record["call"] is None:
            what = f"✗ «{label}» (parecido, no es canto)"
        elif record["call"] == "puntos":
            what = f"{'✓' if record['accepted'] else '·'} {record['points']} puntos"
        else:
            what = f"{'✓' if record['accepted'] else '·'} {record['call'].upper()}"
        line = f"{record['t']:7.2f}s  {who:>3}  {what}  (conf {record['confidence']:.2f})"
        if not record["accepted"]:
            line += f"  — {record['reason']}"
        print(line, file=self.out, flush=True)


def as_team(value: object) -> Team | None:
    """A team name, or None for anything else (no channel told the team apart)."""
    return "A" if value == "A" else "B" if value == "B" else None


def seat_team(record: dict[str, Any]) -> str | None:
    """The team of the seat taken to have said it; without a seat, the microphone's (or None)."""
    return team_of(record["seat"]) if record["seat"] else record["team"]


def _merge(preview: list[Any], unsure: list[bool], applied: list[Any]) -> list[Any]:
    """The preview items, with each sure call replaced by what applying it actually did."""
    done = iter(applied)
    out = []
    for item, doubt in zip(preview, unsure):
        if doubt or item.call is None:
            out.append(item)
        else:
            out.append(next(done, item))
    return out


def run(args: argparse.Namespace) -> int:
    try:
        source = open_source(args)
    except AudioError as err:
        print(f"Problema con el audio: {err.message}", file=sys.stderr)
        return 2
    try:
        evidence = open_evidence(args)
    except EvidenceError as err:
        print(f"No puedo guardar la evidencia: {err.message}; indicá una carpeta con --evidence "
              "o usá --no-evidence", file=sys.stderr)
        return 2
    try:
        choice = choose_model(args)
        recognizer: Recognizer = make_recognizer(choice)
    except RecognizerError as err:
        print(f"No puedo arrancar el reconocedor: {err.message}", file=sys.stderr)
        return 2
    print(f"Reconocedor: {choice.label}", file=sys.stderr)
    if recognizer.low_accuracy:
        print("Atención: modo de baja precisión. Bajá el modelo en español con "
              "'truco-referee models fetch'.", file=sys.stderr)
    printer = Printer(sys.stdout, args.json, args.unsure_below, evidence)
    teams = ("A", "B") if args.channels == 2 else ()
    listener = Listener(recognizer, printer, channel_teams=teams, on_revisions=printer.revise)
    try:
        listener.run(source)
    except AudioError as err:
        print(f"Problema con el audio: {err.message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        listener.close()
    score = printer.table.snapshot()["score"]
    print(f"tanteador: A {score['A']} — B {score['B']}", file=sys.stderr)
    return 0


def open_source(args: argparse.Namespace) -> Iterable[AudioChunk]:
    """The WAV file, read whole, or the microphone; checked before the recognizer is loaded."""
    if not args.wav:
        return MicSource(args.mic, channels=args.channels, on_status=print_status("micrófono"))
    source = WavSource(args.wav, realtime=args.realtime)
    if args.channels == 2 and source.channels == 1:
        raise AudioError("wav-channels", f"{args.wav} tiene un solo canal y --channels 2 necesita "
                         "dos, uno por equipo (el canal 1 es A, el 2 es B)")
    return source


def open_evidence(args: argparse.Namespace) -> EvidenceStore | None:
    """Where the evidence goes, its folder created; None with --no-evidence."""
    if args.no_evidence:
        return None
    return EvidenceStore(Path(args.evidence) if args.evidence else default_evidence_dir())
