"""Constrained decoding (docs/structured-output.md), acceptance 2 of issue 31: for 1,000 seeded random JSON Schemas
(random_json_schemas.py) a model samples at temperature 1 with response_format, and every response parses and
validates against its schema with Debian's python3-jsonschema, an independent validator. Also {"type":
"json_object"}, the composition with top-k/top-p/min-p, and bad response formats: one error line each.

The model is stories260K (llama2.c, a 512-token byte-fallback vocabulary): examples/models/default's 71 tokens are
the characters of its corpus and have no '{', '[' or '"', so no JSON object, array or string can be written with
them (the C API then says so: checked below)."""
import json
import os
import sys

import common
import random_json_schemas

COUNT = 1000
MAX_TOKENS = 160  # above the shortest value of every generated schema (at most 134 bytes)


def main():
    args = common.parse_args()
    try:
        import jsonschema
    except ImportError:
        print("SKIP: python3-jsonschema is not installed (./dev test installs it)")
        raise SystemExit(common.SKIP)
    model = common.require_shared(args, "data", "stories260K", "stories260K.bin")
    tok = common.require_shared(args, "data", "stories260K", "tok512.bin")
    bundle = os.path.join(args.work_dir, "stories")
    common.run([args.saguaro, "compile", model, "--tokenizer", tok, "-o", bundle], args)
    sys.path.insert(0, os.path.join(args.source_dir, "bindings", "python"))
    import saguaro
    from saguaro.errors import SaguaroError

    messages = [{"role": "user", "content": "Once upon a time"}]
    failures, tokens, decode_ms = [], 0, 0.0
    with saguaro.init(bundle) as m:
        for i, schema in enumerate(random_json_schemas.schemas(20261127, COUNT)):
            fmt = {"type": "json_schema", "json_schema": {"name": f"s{i}", "schema": schema}}
            options = {"max_tokens": MAX_TOKENS, "temperature": 1, "top_p": 1, "seed": i, "response_format": fmt}
            try:
                r = m.complete(messages, options)
            except SaguaroError as e:
                failures.append(f"schema {i} {json.dumps(schema)}: {e}")
                continue
            tokens += r["decode_tokens"]
            decode_ms += r["total_time_ms"]
            try:
                jsonschema.validate(json.loads(r["response"]), schema)
            except (ValueError, jsonschema.ValidationError) as e:
                failures.append(f"schema {i} {json.dumps(schema)}: {r['response']!r}: {str(e).splitlines()[0]}")
        print(f"{COUNT} schemas: {COUNT - len(failures)} responses valid, {tokens} tokens, "
              f"{decode_ms / max(tokens, 1):.3f} ms per token (prompt and masks included)")

        # Any JSON object, under every sampling filter at once.
        for seed in range(20):
            r = m.complete(messages, {"max_tokens": 48, "temperature": 1.3, "top_k": 40, "top_p": 0.9, "min_p": 0.02,
                                      "seed": seed, "response_format": {"type": "json_object"}})
            value = json.loads(r["response"])
            if not isinstance(value, dict):
                failures.append(f"json_object seed {seed}: {r['response']!r} is not an object")

        # Bad response formats: one error naming the problem, the model still usable afterwards.
        bad = [({"type": "json_schema", "json_schema": {"schema": {"type": "string", "format": "email"}}},
                'options_json: response_format: schema #: unsupported keyword "format"'),
               ({"type": "json_schema", "json_schema": {"schema": {"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/a"}}}}},
                "options_json: response_format: schema #: a $ref cycle never reaches a value"),
               ({"type": "json_schema", "json_schema": {"schema": {"type": "object", "properties": {"n": {"$ref": "#"}},
                                                                   "required": ["n"]}}},
                "options_json: response_format: schema #: the schema has no finite value"),
               ({"type": "xml"}, 'options_json: response_format: "type" "xml" is not'),
               ({"type": "json_schema", "json_schema": {"schema": {"type": "string", "minLength": 300}}},
                f"options_json: response_format: {MAX_TOKENS} tokens left cannot complete the JSON value")]
        for fmt, expect in bad:
            try:
                m.complete(messages, {"max_tokens": MAX_TOKENS, "response_format": fmt})
                failures.append(f"{fmt}: accepted")
            except SaguaroError as e:
                if not str(e).startswith(expect):
                    failures.append(f"{fmt}: error {str(e)!r}, expected it to start with {expect!r}")
        m.complete(messages, {"max_tokens": 4})

    # The same constraint through `saguaro complete --response-format FILE` and `saguaro serve`'s response_format.
    person = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 8}, "age": {"type": "integer"}},
              "required": ["name", "age"], "additionalProperties": False}
    fmt = {"type": "json_schema", "json_schema": {"name": "person", "schema": person}}
    fmt_path = os.path.join(args.work_dir, "format.json")
    json.dump(fmt, open(fmt_path, "w"))
    out = common.run([args.saguaro, "complete", bundle, "--messages", json.dumps(messages), "--options",
                      json.dumps({"max_tokens": 64, "seed": 3}), "--response-format", fmt_path], args)
    answers = [("saguaro complete", json.loads(out.stdout)["response"])]
    server, port, log, _ = common.start_serve(args, bundle, [], dict(os.environ), "serve.log")
    try:
        status, text = common.post_chat(port, {"messages": messages, "max_tokens": 64, "response_format": fmt})
        if status != 200:
            failures.append(f"serve with response_format: status {status}: {text}")
        else:
            answers.append(("saguaro serve", json.loads(text)["choices"][0]["message"]["content"]))
        bad_fmt = {"type": "json_schema", "json_schema": {"schema": {"type": "string", "pattern": "a+"}}}
        status, text = common.post_chat(port, {"messages": messages, "response_format": bad_fmt})
        if status != 400 or 'unsupported keyword \\"pattern\\"' not in text:
            failures.append(f"serve with an unsupported keyword: status {status}: {text}")
    finally:
        server.terminate()
        server.wait()
    for where, answer in answers:
        try:
            jsonschema.validate(json.loads(answer), person)
        except (ValueError, jsonschema.ValidationError) as e:
            failures.append(f"{where}: {answer!r}: {str(e).splitlines()[0]}")

    # The default model's vocabulary cannot write an object: a clear error, not a broken answer.
    default = common.build_default_bundle(args, os.path.join(args.work_dir, "default"))
    msgs = os.path.join(args.work_dir, "messages.json")
    opts = os.path.join(args.work_dir, "options.json")
    json.dump([{"role": "user", "content": "Q: What is 1 + 1?"}], open(msgs, "w"))
    json.dump({"response_format": {"type": "json_object"}}, open(opts, "w"))
    out = common.run([default, os.path.dirname(default) + "/../weights.sgw", "--complete", msgs, "--options", opts],
                     args, check=False)
    said = out.stderr.decode()
    if out.returncode == 0 or "no token of the vocabulary continues the JSON value" not in said:
        failures.append(f"default model with json_object: exit {out.returncode}, said {said!r}")

    for f in failures[:20]:
        print("FAIL:", f)
    if failures:
        raise SystemExit(f"FAIL: {len(failures)} failures")
    print("PASS")


if __name__ == "__main__":
    main()
