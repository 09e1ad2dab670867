"""Issue 6, acceptance 2: the probe compiled into a bundle (`saguaro compile --probe`, llm.probe_head) gives the
p(wrong) of the trainer's float computation (`saguaro probe eval --scores`, probe/probe_head.cpp) within 1e-4 on
every sample, and of the independent numpy reference (test/reference/probe_reference.py) as well.

Chain: questions the default model answers right and wrong -> `probe collect` -> `probe train` -> `compile --probe`
-> the bundle program's --capture mode, which reports the compiled probe's p(wrong) per answer. Bad input: a probe
trained for another width is refused at compile time with one line naming the probe file."""
import json
import os
import random

import numpy as np

import common


def questions():
    """Two-digit additions and subtractions (probe-training families) and three-digit additions (held out): the
    default model gets some of each right and some wrong, so both labels occur."""
    rng = random.Random(2024)
    tasks = []
    for i in range(60):
        a, b = rng.randint(10, 99), rng.randint(10, 99)
        tasks.append((f"add2/{i}", "add_2d", 2, False, f"What is {a} + {b}?", str(a + b)))
        a, b = sorted((rng.randint(10, 99), rng.randint(10, 99)), reverse=True)
        tasks.append((f"sub2/{i}", "sub_2d", 2, False, f"What is {a} - {b}?", str(a - b)))
    for i in range(20):
        a, b = rng.randint(100, 999), rng.randint(100, 999)
        tasks.append((f"add3/{i}", "add_3d", 3, True, f"What is {a} + {b}?", str(a + b)))
    return tasks


def main():
    args = common.parse_args()
    import probe_reference

    model = os.path.join(args.source_dir, "examples", "models", "default")
    w = args.work_dir
    tasks = questions()
    task_file, prompts = os.path.join(w, "tasks.jsonl"), os.path.join(w, "prompts.jsonl")
    with open(task_file, "w") as f, open(prompts, "w") as p:
        for tid, family, difficulty, heldout, question, answer in tasks:
            f.write(json.dumps({"id": tid, "family": family, "difficulty": difficulty, "heldout": heldout,
                                "question": question, "accept": [answer]}) + "\n")
            p.write(json.dumps(f"Q: {question}\nA:") + "\n")
    data, probe = os.path.join(w, "data.spd"), os.path.join(w, "probe.bin")
    # The same (generic) kernels as the bundle compiled below, so both see the same hidden states.
    common.run([args.saguaro, "probe", "collect", model, "--tasks", task_file, "-o", data, "--max-new", "8",
                "--target", "generic"], args)
    common.run([args.saguaro, "probe", "train", data, "-o", probe, "--seed", "3"], args)
    scores_file = os.path.join(w, "scores.json")
    common.run([args.saguaro, "probe", "eval", probe, data, "--scores", scores_file], args)
    scores = json.load(open(scores_file))
    trainer = dict(zip(scores["id"], scores["probe"]))
    roles = dict(zip(scores["id"], scores["role"]))

    bundle = os.path.join(w, "bundle")
    common.run([args.saguaro, "compile", model, "-o", bundle, "--probe", probe], args)
    common.run([args.saguaro, "run", bundle, "-p", "Q: What is 1 + 1?\nA:", "-n", "12", "-t", "0"], args)  # builds it
    exe = os.path.join(bundle, "build", "saguaro_bundle")
    out = os.path.join(w, "capture")
    os.makedirs(out)
    common.run([exe, os.path.join(bundle, "weights.sgw"), "--capture", prompts, "-o", out, "--max-new", "8"], args)
    answers = [json.loads(line) for line in open(os.path.join(out, "answers.jsonl"))]
    compiled = [a["p_wrong"] for a in answers]
    # Reported, not asserted (tests never assert wall-clock times): the probe's cost beside the generation.
    probe_ms, generate_ms = sum(a["probe_ms"] for a in answers), sum(a["generate_ms"] for a in answers)
    print(f"measured: probe {probe_ms / len(answers) * 1000:.1f} us per answer, {100 * probe_ms / generate_ms:.2f} % "
          f"of the generation time ({generate_ms / len(answers):.2f} ms per answer)")

    ref = probe_reference.read_probe(probe)
    samples = probe_reference.read_data(data)["samples"]
    worst_trainer = worst_numpy = 0.0
    for (tid, *_), p, s in zip(tasks, compiled, samples):
        worst_trainer = max(worst_trainer, abs(p - trainer[tid]))
        worst_numpy = max(worst_numpy, abs(p - probe_reference.p_wrong(ref, np.asarray(s["hidden"]))))
    validation = sum(r == "validation" or r == "val" for r in roles.values())
    wrong = sum(s["wrong"] for s in samples)
    print(f"ok: {len(tasks)} answers ({wrong} wrong, {validation} validation); compiled p(wrong) vs trainer: "
          f"max |diff| {worst_trainer:.2e}; vs numpy: {worst_numpy:.2e}")
    if len(compiled) != len(tasks) or not (worst_trainer <= 1e-4 and worst_numpy <= 1e-4):
        raise SystemExit(f"FAIL: compiled probe differs: {worst_trainer:.3e} (trainer), {worst_numpy:.3e} (numpy)")

    # A probe trained for another width (64, from random data) is refused when compiled into the 128-wide model.
    rng = np.random.default_rng(5)
    other = {"model": "other", "width": 64, "tap_layer": 3, "samples": [
        {"id": f"s{i}", "family": "f" if i < 60 else "g", "difficulty": 1, "heldout": i >= 60, "guessable": False,
         "wrong": bool(i % 3 == 0), "question": "q", "answer": "a",
         "hidden": rng.standard_normal((2, 64)), "entropy": rng.random(2)} for i in range(80)]}
    other_data, other_probe = os.path.join(w, "other.spd"), os.path.join(w, "other.bin")
    probe_reference.write_data(other_data, other)
    common.run([args.saguaro, "probe", "train", other_data, "-o", other_probe, "--seed", "1"], args)
    never = os.path.join(w, "never")
    proc = common.run([args.saguaro, "compile", model, "-o", never, "--probe", other_probe], args, check=False)
    err = proc.stderr.decode().strip()
    if proc.returncode == 0 or "other.bin" not in err or "width 64" not in err or len(err.splitlines()) != 1 \
            or os.path.exists(never):
        raise SystemExit(f"FAIL: a probe of another width: exit {proc.returncode}, stderr {err!r}")
    print(f"ok: {err}")


if __name__ == "__main__":
    main()
