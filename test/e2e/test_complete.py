"""`saguaro complete` on the default model: the local answer with its confidence, then the handoff policy.
- a confidence above the threshold keeps the local answer (no cloud attempt, no error);
- below the threshold with a cloud that refuses connections: the local answer, cloud_handoff false, error set,
  and the API key (from the environment) appears nowhere in stdout or stderr;
- a dry run records the request it would send (without the key) and sends nothing;
- the spend cap persists across runs: with max_handoffs_per_hour 1, the second run is refused by the cap;
- an unknown option and malformed messages fail with one line and exit 1.
(The cloud faults themselves are tested in test/unit/handoff against misbehaving servers.)"""
import json
import os

import common

KEY = "sk-test-SECRET-e2e-4242"
MESSAGES = json.dumps([{"role": "user", "content": "What is 17 + 25?"}])


def complete(args, options, check=True):
    model = os.path.join(args.source_dir, "examples", "models", "default")
    proc = common.run([args.saguaro, "complete", model, "--messages", MESSAGES, "--options", json.dumps(options)],
                      args, check=check)
    out, err = proc.stdout.decode(), proc.stderr.decode()
    if KEY in out or KEY in err:
        raise SystemExit("FAIL: the API key was printed")
    return proc, out, err


def main():
    args = common.parse_args()
    w = args.work_dir
    os.environ["SAGUARO_CLOUD_API_KEY"] = KEY  # inherited by saguaro; it must never print it
    base = {"max_tokens": 8, "temperature": 0, "cloud_provider": "openai", "cloud_base_url": "http://127.0.0.1:9",
            "cloud_model": "frontier", "cloud_timeout_ms": 1500, "spend_ledger_path": os.path.join(w, "ledger")}

    _, out, _ = complete(args, dict(base, confidence_threshold=0.0))
    r = json.loads(out)
    if r["cloud_handoff"] or r["error"] is not None or not (0 < r["confidence"] <= 1) or not r["response"].strip():
        raise SystemExit(f"FAIL: above the threshold: {r}")
    print(f"ok: kept the local answer {r['response']!r} at confidence {r['confidence']:.3f} "
          f"({r['confidence_source']})")

    _, out, _ = complete(args, dict(base, confidence_threshold=1.0))
    r = json.loads(out)
    if r["cloud_handoff"] or not r["error"] or r["response"] != r["local_response"]:
        raise SystemExit(f"FAIL: a refused cloud must give the local answer with an error: {r}")
    print(f"ok: refused cloud -> local answer, error {r['error']!r}, {r['timings']['total_ms']} ms")

    record = os.path.join(w, "dry-run.json")
    _, out, _ = complete(args, dict(base, confidence_threshold=1.0, dry_run=True, dry_run_path=record))
    r = json.loads(out)
    sent = open(record).read()
    if r["cloud_handoff"] or "frontier" not in sent or KEY in sent:
        raise SystemExit(f"FAIL: dry run: {r}; record {sent[:200]!r}")
    print("ok: the dry run recorded the request without the key")

    capped = dict(base, confidence_threshold=1.0, max_handoffs_per_hour=1,
                  spend_ledger_path=os.path.join(w, "capped-ledger"))
    first = json.loads(complete(args, capped)[1])
    second = json.loads(complete(args, capped)[1])  # a new process: the cap comes from the ledger file
    if first.get("handoff_reason") == "cap_reached" or second.get("handoff_reason") != "cap_reached":
        raise SystemExit(f"FAIL: spend cap across runs: {first.get('handoff_reason')}, {second.get('handoff_reason')}")
    print("ok: the hourly handoff cap held across two processes")

    proc, _, err = complete(args, dict(base, colour="blue"), check=False)
    if proc.returncode == 0 or "colour" not in err or len(err.strip().splitlines()) != 1:
        raise SystemExit(f"FAIL: unknown option: exit {proc.returncode}, {err!r}")
    print(f"ok: {err.strip()}")


if __name__ == "__main__":
    main()
