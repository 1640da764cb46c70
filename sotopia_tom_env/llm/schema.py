"""Pydantic models to OpenAI strict-mode JSON schemas.

Strict structured output (OpenAI, vLLM's ``response_format``) accepts a subset of JSON Schema:
every object lists all its properties as ``required`` and sets ``additionalProperties: false``.
Optional fields are expressed as nullable (``anyOf [..., {"type": "null"}]``), never as
omittable, so a default other than ``None`` has no meaning there and is rejected rather than
silently dropped.
"""

from __future__ import annotations

import copy
from typing import Any

from pydantic import BaseModel

__all__ = ["strict_json_schema"]

Schema = dict[str, Any]


def strict_json_schema(model: type[BaseModel]) -> Schema:
    """Return the OpenAI strict-mode JSON schema of a pydantic model.

    Every object gets all its properties in ``required`` and ``additionalProperties: false``;
    ``$defs`` stay at the root and are made strict too; a ``$ref`` that carries sibling keys
    (such as a field description) is inlined; single-entry ``allOf`` is flattened and ``oneOf``
    becomes ``anyOf``. ``default: null`` is dropped (the field stays nullable).

    Args:
        model: A pydantic model class.

    Returns:
        A new JSON schema dict; the model's own schema is not modified.

    Raises:
        ValueError: When a field has a default other than ``None``, or is a free-form
            mapping (``dict[str, X]``, ``extra="allow"``), which strict mode cannot express.
            The message names the field.

    Example:
        >>> class Item(BaseModel):
        ...     name: str
        ...     note: str | None = None
        >>> schema = strict_json_schema(Item)
        >>> schema["required"], schema["additionalProperties"]
        (['name', 'note'], False)
    """
    root = copy.deepcopy(model.model_json_schema())
    defs = root.get("$defs", {})
    for name, sub in defs.items():
        defs[name] = _strict(sub, where=name, root=root)
    return _strict(root, where=model.__name__, root=root)


def _strict(node: Schema, *, where: str, root: Schema) -> Schema:
    """Make one schema node (and everything below it) strict, in place."""
    if "$ref" in node and len(node) > 1:
        return _strict(_inline_ref(node, root), where=where, root=root)
    _check_default(node, where)
    if node.get("type") == "object" or "properties" in node:
        _strict_object(node, where=where, root=root)
    if isinstance(node.get("items"), dict):
        node["items"] = _strict(node["items"], where=f"{where}[]", root=root)
    for i, item in enumerate(node.get("prefixItems", [])):
        node["prefixItems"][i] = _strict(item, where=f"{where}[{i}]", root=root)
    if "oneOf" in node:
        # Discriminated unions: the variants' literal tags already tell them apart.
        node["anyOf"] = node.pop("oneOf")
        node.pop("discriminator", None)
    if "anyOf" in node:
        node["anyOf"] = [_strict(v, where=where, root=root) for v in node["anyOf"]]
    return _flatten_all_of(node, where=where, root=root)


def _strict_object(node: Schema, *, where: str, root: Schema) -> None:
    """Require every property and forbid extra keys on an object node."""
    properties = node.get("properties")
    extra = node.get("additionalProperties", False)
    if properties is None or extra not in (False, None):
        raise ValueError(
            f"{where}: free-form objects (dict[str, ...], extra='allow', bare dict) cannot be "
            "expressed in OpenAI strict mode; use a model with named fields or a list of pairs"
        )
    node["properties"] = {
        key: _strict(sub, where=f"{where}.{key}", root=root) for key, sub in properties.items()
    }
    node["required"] = list(properties)
    node["additionalProperties"] = False


def _check_default(node: Schema, where: str) -> None:
    """Drop a ``None`` default; reject any other default."""
    if "default" not in node:
        return
    default = node.pop("default")
    if default is not None:
        raise ValueError(
            f"{where}: default {default!r} cannot be expressed in OpenAI strict mode (every "
            "field is required there); remove the default, or make the field `X | None = None`"
        )


def _inline_ref(node: Schema, root: Schema) -> Schema:
    """Replace ``{"$ref": ..., **siblings}`` by the referenced schema merged with the siblings."""
    ref = node["$ref"]
    if not ref.startswith("#/"):
        raise ValueError(f"unsupported $ref {ref!r}: only local '#/...' references are handled")
    target: Any = root
    for key in ref[2:].split("/"):
        target = target[key]
    siblings = {k: v for k, v in node.items() if k != "$ref"}
    return {**copy.deepcopy(target), **siblings}


def _flatten_all_of(node: Schema, *, where: str, root: Schema) -> Schema:
    """Merge a single-entry ``allOf`` (pydantic's wrapper for described refs) into the node."""
    all_of = node.get("allOf")
    if not isinstance(all_of, list):
        return node
    if len(all_of) == 1:
        node.pop("allOf")
        merged = {**_strict(copy.deepcopy(all_of[0]), where=where, root=root), **node}
        return _strict(merged, where=where, root=root)
    node["allOf"] = [_strict(v, where=where, root=root) for v in all_of]
    return node
