"""System errors in words for the person, by errno: one table for the models fetch and the
command line.  An error not in the table is told as the system says it."""

from __future__ import annotations

import errno

# The errors that are about room on the disk: only these call for freeing space.
SPACE_ERRORS = frozenset({errno.ENOSPC, errno.EDQUOT})

# A disk's errors.
DISK_ERRORS: dict[int, str] = {
    errno.ENOSPC: "no queda lugar en el disco",
    errno.EDQUOT: "se llenó tu cuota de disco",
    errno.EFBIG: "el archivo es más grande de lo que este disco o el sistema dejan escribir",
    errno.EACCES: "no tengo permiso para escribir ahí",
    errno.EPERM: "el sistema no me deja hacer eso ahí",
    errno.EROFS: "ese disco es de solo lectura",
    errno.EIO: "el disco dio un error de lectura o escritura",
}

# A disk's, and a path's.
SYSTEM_ERRORS: dict[int, str] = {
    **DISK_ERRORS,
    errno.EEXIST: "ya hay un archivo con ese nombre",
    errno.ENOTDIR: "en el camino hay un archivo donde tendría que haber una carpeta",
    errno.EISDIR: "es una carpeta, no un archivo",
    errno.ENOENT: "no existe",
    errno.ELOOP: "hay un enlace simbólico que da vueltas sobre sí mismo",
    errno.ENAMETOOLONG: "el nombre es demasiado largo",
}


def said(err: OSError, table: dict[int, str] = SYSTEM_ERRORS) -> str:
    """A system error in words for the person (``table``, by errno)."""
    return table.get(err.errno or 0, err.strerror or str(err))
