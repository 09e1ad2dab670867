"""One response schema (test/schema/response.schema.json) for every interface, on the default model:
- the C API (saguaro_complete through the bundle program's --complete), a plain bundle;
- `saguaro complete`: the policy keeping the local answer, a refused cloud (error set), a dry run;
- the Python package (bindings/python, in a fresh virtual environment) and the Node package (bindings/node, in a
  fresh npm project): an answer, and the error response of invalid messages (SaguaroError.response).
(A --handoff bundle's C API responses are checked by e2e_bundle_handoff, against a fake cloud.)"""
import json
import os
import subprocess

import common

MESSAGES = [{"role": "user", "content": "What is 17 + 25?"}]
LOCAL = {"max_tokens": 8, "temperature": 0}

PYTHON_INTERFACE = """
import json, sys
import saguaro
with saguaro.init(sys.argv[1]) as model:
    answer = saguaro.complete(model, json.loads(sys.argv[2]), json.loads(sys.argv[3]))
    try:
        saguaro.complete(model, "[{not json", None)
        failed = None
    except saguaro.SaguaroError as e:
        failed = e.response
print(json.dumps([answer, failed]))
"""

NODE_INTERFACE = """
const saguaro = require('saguaro');
const [bundle, messages, options] = process.argv.slice(1);  // node -e SCRIPT ARGS: argv[1] is the first ARG
(async () => {
  const model = saguaro.init(bundle);
  const answer = await saguaro.complete(model, JSON.parse(messages), JSON.parse(options));
  const failed = await saguaro.complete(model, '[{not json', null).then(() => null, (e) => e.response);
  await saguaro.destroy(model);
  console.log(JSON.stringify([answer, failed]));
})();
"""


def check_binding(name, cmd, cwd):
    """Runs a binding's script printing [answer, error response of invalid messages] and checks both; returns 2."""
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True)
    if proc.returncode != 0:
        raise SystemExit(f"FAIL: the {name}: {proc.stderr.decode(errors='replace')}")
    answer, failed = json.loads(proc.stdout)
    common.check_response_schema(answer, f"the {name}")
    if failed is None:
        raise SystemExit(f"FAIL: the {name} accepted invalid messages JSON")
    common.check_response_schema(failed, f"the {name}'s SaguaroError.response")
    return 2


def main():
    args = common.parse_args()
    w = args.work_dir
    bundle = os.path.join(w, "bundle")
    program = common.build_default_bundle(args, bundle)
    checked = 0

    messages, options = os.path.join(w, "messages.json"), os.path.join(w, "options.json")
    json.dump(MESSAGES, open(messages, "w"))
    json.dump(LOCAL, open(options, "w"))
    out = common.run([program, bundle, "--complete", messages, "--options", options], args).stdout
    common.check_response_schema(json.loads(out), "the C API")
    checked += 1

    policy = {"cloud_provider": "openai", "cloud_base_url": "http://127.0.0.1:9", "cloud_model": "frontier",
              "cloud_timeout_ms": 1000, "spend_ledger_path": os.path.join(w, "ledger")}
    os.environ["SAGUARO_CLOUD_API_KEY"] = "sk-test-schema"  # a key, so that the refused cloud is tried
    for name, extra in (("kept local", {"confidence_threshold": 0.0}),
                        ("refused cloud", {"confidence_threshold": 1.0}),
                        ("dry run", {"confidence_threshold": 1.0, "dry_run": True})):
        proc = common.run([args.saguaro, "complete", bundle, "--messages", json.dumps(MESSAGES), "--options",
                           json.dumps(dict(LOCAL, **policy, **extra))], args)
        r = json.loads(proc.stdout)
        common.check_response_schema(r, f"saguaro complete, {name}")
        if (name == "refused cloud") != (r["error"] is not None):
            raise SystemExit(f"FAIL: saguaro complete, {name}: error {r['error']!r}")
        checked += 1

    python = common.python_package(args)
    checked += check_binding("Python package", [python, "-c", PYTHON_INTERFACE, bundle, json.dumps(MESSAGES),
                                                json.dumps(LOCAL)], w)
    app = common.node_package(args)
    checked += check_binding("Node package", ["node", "-e", NODE_INTERFACE, bundle, json.dumps(MESSAGES),
                                              json.dumps(LOCAL)], app)
    print(f"ok: {checked} responses of the C API, saguaro complete and the Python and Node packages match the schema")


if __name__ == "__main__":
    main()
