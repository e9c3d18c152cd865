"""The vApp property catalogue: ovf/properties.yaml loaded into typed specs.

Both the OVF descriptor (what vSphere asks the admin) and the first-boot model (what the appliance
accepts) are derived from these specs, so the two can never disagree.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

OvfType = Literal[
    "string",
    "boolean",
    "uint8",
    "sint8",
    "uint16",
    "sint16",
    "uint32",
    "sint32",
    "uint64",
    "sint64",
]
"""DSP0243 property types we use (real32/real64 left out: no property needs them)."""

INTEGER_TYPES: frozenset[str] = frozenset(
    {"uint8", "sint8", "uint16", "sint16", "uint32", "sint32", "uint64", "sint64"}
)

Format = Literal[
    "hostname", "fqdn", "ipv4", "ipv4-list", "host-list", "domain-list", "network-list", "ssh-public-key"
]

_KEY = re.compile(r"^[a-z][a-z0-9_]*$")


class PropertySpec(BaseModel):
    """One vApp property as declared in properties.yaml."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    key: str = Field(description="ovf:key and the first-boot field name")
    category: str = Field(description="ProductSection <Category> the property is listed under")
    type: OvfType = Field(description="DSP0243 property type")
    label: str = Field(description="One-line label shown by the deploy wizard")
    description: str = Field(description="Help text shown by the deploy wizard")
    default: str | None = Field(default=None, description="ovf:value; None means no default")
    min_len: int | None = Field(default=None, ge=0, description="MinLen() qualifier (strings)")
    max_len: int | None = Field(default=None, ge=1, description="MaxLen() qualifier (strings)")
    min_value: int | None = Field(default=None, description="MinValue() qualifier (integers)")
    max_value: int | None = Field(default=None, description="MaxValue() qualifier (integers)")
    choices: tuple[str, ...] | None = Field(default=None, description="ValueMap{} qualifier")
    password: bool = Field(default=False, description="ovf:password: masked, never stored in clear")
    user_configurable: bool = Field(default=True, description="ovf:userConfigurable")
    format: Format | None = Field(default=None, description="First-boot check beyond the qualifiers")
    required: bool = Field(default=False, description="First boot refuses an empty value")
    required_when: dict[str, str] | None = Field(
        default=None, description="Required only when another property has the given value"
    )

    @model_validator(mode="after")
    def _consistent(self) -> PropertySpec:
        if not _KEY.match(self.key):
            raise ValueError(f"key {self.key!r} must be a lower-case identifier")
        is_int = self.type in INTEGER_TYPES
        if is_int and (self.min_len is not None or self.max_len is not None or self.choices):
            raise ValueError(f"{self.key}: MinLen/MaxLen/ValueMap apply to strings only")
        if not is_int and (self.min_value is not None or self.max_value is not None):
            raise ValueError(f"{self.key}: MinValue/MaxValue apply to integers only")
        if self.password and self.default:
            raise ValueError(f"{self.key}: a password property must not have a default")
        if self.choices is not None and self.default is not None and self.default not in self.choices:
            raise ValueError(f"{self.key}: default {self.default!r} is not one of {self.choices}")
        return self

    def qualifiers(self) -> str | None:
        """The ovf:qualifiers string, comma-separated as VMware writes it; None when unqualified."""
        parts: list[str] = []
        if self.choices:
            parts.append("ValueMap{" + ",".join(f'"{c}"' for c in self.choices) + "}")
        if self.min_len is not None:
            parts.append(f"MinLen({self.min_len})")
        if self.max_len is not None:
            parts.append(f"MaxLen({self.max_len})")
        if self.min_value is not None:
            parts.append(f"MinValue({self.min_value})")
        if self.max_value is not None:
            parts.append(f"MaxValue({self.max_value})")
        return ",".join(parts) or None


class PropertyCatalogue(BaseModel):
    """All vApp properties, in the order the deploy wizard shows them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    properties: tuple[PropertySpec, ...] = Field(description="The properties, grouped by category")

    @model_validator(mode="after")
    def _unique_and_grouped(self) -> PropertyCatalogue:
        keys = [p.key for p in self.properties]
        dupes = sorted({k for k in keys if keys.count(k) > 1})
        if dupes:
            raise ValueError(f"duplicate property keys: {dupes}")
        seen: list[str] = []
        for p in self.properties:
            if p.category in seen and seen[-1] != p.category:
                raise ValueError(f"{p.key}: category {p.category!r} is split; keep its entries together")
            if not seen or seen[-1] != p.category:
                seen.append(p.category)
        by_key = {p.key: p for p in self.properties}
        for p in self.properties:
            for other, value in (p.required_when or {}).items():
                if other not in by_key:
                    raise ValueError(f"{p.key}: required_when names unknown property {other!r}")
                choices = by_key[other].choices
                if choices is not None and value not in choices:
                    raise ValueError(f"{p.key}: required_when value {value!r} is not a choice of {other}")
        return self

    def by_key(self) -> dict[str, PropertySpec]:
        """Specs indexed by key."""
        return {p.key: p for p in self.properties}


def parse_catalogue(text: str) -> PropertyCatalogue:
    """Parse properties.yaml text; raises pydantic.ValidationError on a malformed catalogue."""
    return PropertyCatalogue.model_validate(yaml.safe_load(text))


@cache
def load_catalogue() -> PropertyCatalogue:
    """The catalogue shipped in this package (read through importlib so it works from a wheel)."""
    text = resources.files("ovf").joinpath("properties.yaml").read_text(encoding="utf-8")
    return parse_catalogue(text)
