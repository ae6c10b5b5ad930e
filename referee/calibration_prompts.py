"""What a calibration of the table's voices asks each player to say, and how each answer is cut
from the live stream by voice detection: from the terminal (``voices calibrate``) or from the
tablet (``table_calibration``)."""

from __future__ import annotations

from referee.asr.base import SAMPLE_RATE

# What a calibration asks for: every call once, then envido numbers (the texts of the benchmark's
# calibration script).
PROMPTS = (
    "truco", "retruco", "vale cuatro", "quiero", "no quiero", "envido", "real envido",
    "falta envido", "flor", "contraflor", "son buenas", "me voy al mazo",
    "cero", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "veinte", "veintiuno",
    "veintidós", "veintitrés", "veinticuatro", "veinticinco", "veintiséis", "veintisiete",
    "veintiocho", "veintinueve", "treinta", "treinta y uno", "treinta y dos", "treinta y tres",
)
PROMPT_TIMEOUT_S = 6.0  # silence before giving up on a prompt
PHRASE_MAX_S = 5.0  # a call is short: sound that goes on longer without a pause is noise
NOT_HEARD = "no te oí"
NOTHING_HEARD = ("no te oí decir ninguna frase; probá de nuevo más cerca del micrófono y lejos "
                 "del ruido")
# A player removed: what the table played until then holds their voice too, and is not learned
# from again (``learn.forget_play``).
PLAY_FORGOTTEN = ("De lo jugado hasta ahora ya no aprendo: ahí está su voz, y no distingo una voz "
                  "de otra.")


def unfitted(said: int, aligned: int) -> str:
    """What a fit of ``said`` phrases left out (``adapt.Stats``: those whose audio did not sound
    like their text: noise, another word, a WAV named after another phrase), in words; "" for
    none."""
    missed = said - aligned
    if missed <= 0:
        return ""
    which = "1 no sonaba" if missed == 1 else f"{missed} no sonaban"
    out = (f"Ojo: de {said} frases, {which} a lo que tenía{'n' * (missed > 1)} que decir (ruido, "
           f"otra palabra), y no la{'s' * (missed > 1)} usé.")
    if 3 * missed > said:  # well-said prompts all fit: the prompts and what was said are out of step
        out += (" Son muchas: fijate que cada uno diga lo que se le pide cuando se le pide (con "
                "--wav-dir, que cada archivo se llame como lo que dice) y calibrá de nuevo; "
                "una calibración así puede oír peor que ninguna.")
    return out


def _seconds(pcm_bytes: int) -> float:
    return pcm_bytes / 2 / SAMPLE_RATE


class PhraseCapture:
    """Fed the stream chunk by chunk, it gives the first phrase spoken, or None and why not:
    silence for ``timeout_s``, or sound that does not pause within ``longest_s`` (steady noise
    keeps voice detection in speech for ever)."""

    def __init__(self, timeout_s: float = PROMPT_TIMEOUT_S,
                 longest_s: float = PHRASE_MAX_S) -> None:
        import pocketsphinx

        self.timeout_s, self.longest_s = timeout_s, longest_s
        self._ep = pocketsphinx.Endpointer()
        self._buffer = b""
        self._speech: list[bytes] = []
        self._heard = 0.0  # seconds of stream fed
        self._said = 0  # bytes of speech kept

    def feed(self, pcm: bytes) -> tuple[bytes | None, str] | None:
        """The phrase once it has ended (its audio, ""), or (None, why) once there will be none;
        None while it is still waited for."""
        self._buffer += pcm
        self._heard += _seconds(len(pcm))
        size = self._ep.frame_bytes
        while len(self._buffer) >= size:
            frame, self._buffer = self._buffer[:size], self._buffer[size:]
            out = self._ep.process(frame)
            if out:
                self._speech.append(out)
                self._said += len(out)
            if self._speech and not self._ep.in_speech:
                return b"".join(self._speech), ""
        if _seconds(self._said) > self.longest_s:
            return None, (f"oigo un ruido que no para (más de {self.longest_s:.0f} s sin pausa): "
                          "eso no es un canto")
        if not self._speech and self._heard > self.timeout_s:
            return None, NOT_HEARD
        return None

    def end(self) -> tuple[bytes | None, str]:
        """The stream ended: what was said until then, if anything."""
        return b"".join(self._speech) or None, NOT_HEARD
