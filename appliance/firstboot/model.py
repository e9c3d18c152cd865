"""The first-boot model, derived at import time from ovf/properties.yaml (never written out by hand).

Each vApp property becomes one pydantic field: its OVF type gives the Python type, its qualifiers
the constraints (MinLen/MaxLen, MinValue/MaxValue, ValueMap -> Literal), `password` makes it a
SecretStr, `format` adds a check from formats.CHECKS. So what the deploy wizard lets an admin type
and what the appliance accepts come from the same lines. Refusals are gathered per field into one
ConfigInvalid, with messages that never repeat a password; the few rules between two properties are
written by hand in rules.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Annotated, Any, Literal, cast

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, SecretStr, ValidationError, create_model
from pydantic_core import ErrorDetails

from appliance.firstboot.errors import ConfigInvalid, FieldError
from appliance.firstboot.formats import CHECKS
from appliance.firstboot.rules import cross_errors
from ovf.properties import INTEGER_TYPES, PropertyCatalogue, PropertySpec, load_catalogue


def _python_type(spec: PropertySpec) -> Any:
    if spec.password:
        return SecretStr
    if spec.type in INTEGER_TYPES:
        return int
    if spec.type == "boolean":
        return bool
    if spec.choices:
        return Literal[spec.choices]
    base: Any = str
    if spec.format:
        base = Annotated[str, AfterValidator(CHECKS[spec.format])]
    return base


def _default(spec: PropertySpec) -> Any:
    if spec.default is None:
        return ...
    if spec.type in INTEGER_TYPES:
        return int(spec.default)
    if spec.type == "boolean":
        return spec.default.lower() == "true"
    return spec.default


def build_model(catalogue: PropertyCatalogue) -> type[BaseModel]:
    """A pydantic model with one field per property of the catalogue."""
    fields: dict[str, Any] = {}
    for spec in catalogue.properties:
        constraints: dict[str, Any] = {}
        if spec.min_len is not None:
            constraints["min_length"] = spec.min_len
        if spec.max_len is not None:
            constraints["max_length"] = spec.max_len
        if spec.min_value is not None:
            constraints["ge"] = spec.min_value
        if spec.max_value is not None:
            constraints["le"] = spec.max_value
        fields[spec.key] = (
            _python_type(spec),
            Field(_default(spec), title=spec.label, description=spec.description, **constraints),
        )
    model = create_model(
        "OvfProperties",
        __config__=ConfigDict(extra="ignore", frozen=True, strict=False),
        __doc__="The appliance's vApp properties as first boot accepts them (see ovf/properties.yaml).",
        **fields,
    )
    return cast(type[BaseModel], model)


@cache
def properties_model() -> type[BaseModel]:
    """The model for the catalogue shipped with the ovf package."""
    return build_model(load_catalogue())


class ValidatedProperties:
    """A validated property set with typed accessors (the model's fields are only known at run time)."""

    def __init__(self, model: BaseModel, catalogue: PropertyCatalogue) -> None:
        self.model = model
        self._specs = catalogue.by_key()

    def _get(self, key: str) -> Any:
        if key not in self._specs:
            raise KeyError(f"{key!r} is not a property in ovf/properties.yaml")
        return getattr(self.model, key)

    def text(self, key: str) -> str:
        """A string property (a choice, or free text) as validated and normalised."""
        value = self._get(key)
        if not isinstance(value, str):
            raise TypeError(f"{key} is {type(value).__name__}, not a string")
        return value

    def integer(self, key: str) -> int:
        """An integer property."""
        value = self._get(key)
        if not isinstance(value, int):
            raise TypeError(f"{key} is {type(value).__name__}, not an integer")
        return value

    def flag(self, key: str) -> bool:
        """A boolean property."""
        value = self._get(key)
        if not isinstance(value, bool):
            raise TypeError(f"{key} is {type(value).__name__}, not a boolean")
        return value

    def secret(self, key: str) -> str:
        """A password property's clear text: hash it, never store or log it."""
        value = self._get(key)
        if not isinstance(value, SecretStr):
            raise TypeError(f"{key} is not a password property")
        return value.get_secret_value()

    def public(self) -> dict[str, Any]:
        """Every non-password value, for the status report and logs."""
        return {k: v for k, v in self.model.model_dump().items() if not self._specs[k].password}


def _message(spec: PropertySpec, error: ErrorDetails) -> str:
    kind, ctx = error["type"], error.get("ctx", {})
    shown = "" if spec.password else f" (got {error.get('input')!r})"
    if kind == "missing":
        return "is required but was not given"
    if kind in ("string_too_short", "too_short"):
        if not error.get("input"):
            return f"is empty; it needs at least {ctx.get('min_length')} characters"
        return f"needs at least {ctx.get('min_length')} characters"
    if kind in ("string_too_long", "too_long"):
        return f"may have at most {ctx.get('max_length')} characters"
    if kind in ("greater_than_equal", "less_than_equal"):
        return f"must be between {spec.min_value} and {spec.max_value}{shown}"
    if kind == "int_parsing":
        return f"must be a whole number{shown}"
    if kind == "literal_error":
        return f"must be one of {', '.join(spec.choices or ())}{shown}"
    if kind == "value_error":
        return str(ctx.get("error", error["msg"]))
    return f"{error['msg']}{shown}"


def _prepare(raw: Mapping[str, str], catalogue: PropertyCatalogue) -> dict[str, str]:
    """The values to validate: empty integers and booleans fall back to their default like absent ones."""
    prepared: dict[str, str] = {}
    for spec in catalogue.properties:
        if spec.key not in raw:
            continue
        value = raw[spec.key]
        if value.strip() == "" and (spec.type in INTEGER_TYPES or spec.type == "boolean"):
            continue
        prepared[spec.key] = value
    return prepared


def _effective(spec: PropertySpec, prepared: Mapping[str, str]) -> str:
    return prepared.get(spec.key, spec.default or "").strip()


def _presence_errors(prepared: Mapping[str, str], catalogue: PropertyCatalogue) -> list[FieldError]:
    errors = []
    by_key = catalogue.by_key()
    for spec in catalogue.properties:
        if _effective(spec, prepared):
            continue
        if spec.required:
            errors.append(FieldError(spec.key, spec.label, "is empty; it is required"))
        for other, value in (spec.required_when or {}).items():
            if _effective(by_key[other], prepared) == value:
                errors.append(FieldError(spec.key, spec.label, f"is required when {other} is {value}"))
    return errors


def validate_properties(
    raw: Mapping[str, str], catalogue: PropertyCatalogue | None = None
) -> ValidatedProperties:
    """Validate OVF environment values; ConfigInvalid lists every refused field (in catalogue order)."""
    catalogue = catalogue or load_catalogue()
    model = properties_model() if catalogue is load_catalogue() else build_model(catalogue)
    prepared = _prepare(raw, catalogue)
    specs = catalogue.by_key()
    errors: list[FieldError] = []
    instance: BaseModel | None = None
    try:
        instance = model.model_validate(prepared)
    except ValidationError as exc:
        for error in exc.errors():
            key = str(error["loc"][0])
            errors.append(FieldError(key, specs[key].label, _message(specs[key], error)))
    reported = {e.key for e in errors}
    errors.extend(e for e in _presence_errors(prepared, catalogue) if e.key not in reported)
    reported = {e.key for e in errors}
    given = {spec.key: prepared.get(spec.key, spec.default or "") for spec in catalogue.properties}
    errors.extend(e for e in cross_errors(given, specs) if e.key not in reported)
    if errors or instance is None:
        order = list(specs)
        raise ConfigInvalid(sorted(errors, key=lambda e: order.index(e.key)))
    return ValidatedProperties(instance, catalogue)
