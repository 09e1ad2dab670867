"""Checks completion responses against response.schema.json, the one schema of every interface's response (the C
API, `saguaro complete`, the Python package). It implements the part of JSON Schema that file uses — type, enum,
const, minimum, maximum, required, properties, additionalProperties, items, if/then/else — so that it runs with
/usr/bin/python3 alone.

As a program: check_response.py FILE... (each a response JSON); one line per problem, exit 1 when there is any.
As a module: problems(response) -> list of strings."""
import json
import os
import sys

SCHEMA_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "response.schema.json")
KEYWORDS = {"$schema", "$id", "title", "description", "type", "enum", "const", "minimum", "maximum", "required",
            "properties", "additionalProperties", "items", "if", "then", "else"}
TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
}


def _same(a, b):
    """JSON equality: true is not 1."""
    return type(a) is type(b) and a == b if isinstance(a, bool) or isinstance(b, bool) else a == b


def _check(value, schema, where, out):
    """Appends to `out` one line per way `value` (at JSON path `where`) breaks `schema`."""
    unknown = set(schema) - KEYWORDS
    if unknown:
        raise ValueError(f"{SCHEMA_PATH}: {where}: keywords this checker does not implement: {sorted(unknown)}")
    if "type" in schema:
        kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(TYPES[k](value) for k in kinds):
            out.append(f"{where}: {json.dumps(value)} is not of type {' or '.join(kinds)}")
            return
    if "enum" in schema and not any(_same(value, e) for e in schema["enum"]):
        out.append(f"{where}: {json.dumps(value)} is not one of {json.dumps(schema['enum'])}")
    if "const" in schema and not _same(value, schema["const"]):
        out.append(f"{where}: {json.dumps(value)} is not {json.dumps(schema['const'])}")
    if TYPES["number"](value):
        if "minimum" in schema and value < schema["minimum"]:
            out.append(f"{where}: {value} is below the minimum {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            out.append(f"{where}: {value} is above the maximum {schema['maximum']}")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        out.extend(f"{where}: \"{k}\" is missing" for k in schema.get("required", []) if k not in value)
        for k, v in value.items():
            if k in props:
                _check(v, props[k], f"{where}.{k}", out)
            elif schema.get("additionalProperties", True) is False:
                out.append(f"{where}: \"{k}\" is not a key of the schema")
            elif isinstance(schema.get("additionalProperties"), dict):
                _check(v, schema["additionalProperties"], f"{where}.{k}", out)
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            _check(item, schema["items"], f"{where}[{i}]", out)
    if "if" in schema:
        matched = []
        _check(value, schema["if"], where, matched)
        branch = schema.get("else" if matched else "then")
        if branch is not None:
            _check(value, branch, where, out)


def problems(response, schema=None):
    """The ways `response` (parsed JSON) breaks the schema; empty when it conforms."""
    if schema is None:
        with open(SCHEMA_PATH) as f:
            schema = json.load(f)
    out = []
    _check(response, schema, "$", out)
    return out


def main(paths):
    if not paths:
        print("usage: check_response.py RESPONSE.json...", file=sys.stderr)
        return 2
    bad = 0
    for path in paths:
        try:
            with open(path) as f:
                found = problems(json.load(f))
        except (OSError, ValueError) as e:
            found = [str(e)]
        for p in found:
            print(f"{path}: {p}")
        bad += bool(found)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
