"""What a calibration of the table's voices asks each player to say, and how each answer is cut
from the live stream by voice detection: from the terminal (``voices calibrate``) or from the
tablet (``table_calibration``)."""

from __future__ import annotations

import numpy as np

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
FAINT = "te oí muy bajo: acercate al micrófono o subile el volumen"
# A recording with no voice in it (digital silence, a microphone's hiss, a microphone turned all
# the way down) is not a prompt said: the loudest ``LOUDEST_S`` of it stays below ``VOICE_RMS``
# (the RMS of 16-bit samples).  The loudest 0.1 s of every recording of ../shared/speech is at
# least 1986 (-24 dBFS; median 5736): the floor is 26 dB under the quietest of them, a voice 20
# times quieter, and 20 dB over a quiet microphone's hiss (about -70 dBFS).
LOUDEST_S = 0.1
VOICE_RMS = 100.0  # -50 dBFS
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


def loudest_rms(pcm: bytes, window_s: float = LOUDEST_S) -> float:
    """The RMS of the loudest ``window_s`` of 16-bit PCM (0 for none): how loud its voice is,
    whatever the silence around it."""
    x = np.frombuffer(pcm[: len(pcm) // 2 * 2], dtype="<i2").astype(np.float64)
    if not len(x):
        return 0.0
    size = max(1, int(window_s * SAMPLE_RATE))
    x = np.pad(x, (0, -len(x) % size))
    return float(np.sqrt((x.reshape(-1, size) ** 2).mean(axis=1).max()))


def voiceless(pcm: bytes) -> bool:
    """Whether a recording has no voice in it: silence, or nearly (``VOICE_RMS``)."""
    return loudest_rms(pcm) < VOICE_RMS


def _seconds(pcm_bytes: int) -> float:
    return pcm_bytes / 2 / SAMPLE_RATE


class PhraseCapture:
    """Fed the stream chunk by chunk, it gives the first phrase spoken, or None and why not:
    silence for ``timeout_s``, or sound that does not pause within ``longest_s`` (steady noise
    keeps voice detection in speech for ever).  What voice detection took for speech but is too
    quiet to be a voice (``voiceless``: it takes even a voice at -67 dBFS in digital silence, as
    from a microphone turned all the way down) is not a phrase: it goes on waiting, and if
    nothing louder comes, says so (``FAINT``)."""

    def __init__(self, timeout_s: float = PROMPT_TIMEOUT_S,
                 longest_s: float = PHRASE_MAX_S) -> None:
        import pocketsphinx

        self.timeout_s, self.longest_s = timeout_s, longest_s
        self._ep = pocketsphinx.Endpointer()
        self._buffer = b""
        self._speech: list[bytes] = []
        self._heard = 0.0  # seconds of stream fed
        self._said = 0  # bytes of speech kept
        self._faint = False  # voice detection took something too quiet to be a voice for speech

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
                phrase = b"".join(self._speech)
                if not voiceless(phrase):
                    return phrase, ""
                self._speech, self._said, self._faint = [], 0, True  # still waited for
        if _seconds(self._said) > self.longest_s:
            return None, (f"oigo un ruido que no para (más de {self.longest_s:.0f} s sin pausa): "
                          "eso no es un canto")
        if not self._speech and self._heard > self.timeout_s:
            return None, FAINT if self._faint else NOT_HEARD
        return None

    def end(self) -> tuple[bytes | None, str]:
        """The stream ended: what was said until then, if anything (with a voice in it)."""
        phrase = b"".join(self._speech)
        if phrase and not voiceless(phrase):
            return phrase, NOT_HEARD
        return None, FAINT if self._faint or phrase else NOT_HEARD
