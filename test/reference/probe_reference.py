#!/usr/bin/env python3
"""Independent numpy reference for the confidence probe (probe/, docs/probe.md).

It parses the data file (SGPRBDT1) and the probe file (SGPROBE1) itself, from the layout in
docs/probe.md, and recomputes what `saguaro probe eval` / `calibrate` report: p(wrong) of every
sample, the AUROCs (by the pairwise definition, not by ranks), the logistic-regression
baseline (its own Newton solver), the cell analysis, the hand-off curve and the calibration
threshold. It also writes data files with its own writer, so the C++ reader is checked
against a second implementation of the format.

  probe_reference.py check --cli PROBE_CLI --tool PROBE_TOOL --workdir DIR
      the ctest check: C++ and numpy must agree within 1e-5
  probe_reference.py scores PROBE DATA
      prints p(wrong) of every sample (id, label, p) from this implementation alone
"""
import argparse
import json
import os
import struct
import subprocess
import sys

import numpy as np

DATA_MAGIC, DATA_END = b"SGPRBDT1", b"SGPRBEND"
PROBE_MAGIC, PROBE_END = b"SGPROBE1", b"SGPROEND"
METHODS = ["probe", "meanpool", "logreg", "entropy_mean", "entropy_max", "entropy_first"]
TOL = 1e-5


# --- file formats -----------------------------------------------------------------------------

def read_data(path):
    raw = open(path, "rb").read()
    assert raw[:8] == DATA_MAGIC, "bad magic"
    version, width, tap, n = struct.unpack_from("<4I", raw, 8)
    assert version == 1
    (meta_bytes,) = struct.unpack_from("<Q", raw, 24)
    meta = json.loads(raw[32:32 + meta_bytes].decode("utf-8"))
    assert meta["width"] == width and meta["tap_layer"] == tap and len(meta["samples"]) == n
    at = 32 + meta_bytes
    samples = []
    for m in meta["samples"]:
        t = m["n_tokens"]
        hidden = np.frombuffer(raw, "<f4", t * width, at).reshape(t, width)
        at += 4 * t * width
        entropy = np.frombuffer(raw, "<f4", t, at)
        at += 4 * t
        samples.append(dict(m, hidden=hidden, entropy=entropy))
    assert raw[at:] == DATA_END, "size or end marker mismatch"
    return {"model": meta["model"], "width": width, "tap_layer": tap, "samples": samples}


def write_data(path, data):
    meta = {"model": data["model"], "tap_layer": data["tap_layer"], "width": data["width"],
            "samples": [{k: s[k] for k in ("id", "family", "difficulty", "heldout", "guessable", "wrong",
                                           "question", "answer")} | {"n_tokens": len(s["entropy"])}
                        for s in data["samples"]]}
    text = json.dumps(meta).encode("utf-8")
    with open(path, "wb") as f:
        f.write(DATA_MAGIC + struct.pack("<4IQ", 1, data["width"], data["tap_layer"], len(data["samples"]), len(text)))
        f.write(text)
        for s in data["samples"]:
            f.write(np.asarray(s["hidden"], "<f4").tobytes() + np.asarray(s["entropy"], "<f4").tobytes())
        f.write(DATA_END)


def fnv1a64(data, h=0xcbf29ce484222325):
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def read_probe(path):
    raw = open(path, "rb").read()
    assert raw[:8] == PROBE_MAGIC, "bad magic"
    version, d, h, m1, m2, tap = struct.unpack_from("<6I", raw, 8)
    assert version == 1
    (meta_bytes,) = struct.unpack_from("<Q", raw, 32)
    meta = json.loads(raw[40:40 + meta_bytes].decode("utf-8"))
    at = 40 + meta_bytes
    (n_params,) = struct.unpack_from("<Q", raw, at)
    at += 8
    flat = np.frombuffer(raw, "<f4", n_params, at).astype(np.float64)
    at += 4 * n_params
    (checksum,) = struct.unpack_from("<Q", raw, at)
    assert checksum == fnv1a64(raw[:at]), "checksum"
    assert raw[at + 8:] == PROBE_END
    shapes = [("gamma", (d,)), ("beta", (d,)), ("w0", (h, d)), ("b0", (h,)), ("query", (h,)),
              ("w1", (m1, h)), ("b1", (m1,)), ("w2", (m2, m1)), ("b2", (m2,)), ("w3", (m2,)), ("b3", (1,))]
    params, k = {}, 0
    for name, shape in shapes:
        size = int(np.prod(shape))
        params[name] = flat[k:k + size].reshape(shape)
        k += size
    assert k == n_params
    return {"d": d, "h": h, "m1": m1, "m2": m2, "tap_layer": tap, "meta": meta, "params": params}


# --- the computations -------------------------------------------------------------------------

def p_wrong(probe, hidden):
    """docs/probe.md "Reference computation", in float64."""
    P = probe["params"]
    x = hidden.astype(np.float64)
    mu = x.mean(axis=1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=1, keepdims=True)
    y = (x - mu) / np.sqrt(var + 1e-5) * P["gamma"] + P["beta"]
    z = np.maximum(y @ P["w0"].T + P["b0"], 0.0)
    s = z @ P["query"] / np.sqrt(probe["h"])
    a = np.exp(s - s.max())
    a /= a.sum()
    pooled = a @ z
    u1 = np.maximum(P["w1"] @ pooled + P["b1"], 0.0)
    u2 = np.maximum(P["w2"] @ u1 + P["b2"], 0.0)
    logit = P["w3"] @ u2 + P["b3"][0]
    return 1.0 / (1.0 + np.exp(-logit))


def auroc(scores, labels):
    """P(score of a wrong answer > score of a right one) + half the ties; None if one class."""
    s, y = np.asarray(scores, np.float64), np.asarray(labels, bool)
    pos, neg = s[y], s[~y]
    if len(pos) == 0 or len(neg) == 0:
        return None
    return float((pos[:, None] > neg[None, :]).mean() + 0.5 * (pos[:, None] == neg[None, :]).mean())


def mix64(h):
    h = ((h ^ (h >> 30)) * 0xbf58476d1ce4e5b9) & 0xFFFFFFFFFFFFFFFF
    h = ((h ^ (h >> 27)) * 0x94d049bb133111eb) & 0xFFFFFFFFFFFFFFFF
    return h ^ (h >> 31)


def roles(data, seed, val_fraction):
    out = []
    for s in data["samples"]:
        if s["heldout"]:
            out.append("heldout")
        else:
            u = (mix64(fnv1a64(f"{seed}:{s['id']}".encode())) >> 11) * 2.0 ** -53
            out.append("validation" if u < val_fraction else "train")
    return out


def logistic_regression(X, y, l2=1.0):
    """argmin sum BCE + l2/2 |w|^2 (bias free) on standardized X, by plain Newton (convex)."""
    mean, scale = X.mean(0), X.std(0)
    scale[scale < 1e-12] = 1.0
    Z = np.hstack([(X - mean) / scale, np.ones((len(X), 1))])
    theta = np.zeros(Z.shape[1])
    reg = np.full(Z.shape[1], l2)
    reg[-1] = 0.0
    for _ in range(200):
        p = 1 / (1 + np.exp(-Z @ theta))
        g = Z.T @ (p - y) + reg * theta
        H = (Z * (p * (1 - p))[:, None]).T @ Z + np.diag(reg)
        step = np.linalg.solve(H, g)
        theta -= step
        if np.abs(step).max() < 1e-12:
            break
    return lambda Xn: 1 / (1 + np.exp(-(np.hstack([(Xn - mean) / scale, np.ones((len(Xn), 1))]) @ theta)))


def evaluate(probe, data):
    """The numbers `probe eval --json` reports, recomputed; needs the C++ mean-pool scores."""
    opts = probe["meta"]["train"]["options"]
    role = roles(data, opts["seed"], opts["val_fraction"])
    S = data["samples"]
    y = np.array([s["wrong"] for s in S], bool)
    scores = {"probe": np.array([p_wrong(probe, s["hidden"]) for s in S]),
              "entropy_mean": np.array([s["entropy"].astype(np.float64).mean() for s in S]),
              "entropy_max": np.array([float(s["entropy"].max()) for s in S]),
              "entropy_first": np.array([float(s["entropy"][0]) for s in S])}
    X = np.array([s["hidden"].astype(np.float64).mean(0) for s in S])
    train = np.array([r == "train" for r in role])
    scores["logreg"] = logistic_regression(X[train], y[train].astype(np.float64))(X)
    return role, y, scores


def cell_analysis(data, idx, y, scores):
    cells = {}
    for i in idx:
        s = data["samples"][i]
        cells.setdefault((s["family"], s["difficulty"]), []).append(i)
    rate = np.zeros(len(y))
    within = {m: [] for m in scores}
    for members in cells.values():
        err = y[members].mean()
        rate[members] = err
        if 0.1 <= 1 - err <= 0.9 and 0 < y[members].sum() < len(members):
            for m in scores:
                within[m].append(auroc(scores[m][members], y[members]))
    return auroc(rate[idx], y[idx]), {m: (float(np.mean(v)) if v else None) for m, v in within.items()}


def handoff(y, idx, score, cloud):
    order = sorted(idx, key=lambda i: (-score[i], i))
    n, right = len(order), int((~y[idx]).sum())
    out = []
    for step in range(21):
        k = int(np.floor(step / 20 * n + 0.5))
        handed_right = int((~y[order[:k]]).sum())
        out.append(((right - handed_right + k) / n, (right - handed_right + k * cloud) / n))
    return out


# --- the ctest check --------------------------------------------------------------------------

class Checker:
    def __init__(self):
        self.failures = 0

    def close(self, what, ours, theirs, tol=TOL):
        if ours is None or theirs is None:
            ok = ours is None and theirs is None
        else:
            ok = abs(ours - theirs) <= tol
        if not ok:
            self.failures += 1
            print(f"MISMATCH {what}: numpy {ours} vs C++ {theirs}")
        return ok


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"command failed ({r.returncode}): {' '.join(cmd)}\n{r.stderr}")
    return r.stdout


def synthetic(seed, n_per_family=70, width=24):
    """An independent generator: errors show as a direction in a few tokens; entropies are
    rounded to 0.05 nats so the entropy scores have many ties."""
    rng = np.random.default_rng(seed)
    direction = rng.normal(size=width)
    direction /= np.linalg.norm(direction)
    samples = []
    for f in range(5):
        shift = 0.5 * rng.normal(size=width)
        for k in range(n_per_family):
            difficulty = int(rng.integers(0, 3))
            wrong = bool(rng.random() < 0.2 + 0.25 * difficulty)
            t = int(rng.integers(1, 15))
            hidden = rng.normal(size=(t, width)) + shift
            marked = rng.random(t) < 0.3
            hidden[marked] += (2.0 if wrong else -0.5) * direction
            entropy = np.round(np.abs(rng.normal(1.0, 0.6, t)) + 0.1 * wrong, 1) / 2
            samples.append({"id": f"py{f}-{k}", "family": f"fam{f}", "difficulty": difficulty,
                            "heldout": f >= 3, "guessable": bool(rng.random() < 0.25), "wrong": wrong,
                            "question": "¿q?", "answer": "a", "hidden": hidden.astype(np.float32),
                            "entropy": entropy.astype(np.float32)})
    return {"model": "numpy-synthetic", "width": width, "tap_layer": 2, "samples": samples}


def check_auroc_tool(tool, workdir, chk):
    rng = np.random.default_rng(5)
    for trial in range(10):
        n = int(rng.integers(4, 300))
        s = rng.integers(0, 6, n) / 5.0  # heavy ties
        y = rng.random(n) < 0.4
        y[0], y[1] = True, False
        path = os.path.join(workdir, f"auroc{trial}.txt")
        np.savetxt(path, np.column_stack([s, y.astype(int)]), fmt="%.17g %d")
        chk.close(f"auroc trial {trial}", auroc(s, y), float(run([tool, "auroc", path])), 1e-12)


def check_file(cli, data_path, workdir, tag, chk):
    probe_path = os.path.join(workdir, f"{tag}.probe")
    scores_path = os.path.join(workdir, f"{tag}.scores.json")
    run([cli, "train", data_path, "-o", probe_path, "--seed", "3", "--epochs", "25", "--h", "16", "--m1", "32",
         "--m2", "16"])
    report = json.loads(run([cli, "eval", probe_path, data_path, "--json", "--cloud-accuracy", "0.8",
                             "--scores", scores_path]))
    cpp = json.load(open(scores_path))
    probe, data = read_probe(probe_path), read_data(data_path)
    role, y, scores = evaluate(probe, data)
    assert cpp["id"] == [s["id"] for s in data["samples"]] and cpp["role"] == role, f"{tag}: split differs"
    for m in ["probe", "logreg", "entropy_mean", "entropy_max", "entropy_first"]:
        diff = float(np.abs(np.array(cpp[m]) - scores[m]).max())
        chk.close(f"{tag}: max |{m} score difference|", 0.0, diff)
    scores["meanpool"] = np.array(cpp["meanpool"])  # SGD-trained: only its AUROC plumbing is checkable
    held = [i for i, r in enumerate(role) if r == "heldout"]
    val = [i for i, r in enumerate(role) if r == "validation"]
    H = report["heldout"]
    chk.close(f"{tag}: heldout n", len(held), H["n"], 0)
    chk.close(f"{tag}: heldout accuracy", 1 - y[held].mean(), H["accuracy"])
    for m in METHODS:
        chk.close(f"{tag}: heldout {m}_auroc", auroc(scores[m][held], y[held]), H[m + "_auroc"])
        chk.close(f"{tag}: validation {m}_auroc", auroc(scores[m][val], y[val]), report["validation"][m + "_auroc"])
        for part, want in (("guessable", True), ("not_guessable", False)):
            g = [i for i in held if data["samples"][i]["guessable"] == want]
            chk.close(f"{tag}: {part} {m}_auroc", auroc(scores[m][g], y[g]), H[part][m + "_auroc"])
        for fam, F in report["families"].items():
            idx = [i for i, s in enumerate(data["samples"]) if s["family"] == fam and role[i] != "train"]
            chk.close(f"{tag}: family {fam} {m}_auroc", auroc(scores[m][idx], y[idx]), F[m + "_auroc"])
    baseline, within = cell_analysis(data, held, y, scores)
    chk.close(f"{tag}: cell_baseline_auroc", baseline, H["cell_baseline_auroc"])
    chk.close(f"{tag}: probe_within_cell_auroc", within["probe"], H["probe_within_cell_auroc"])
    for m in METHODS:
        chk.close(f"{tag}: within-cell {m}", within[m], H["within_cell_auroc"][m])
    best = max((v for m, v in within.items() if m.startswith("entropy_") and v is not None), default=None)
    chk.close(f"{tag}: entropy_within_cell_auroc", best, H["entropy_within_cell_auroc"])
    for step, (ours, point) in enumerate(zip(handoff(y, held, scores["probe"], 0.8), report["handoff_curve"])):
        chk.close(f"{tag}: handoff {step} cloud right", ours[0], point["accuracy_cloud_right"])
        chk.close(f"{tag}: handoff {step} cloud 0.8", ours[1], point["accuracy_with_cloud"])

    # Calibration: the threshold that hands off 25 % of the validation samples.
    cal = json.loads(run([cli, "calibrate", probe_path, data_path, "--handoff-rate", "0.25", "--json"]))
    pv = np.sort(scores["probe"][val])[::-1]
    k = int(np.floor(0.25 * len(pv) + 0.5))
    chk.close(f"{tag}: calibration threshold", 0.5 * (pv[k - 1] + pv[k]), cal["threshold"])
    chk.close(f"{tag}: calibration rate", float((scores["probe"][val] >= cal["threshold"]).mean()),
              cal["validation_handoff_rate"])
    print(f"{tag}: held-out n={H['n']} probe AUROC {H['probe_auroc']:.4f}, logreg {H['logreg_auroc']:.4f}, "
          f"entropy(mean) {H['entropy_mean_auroc']:.4f}; {len(data['samples'])} samples compared")


def check(args):
    os.makedirs(args.workdir, exist_ok=True)
    chk = Checker()
    check_auroc_tool(args.tool, args.workdir, chk)
    # A file written here is read by C++; one written by C++ is read here.
    py_data = os.path.join(args.workdir, "numpy-written.sgprb")
    write_data(py_data, synthetic(1))
    check_file(args.cli, py_data, args.workdir, "numpy-written", chk)
    cpp_data = os.path.join(args.workdir, "cpp-written.sgprb")
    run([args.tool, "synth", cpp_data, "--per-family", "60", "--width", "20"])
    check_file(args.cli, cpp_data, args.workdir, "cpp-written", chk)
    if chk.failures:
        sys.exit(f"{chk.failures} mismatches between numpy and C++")
    print("numpy reference and C++ agree")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("check")
    c.add_argument("--cli", required=True)
    c.add_argument("--tool", required=True)
    c.add_argument("--workdir", required=True)
    s = sub.add_parser("scores")
    s.add_argument("probe")
    s.add_argument("data")
    args = parser.parse_args()
    if args.command == "check":
        check(args)
    else:
        probe, data = read_probe(args.probe), read_data(args.data)
        for s in data["samples"]:
            print(s["id"], int(s["wrong"]), f"{p_wrong(probe, s['hidden']):.9f}")


if __name__ == "__main__":
    main()
