"""pydantic's errors about a page's message, told in Spanish as one coded ``ActionError``: the
field each is about, as the page sends it, and what is wrong with it."""

from __future__ import annotations

from typing import Any

from web_scoreboard import schemas
from web_scoreboard.errors import ActionError

# Where pydantic says a value was (a request's body, query or path) or, in a command, the action
# whose fields it checked: the first step of an error's location, not part of the field's name.
_PLACES = frozenset({"body", "query", "path", "header", "cookie", *schemas.ACTIONS})
# The branches of a union pydantic tried (``id``: a number or a text): not part of the name either.
_BRANCHES = frozenset({"int", "str"})
# What a value should have been, for the errors about its type; a union's branches join with «o».
_KINDS = {
    "int_type": "un número entero",
    "int_parsing": "un número entero",
    "float_type": "un número",
    "float_parsing": "un número",
    "string_type": "un texto",
    "bool_type": "true o false",
    "bool_parsing": "true o false",
    "list_type": "una lista, entre corchetes",
    "dict_type": "un objeto JSON, entre llaves",
    "model_type": "un objeto JSON, entre llaves",
    "model_attributes_type": "un objeto JSON, entre llaves",
}
# The other errors, with the values pydantic gives in their ``ctx`` (expected values, limits).
_TEMPLATES = {
    "missing": "falta (es obligatorio)",
    "extra_forbidden": "sobra (el mensaje no lleva ese dato)",
    "literal_error": "tiene que ser {expected}",
    "enum": "tiene que ser {expected}",
    "int_from_float": "tiene que ser un número entero, sin decimales",
    "string_too_long": "puede tener hasta {max_length} caracteres",
    "string_too_short": "tiene que tener al menos {min_length} caracteres",
    "too_long": "puede tener hasta {max_length} elementos",
    "too_short": "tiene que tener al menos {min_length} elementos",
    "greater_than_equal": "tiene que ser {ge} o más",
    "greater_than": "tiene que ser más de {gt}",
    "less_than_equal": "tiene que ser {le} o menos",
    "less_than": "tiene que ser menos de {lt}",
    "json_invalid": "no es JSON válido",
}
_UNKNOWN = "tiene un valor que no sirve"


def describe_errors(errors: list[Any]) -> ActionError:
    """Turn pydantic errors into one clear, coded error, in Spanish."""
    kinds = {e.get("type") for e in errors}
    if "json_invalid" in kinds or "json_type" in kinds:
        return ActionError("malformed-json", "el mensaje no es JSON válido", 400)
    if "union_tag_invalid" in kinds:
        return ActionError("unknown-action", "acción desconocida; las válidas son: "
                           + ", ".join(schemas.ACTIONS), 400)
    if "union_tag_not_found" in kinds:
        return ActionError("missing-action", "falta «action» en el mensaje", 400)
    by_field: dict[str, list[Any]] = {}
    for error in errors:
        by_field.setdefault(_field_name(error.get("loc", ())), []).append(error)
    parts = [f"{name}: {_field_problem(found)}" for name, found in list(by_field.items())[:3]]
    return ActionError("invalid", "mensaje inválido — " + "; ".join(parts), 422)


def _field_name(loc: tuple[Any, ...]) -> str:
    """The field an error is about, as the page sends it (``settings.players``); «mensaje», all."""
    steps = [str(step) for step in loc]
    if steps and steps[0] in _PLACES:
        steps = steps[1:]
    return ".".join(step for step in steps if step not in _BRANCHES) or "mensaje"


def _field_problem(errors: list[Any]) -> str:
    """What is wrong with one field, in Spanish; several errors are the branches of a union."""
    kinds = [_KINDS.get(e.get("type")) for e in errors]
    if all(kinds):
        return "tiene que ser " + " o ".join(dict.fromkeys(str(k) for k in kinds))
    return _problem_text(errors[0])


def _problem_text(error: Any) -> str:
    """One pydantic error in Spanish, from its type and ``ctx``; a generic text if not known."""
    kind = error.get("type")
    if kind in schemas.OWN_ERRORS:
        return str(error.get("msg"))
    ctx = {key: _spanish_or(value) for key, value in (error.get("ctx") or {}).items()}
    try:
        return _TEMPLATES.get(kind, _UNKNOWN).format(**ctx)
    except (KeyError, IndexError, ValueError):
        return _UNKNOWN


def _spanish_or(value: Any) -> Any:
    """pydantic's lists of expected values end in English: «2, 4 or 6» -> «2, 4 o 6»."""
    return " o ".join(value.rsplit(" or ", 1)) if isinstance(value, str) else value
