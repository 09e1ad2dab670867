"""check_response.py against hand-made responses: a conforming one of each kind passes, and each kind of
violation (a missing key, a wrong type, bool for an integer, an unknown key, a failed call with a response, a
confidence above 1) is reported."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_response  # noqa: E402

LOCAL = {"success": True, "error": None, "response": "42", "cloud_handoff": False, "confidence": 0.5,
         "confidence_source": "entropy", "probe_ms": None, "time_to_first_token_ms": 1.5, "total_time_ms": 3,
         "prefill_tps": 100.0, "decode_tps": 50.0, "prefill_tokens": 5, "decode_tokens": 2, "ram_usage_mb": 12.0}
HYBRID = dict(LOCAL, local_response="42", provider="openai", model="m", handoff_reason="below_threshold",
              handoff_detail="confidence 0.5 < threshold 0.9", cloud_handoff=True,
              cloud_tokens={"prompt": 3, "completion": 1, "total": 4, "reported": True},
              timings={"local_ms": 1, "cloud_ms": 2, "total_ms": 3}, dropped_attachments={"images": 0, "audio": 0})
FAILED = {"success": False, "error": "messages_json: expected a JSON array", "response": None,
          "cloud_handoff": False, "confidence": None}


def without(d, key):
    return {k: v for k, v in d.items() if k != key}


def main():
    for name, r in (("local", LOCAL), ("hybrid", HYBRID), ("failed", FAILED)):
        if check_response.problems(r):
            raise SystemExit(f"FAIL: the {name} response should conform: {check_response.problems(r)}")
    cases = [
        (without(LOCAL, "success"), '"success" is missing'),
        (without(LOCAL, "decode_tps"), '"decode_tps" is missing'),
        (dict(LOCAL, confidence="high"), "$.confidence"),
        (dict(LOCAL, decode_tokens=True), "$.decode_tokens"),
        (dict(LOCAL, colour="blue"), '"colour" is not a key'),
        (dict(FAILED, response="text"), "$.response"),
        (dict(LOCAL, confidence=1.5), "above the maximum"),
        (dict(HYBRID, timings={"local_ms": 1}), '"total_ms" is missing'),
        (dict(HYBRID, handoff_reason="whim"), "$.handoff_reason"),
    ]
    for response, want in cases:
        found = check_response.problems(response)
        if not any(want in p for p in found):
            raise SystemExit(f"FAIL: expected a problem mentioning {want!r}, got {found}")
    print(f"ok: 3 conforming responses pass, {len(cases)} violations are each reported")


if __name__ == "__main__":
    main()
