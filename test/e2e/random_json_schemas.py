"""A seeded generator of JSON Schemas over the keywords constrained decoding supports (docs/structured-output.md):
objects with required and optional properties and additionalProperties, arrays with minItems/maxItems, strings
with minLength/maxLength, numbers, integers, booleans, null, enum, const, type lists, anyOf, and $defs/$ref
including recursive definitions. Sizes stay small so that a short token budget always fits the shortest value."""
import random

WORDS = ["id", "name", "kind", "tags", "count", "items", "x", "y", "note", "ok", "level", "child", "when", "unit"]


class SchemaGenerator:
    def __init__(self, seed):
        self.rng = random.Random(seed)

    def bounds(self, s, low, most, high, spread):
        """s with, half the time each, s[low] in 0..most and s[high] up to spread above it."""
        if self.rng.random() < 0.5:
            s[low] = self.rng.randint(0, most)
        if self.rng.random() < 0.5:
            s[high] = s.get(low, 0) + self.rng.randint(0, spread)
        return s

    def scalar(self):
        r = self.rng
        kind = r.choice(["string", "number", "integer", "boolean", "null", "enum", "const", "types"])
        if kind == "string":
            return self.bounds({"type": "string"}, "minLength", 4, "maxLength", 6)
        if kind == "enum":
            pool = ["a", "bc", "a b", 0, 1, -2.5, True, None, "x\"y", "a\\b"]
            return {"enum": r.sample(pool, r.randint(1, 4))}
        if kind == "const":
            return {"const": r.choice(["on", 7, False, None, [1, "two"], {"k": "v"}])}
        if kind == "types":
            return {"type": r.sample(["string", "integer", "null", "boolean"], 2)}
        return {"type": kind}

    def value(self, depth):
        r = self.rng
        if depth <= 0 or r.random() < 0.35:
            return self.scalar()
        kind = r.choice(["object", "object", "array", "anyOf"])
        if kind == "array":
            return self.bounds({"type": "array", "items": self.value(depth - 1)}, "minItems", 2, "maxItems", 3)
        if kind == "anyOf":
            return {"anyOf": [self.value(depth - 1) for _ in range(r.randint(2, 3))]}
        return self.obj(depth)

    def obj(self, depth):
        r = self.rng
        names = r.sample(WORDS, r.randint(0, 4))
        s = {"type": "object", "properties": {n: self.value(depth - 1) for n in names}}
        s["required"] = [n for n in names if r.random() < 0.6]
        choice = r.random()
        if choice < 0.4:
            s["additionalProperties"] = False
        elif choice < 0.6 and not names:
            s["additionalProperties"] = self.scalar()
        return s

    def schema(self):
        """One schema; every fifth uses $defs and $ref, half of those a recursive definition."""
        r = self.rng
        if r.random() < 0.2:
            if r.random() < 0.5:
                node = {"type": "object", "properties": {"value": self.scalar(),
                                                         "children": {"type": "array", "maxItems": 2,
                                                                      "items": {"$ref": "#/$defs/node"}}},
                        "required": ["value"], "additionalProperties": False}
                return {"$defs": {"node": node}, "$ref": "#/$defs/node"}
            return {"$defs": {"part": self.value(1)}, "type": "object",
                    "properties": {"first": {"$ref": "#/$defs/part"}, "second": {"$ref": "#/$defs/part"}},
                    "required": ["first"]}
        return self.value(3)


def schemas(seed, count):
    g = SchemaGenerator(seed)
    return [g.schema() for _ in range(count)]
