"""The models ``truco-referee models fetch`` can download (speech models and a card deck), and
where each one lands.

Checksums: an archive is checked against ``sha256`` and ``size`` when the catalog knows them.  The
upstream sites publish neither for these two archives, so for them the download is checked against
the server's announced length and every member's CRC inside the archive (zip and gzip both carry
one).  What was fetched is recorded next to the model (``fetched.json``: the archive's SHA-256 and
the size of every file unpacked), so that ``models check`` can tell later whether a file went
missing or changed size.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ModelSpec:
    """One downloadable model: what it is, where it comes from, and how to recognize it unpacked."""

    name: str
    kind: str  # "vosk", "sphinx", or "deck" (a sheet of card faces, cut into the 40 faces)
    language: str
    url: str
    archive: str  # file name of the download
    folder: str  # folder created under the models directory
    description: str
    licence: str
    approx_mb: int
    sha256: str | None = None
    size: int | None = None

    def target(self, models_dir: Path) -> Path:
        return models_dir / self.folder


VOSK_ES = ModelSpec(
    name="vosk-es",
    kind="vosk",
    language="es",
    url="https://alphacephei.com/vosk/models/vosk-model-small-es-0.42.zip",
    archive="vosk-model-small-es-0.42.zip",
    folder="vosk-model-small-es-0.42",
    description="Vosk, español (modelo chico 0.42): el reconocedor principal",
    licence="Apache-2.0",
    approx_mb=39,
)

SPHINX_ES = ModelSpec(
    name="sphinx-es",
    kind="sphinx",
    language="es",
    url=(
        "https://sourceforge.net/projects/cmusphinx/files/Acoustic%20and%20Language%20Models/"
        "Spanish/cmusphinx-es-5.2.tar.gz/download"
    ),
    archive="cmusphinx-es-5.2.tar.gz",
    folder="cmusphinx-es-5.2",
    description="PocketSphinx, español (cmusphinx-es-5.2): liviano, de respaldo",
    licence="BSD-style (CMU Sphinx)",
    approx_mb=45,
)

DECK_NAIPES_LIBRES = ModelSpec(
    name="mazo-naipes-libres",
    kind="deck",
    language="",
    url="https://upload.wikimedia.org/wikipedia/commons/e/e0/Baraja_espa%C3%B1ola_completa.png",
    archive="Baraja_espanola_completa.png",
    folder="cards/decks/naipes-libres",
    description="mazo «Naipes libres» (Wikimedia Commons) para reconocer cartas; mejor calibrá "
                "con tu propio mazo",
    licence="CC BY-SA 3.0",
    approx_mb=2,
)

CATALOG: dict[str, ModelSpec] = {spec.name: spec
                                 for spec in (VOSK_ES, SPHINX_ES, DECK_NAIPES_LIBRES)}


def get(name: str) -> ModelSpec:
    """A catalog entry by name (``vosk-es``, ``sphinx-es``)."""
    try:
        return CATALOG[name]
    except KeyError:
        known = ", ".join(CATALOG)
        raise KeyError(f"unknown model '{name}' (known: {known})") from None
