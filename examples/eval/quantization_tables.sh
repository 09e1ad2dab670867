#!/usr/bin/env bash
# Reproduces the quantization quality tables of docs/quantization.md ("Measured"): saguaro eval of CQ against
# GPTQ and RTN on stories260K (../shared) and on the default model, with calibration text that is disjoint
# from the evaluated text. Usage: examples/eval/quantization_tables.sh [OUT_DIR]   (about 20 minutes)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SAGUARO="$ROOT/build/bin/saguaro"
OUT="${1:-$(mktemp -d)}"
mkdir -p "$OUT"
STORIES="$ROOT/../shared/data/stories260K"

# stories260K: its own samples (temperature 1), evaluated on seeds 1-6, calibrated on seeds 21-50.
"$SAGUARO" compile "$STORIES/stories260K.bin" --tokenizer "$STORIES/tok512.bin" -o "$OUT/stories260K" 2>/dev/null
sample() { for s in "$@"; do "$SAGUARO" run "$OUT/stories260K" -p "Once" -n 256 -t 1.0 --seed "$s" 2>/dev/null; echo; done; }
sample 1 2 3 4 5 6 > "$OUT/stories-eval.txt"
sample $(seq 21 50) > "$OUT/stories-calibration.txt"
"$SAGUARO" eval "$STORIES/stories260K.bin" --tokenizer "$STORIES/tok512.bin" --text "$OUT/stories-eval.txt" \
  --calibration "$OUT/stories-calibration.txt" --bits 4,3,2 --bpw 3.25 --method cq,gptq,rtn-asym,rtn-sym

# Default model (trained on answers only): held-out questions, answer tokens scored; calibration on others.
(cd "$ROOT/examples/train" && /usr/bin/python3 - "$OUT" <<'PY'
import sys
import corpus
for name, seed, n in (("qa-eval", 4242, 200), ("qa-calibration", 9090, 40)):
    qa = corpus.generate_eval(seed=seed, per_family=n)
    open(f"{sys.argv[1]}/{name}.txt", "w").write("\n".join(corpus.format_example(q, a) for v in qa.values() for q, a in v))
PY
)
"$SAGUARO" eval "$ROOT/examples/models/default" --text "$OUT/qa-eval.txt" --score-after "A:" --max-tokens 200000 \
  --calibration "$OUT/qa-calibration.txt" --bits 4,3,2 --bpw 3.25 --method cq,gptq,rtn-asym,rtn-sym
echo "plain CQ (no calibration):"
"$SAGUARO" eval "$ROOT/examples/models/default" --text "$OUT/qa-eval.txt" --score-after "A:" --max-tokens 200000 \
  --bits 4,3,2 --method cq
