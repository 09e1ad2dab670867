"""Train Saguaro's default model and export it to examples/models/default/.

    /usr/bin/python3 examples/train/train_default.py

generates the synthetic Q/A corpus (corpus.py), trains a small Gemma-3 decoder (model.py) on it with AdamW and a
cosine schedule, measures accuracy per family x difficulty cell of the task suite (examples/tasks) by greedy
decoding, and writes model.safetensors, config.json, tokenizer.json, tokenizer_config.json, eval_examples.txt
and README.md. Everything is seeded and
torch runs with deterministic algorithms on a fixed thread count, so the same command rewrites the same files
(bit-identical results need the same torch/BLAS build and --threads).

Loss is on the answer only: the tokens after "A:" (" " + answer + "\\n" + <eos>). The questions are random
numbers and strings the model cannot predict, so training on them would spend capacity on noise.
"""

import argparse
import json
import os
import random
import sys
import time
from typing import List, Tuple

# Threads that spin-wait collapse when the 2 cores are shared with other jobs: measured 0.6 s/step with one
# thread, 0.97 s/step with 2 OpenBLAS threads, up to 5 s/step with 2 spinning OpenMP threads. So BLAS runs on
# one thread (which also keeps matmul results independent of the core count), OpenMP threads sleep instead of
# spinning, and the default is --threads 1. Must be set before torch loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tasks"))
import corpus  # noqa: E402
import evaluate_torch  # noqa: E402
import generate  # noqa: E402
from hf_files import BOS_ID, EOS_ID, PAD_ID, CharTokenizer, write_json, write_safetensors  # noqa: E402
from model import GemmaConfig, GemmaForCausalLM, greedy_generate_batch  # noqa: E402
from torch_logits import load_model  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DEFAULT_OUT = os.path.join(REPO, "examples", "models", "default")
CORPUS_SEED = corpus.CORPUS_SEED
SUITE_SEED = 1  # the README's table is the suite of `examples/tasks/generate.py --seed 1 --per-cell 100`
MODEL_SEED = 42
MAX_NEW_TOKENS = 16
E2E_RUN_STEPS = 64  # test/e2e/test_default_model.py replays eval_examples.txt with `saguaro run -n 64`
# A system message (the model was not trained with one) becomes a plain line before the questions.
CHAT_TEMPLATE = ("{{ bos_token }}{% for message in messages %}{% if message['role'] == 'system' %}"
                 "{{ message['content'] }}\n{% elif message['role'] == 'user' %}"
                 "Q: {{ message['content'] }}\nA:{% elif message['role'] == 'assistant' %}"
                 " {{ message['content'] }}\n{{ eos_token }}{% endif %}{% endfor %}")
# Wall clock of the reference run that produced the committed files (train_default.py's own timing is printed
# but kept out of the exported files so that a rerun rewrites them byte for byte).
REFERENCE_RUN = ("36.3 minutes of training (36.8 minutes in all) with --threads 1 on a 2-core x86-64 machine "
                 "shared with concurrent C++ builds (0.6 s/step when the other core was idle, about 1 s/step under "
                 "load; Debian python3-torch 1.13, OpenBLAS)")


def model_config(vocab_size: int, hidden: int = 128, layers: int = 4, heads: int = 4, kv_heads: int = 2,
                 head_dim: int = 32, intermediate: int = 512, sliding_window: int = 64) -> GemmaConfig:
    """The default model's shape unless told otherwise (--hidden, --layers, ... build the cloud model)."""
    if hidden % 32 or head_dim % 8 or heads % kv_heads:
        raise SystemExit(f"unsupported shape: hidden {hidden} (multiple of 32), head_dim {head_dim} (multiple of "
                         f"8), {heads} heads / {kv_heads} KV heads (a multiple)")
    return GemmaConfig(vocab_size=vocab_size, hidden_size=hidden, intermediate_size=intermediate,
                       num_hidden_layers=layers, num_attention_heads=heads, num_key_value_heads=kv_heads,
                       head_dim=head_dim, query_pre_attn_scalar=head_dim,
                       sliding_window=sliding_window, sliding_window_pattern=2, max_position_embeddings=256,
                       rope_theta=10000.0, rope_local_base_freq=10000.0, rms_norm_eps=1e-6,
                       bos_token_id=BOS_ID, eos_token_id=EOS_ID, pad_token_id=PAD_ID)


def encode_example(tok: CharTokenizer, q: str, a: str) -> Tuple[List[int], int]:
    """Token ids of <bos> + example + <eos>, and the index of the first answer token (the space after A:)."""
    prompt = corpus.format_prompt(q)
    ids = [BOS_ID] + tok.encode(corpus.format_example(q, a)) + [EOS_ID]
    return ids, 1 + len(prompt)


def make_batches(n_examples: int, batch: int, seed: int) -> List[List[int]]:
    """Batches of random examples in a seeded order.

    Not bucketed by length: length nearly determines the family, so length-sorted batches each hold one or two
    families, and a first run trained that way (2000 steps) did not learn even first_letter or compare.
    """
    order = list(range(n_examples))
    random.Random(seed).shuffle(order)
    return [order[j:j + batch] for j in range(0, n_examples, batch)]


def collate(examples, idx):
    """inputs [B, L], targets [B, L] with -100 everywhere except answer positions."""
    length = max(len(examples[i][0]) for i in idx) - 1
    inp = torch.full((len(idx), length), PAD_ID, dtype=torch.long)
    tgt = torch.full((len(idx), length), -100, dtype=torch.long)
    for r, i in enumerate(idx):
        ids, ans = examples[i]
        t = torch.tensor(ids)
        inp[r, :len(ids) - 1] = t[:-1]
        tgt[r, ans - 1:len(ids) - 1] = t[ans:]
    return inp, tgt


def collate_packed(examples, idx, row_len: int):
    """The batch `idx` packed into rows of at most row_len tokens (first fit, in batch order): inputs, targets,
    positions (from 0 in every example) and segment ids [R, L]. The model masks attention between segments, so
    the loss and its gradient are those of collate() without the padding work (train_default.py --pack)."""
    rows: List[List[int]] = []
    fill: List[int] = []
    for i in idx:
        n = len(examples[i][0]) - 1
        for r, used in enumerate(fill):
            if used + n <= row_len:
                rows[r].append(i)
                fill[r] += n
                break
        else:
            rows.append([i])
            fill.append(n)
    length = max(fill)
    inp = torch.full((len(rows), length), PAD_ID, dtype=torch.long)
    tgt = torch.full((len(rows), length), -100, dtype=torch.long)
    pos = torch.zeros((len(rows), length), dtype=torch.long)
    seg = torch.empty((len(rows), length), dtype=torch.long)
    seg[:] = torch.arange(length)[None, :] + len(idx)  # padding: a segment of its own per token
    for r, members in enumerate(rows):
        at = 0
        for k, i in enumerate(members):
            ids, ans = examples[i]
            n = len(ids) - 1
            t = torch.tensor(ids)
            inp[r, at:at + n] = t[:-1]
            tgt[r, at + ans - 1:at + n] = t[ans:]
            pos[r, at:at + n] = torch.arange(n)
            seg[r, at:at + n] = k
            at += n
    return inp, tgt, pos, seg


def lr_at(step: int, total: int, peak: float, warmup: int, floor: float) -> float:
    if step < warmup:
        return peak * (step + 1) / warmup
    p = (step - warmup) / max(1, total - warmup)
    return floor * peak + (1 - floor) * peak * 0.5 * (1 + np.cos(np.pi * p))


def write_eval_examples(path, model, tok, tasks, results, max_new_tokens=MAX_NEW_TOKENS):
    """For every cell, its first task whose prompt and output fit in E2E_RUN_STEPS tokens, with the ids the
    torch model produces greedily, for cross-checking compiled code (cells whose prompts are all longer,
    like word_pick/2, are left out)."""
    lines = ["# Greedy decoding of the exported fp32 model by examples/train/model.py.",
             "# prompt_ids include <bos>=1; output_ids stop at and include <eos>=2 (if produced within "
             f"{max_new_tokens} tokens).",
             "# Strings are JSON-escaped. 'correct' grades the output against the task's accepted answers "
             "(examples/tasks/grade.py); 'expected' is the first of them.", ""]
    done = set()
    for t, r in zip(tasks, results):
        if r["cell"] in done:
            continue
        prompt = [BOS_ID] + tok.encode(corpus.format_prompt(t["question"]))
        out = greedy_generate_batch(model, [prompt], max_new_tokens, stop_id=EOS_ID, pad_id=PAD_ID)[0]
        out_ids = out + ([EOS_ID] if len(out) < max_new_tokens else [])
        if len(prompt) + len(out_ids) > E2E_RUN_STEPS:
            continue  # too long for the e2e test's `saguaro run -n 64` (steps count prompt tokens too)
        done.add(r["cell"])
        lines += [f"family: {r['cell']}",
                  f"prompt: {json.dumps(corpus.format_prompt(t['question']))}",
                  f"prompt_ids: {' '.join(map(str, prompt))}",
                  f"output: {json.dumps(tok.decode(out))}",
                  f"output_ids: {' '.join(map(str, out_ids))}",
                  f"expected: {json.dumps(t['accept'][0])}",
                  f"correct: {str(r['right']).lower()}", ""]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def write_card(path, cfg, n_params, size_bytes, args, n_train, n_tokens, rows, charset, train_minutes=0.0,
               total_minutes=0.0):
    desc = {f.cell: f.description for f in corpus.FAMILIES}
    table = evaluate_torch.format_table(rows)
    # add a "what" column after the cell name
    lines = table.split("\n")
    lines[0] = lines[0].replace("| cell |", "| cell | what |", 1)
    lines[1] = "|---" + lines[1]
    for k in range(2, len(lines)):
        cell = lines[k].split(" | ")[0][2:]
        lines[k] = lines[k].replace(f"| {cell} |", f"| {cell} | {desc.get(cell, '')} |", 1)
    table = "\n".join(lines)
    overall = next(r for r in rows if r["cell"] == "all")["accuracy"]
    if args.role == "cloud":
        text = cloud_card(cfg, n_params, size_bytes, args, n_train, n_tokens, table, overall, charset,
                          train_minutes, total_minutes)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return
    text = f"""# Saguaro default model

A tiny Gemma-3-architecture (`Gemma3ForCausalLM`, `model_type` `gemma3_text`) character-level model that
answers short synthetic questions. It exists so that `./dev run` works offline, so that the compiler has
a real Gemma-3 checkpoint to import, with a torch oracle (`examples/train/torch_logits.py`), and so that the
confidence probe (issue 6) has a model whose answers are sometimes right and sometimes wrong in realistic
ways. It knows nothing beyond its synthetic training data.

- Parameters: {n_params:,} (fp32 `model.safetensors`: {size_bytes:,} bytes; lm_head tied to the embedding)
- Shape: hidden {cfg.hidden_size}, {cfg.num_hidden_layers} layers ({", ".join(cfg.layer_types())}),
  {cfg.num_attention_heads} query heads / {cfg.num_key_value_heads} KV heads of dim {cfg.head_dim},
  MLP {cfg.intermediate_size} (GELU-tanh, gated), sliding window {cfg.sliding_window}, context
  {cfg.max_position_embeddings}, vocab {cfg.vocab_size}.
- Tokenizer: one token per character; `<pad>`=0, `<bos>`=1, `<eos>`=2, `<unk>`=3, then the {len(charset)}
  characters of the corpus in sorted order. `tokenizer.json` is a BPE model with no merges (loads in Hugging
  Face `tokenizers`); prepend `<bos>` (`add_bos_token`).

## Prompt format

    <bos>Q: What is 17 + 25?
    A:

The model continues with ` 42\\n<eos>`. The chat template in `tokenizer_config.json` produces exactly this from
one user message. Training sequences were `<bos>Q: question\\nA: answer\\n<eos>`, padded per batch, with the
loss on the answer tokens only (` answer\\n<eos>`).

## Training

- Data: `examples/train/corpus.py` over the task families of `examples/tasks/families.py` (described in
  `docs/tasks.md`): a seeded synthetic corpus of {n_train:,} examples ({n_tokens:,} tokens with <bos>/<eos>,
  before padding). Questions with several valid answers are trained with a random valid answer each time.
  Some cells are deliberately never trained (carry chains, reversal of 7 letters, counting in 12-14 letter
  strings); look-alike and rare facts are seen {corpus.RARE_REPEATS} times each; birthplaces are stated by two
  disagreeing sources.
- {args.steps} steps of batch {args.batch} (one pass over the corpus), AdamW (lr {args.lr}, betas (0.9, 0.98),
  weight decay {args.weight_decay} on matrices), {args.warmup} warm-up steps then cosine decay to
  {args.lr_floor} x peak, gradient clipping 1.0, seeds corpus {CORPUS_SEED} / model {MODEL_SEED}.
- Reference run: {REFERENCE_RUN}.

## Accuracy on the task suite (greedy decoding, graded by `examples/tasks/grade.py`)

The suite is `examples/tasks/generate.py --seed {SUITE_SEED} --per-cell {args.per_cell}`. Cells with an unbounded
question space hold only questions absent from the training corpus; cells with a small space (1- and 2-digit
arithmetic, the multiplication table, is_prime, prime_between, person_with and every fact look-up) hold
questions from their space, which training covers (almost) completely. Entropy: mean over the answer tokens
(after the leading space, up to and including the newline) of the next-token entropy in nats, for right and
for wrong answers (`examples/tasks/evaluate_torch.py`). "side" is the probe split (docs/tasks.md).

{table}

Overall: {100 * overall:.1f} %. `eval_examples.txt` lists the first prompt of every cell with the token ids
this model produces.

## Reproduce

    /usr/bin/python3 examples/train/train_default.py
    /usr/bin/python3 examples/tasks/generate.py --seed {SUITE_SEED} --per-cell {args.per_cell} -o tasks.jsonl
    /usr/bin/python3 examples/tasks/evaluate_torch.py examples/models/default tasks.jsonl

(Debian python3-torch; `--threads {args.threads}`; the same torch/BLAS build and thread count give the same
files.) Logits for any token sequence, from the exported files:

    /usr/bin/python3 examples/train/torch_logits.py examples/models/default --token-ids ids.txt -o logits.npy
"""
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def shape_options(args) -> str:
    return (f"--hidden {args.hidden} --layers {args.layers} --heads {args.heads} --kv-heads {args.kv_heads} "
            f"--head-dim {args.head_dim} --intermediate {args.intermediate}"
            + (f" --sliding-window {args.sliding_window}" if args.sliding_window != 64 else ""))


def cloud_card(cfg, n_params, size_bytes, args, n_train, n_tokens, table, overall, charset, train_minutes,
               total_minutes) -> str:
    out = os.path.relpath(os.path.abspath(args.out), REPO)
    command = (f"/usr/bin/python3 examples/train/train_default.py --role cloud --out {out} {shape_options(args)} "
               f"--steps {args.steps} --batch {args.batch} --epochs {args.epochs} --lr {args.lr} "
               f"--warmup {args.warmup} --lr-floor {args.lr_floor} --weight-decay {args.weight_decay} "
               f"--pack {args.pack} --max-mb {args.max_mb:g} --threads {args.threads}")
    cloud_mix = ", ".join(f"{cell} {w:g}" for cell, w in corpus.CLOUD_WEIGHTS.items())
    run = args.reference_run or (f"{train_minutes:.1f} minutes of training ({total_minutes:.1f} minutes in all) "
                                 f"with --threads {args.threads}, measured by this run")
    packing = (f"Each batch's examples packed into rows of at most {args.pack} tokens, attention masked between "
               "examples and positions restarting at 0 in each (`--pack`): the same loss and gradient (up to float rounding) as padding "
               "every example to the batch's longest, at about half the arithmetic."
               if args.pack else "Each batch padded to its longest example, as for the default model.")
    return f"""# Saguaro cloud model

A larger sibling of the default model (`examples/models/default`): the same Gemma-3 architecture
(`Gemma3ForCausalLM`, `model_type` `gemma3_text`), the same character tokenizer (identical token ids) and the same
task families in its training corpus (in another mix, some answers worked out step by step), with about {n_params / 994560:.1f}x the parameters. It plays the "cloud" model in the
hybrid (local + cloud) accuracy table of issue 7: `saguaro serve` serves it over an OpenAI-compatible API and
the default model hands the answers its probe doubts to it. It knows nothing beyond its synthetic training data,
and it shares the default model's blind spots in facts by construction: rare and look-alike facts seen 3 times,
birthplaces from two disagreeing sources (see below).

- Parameters: {n_params:,} (fp32 `model.safetensors`: {size_bytes:,} bytes; lm_head tied to the embedding)
- Shape: hidden {cfg.hidden_size}, {cfg.num_hidden_layers} layers ({", ".join(cfg.layer_types())}),
  {cfg.num_attention_heads} query heads / {cfg.num_key_value_heads} KV heads of dim {cfg.head_dim},
  MLP {cfg.intermediate_size} (GELU-tanh, gated), sliding window {cfg.sliding_window}, context
  {cfg.max_position_embeddings}, vocab {cfg.vocab_size}.
- Tokenizer: the default model's: one token per character; `<pad>`=0, `<bos>`=1, `<eos>`=2, `<unk>`=3, then
  the {len(charset)} characters of the corpus in sorted order (`tokenizer.json` is byte-identical to the
  default model's).

## Prompt format

    <bos>Q: What is 17 + 25?
    A:

The model continues with ` 42\\n<eos>` (or a worked answer such as ` 24 + 14 is 38, so no\\n<eos>`); the chat template in `tokenizer_config.json` produces exactly this from
one user message (the same template as the default model's).

## Training

- Data: the default model's task families in the cloud mix (`examples/train/corpus.py`, `CLOUD_WEIGHTS`, seed
  {CORPUS_SEED}): {n_train:,} examples ({n_tokens:,} tokens with <bos>/<eos>), {"one pass" if args.epochs == 1 else
  f"{args.epochs} passes"}, loss on the answer tokens only. The cloud stands in for a frontier model, which has
  seen more than the on-device one: its corpus also samples the cells the default model never sees (carry
  chains, reversal of 7 letters, counting in 12-14 letter strings) and weights the cells the default model
  learns poorly (letter counting, sum checks) 2.5-3 times their weight there ({cloud_mix}). Questions of the
  suite's unbounded cells are drawn again when sampled, so the table below is on questions neither model saw.
  Like a frontier model, the cloud reasons before it answers where one step is not enough: its corpus states
  letter counts and sum checks as worked answers (`examples/train/worked.py`): `n0 v0 w1 w2 w3 g3 q3 s3 h3, so 3`
  (each letter with the running count) and `24 + 14 is 38, so no`; the grader takes the answer after the last
  ", so " (docs/tasks.md). Rare and look-alike facts are seen {corpus.RARE_REPEATS * args.epochs} times each and birthplaces come from
  the same two disagreeing sources, as for the default model.
- {args.steps} steps of batch {args.batch}, AdamW (lr {args.lr}, betas (0.9, 0.98), weight decay
  {args.weight_decay} on matrices), {args.warmup} warm-up steps then cosine decay to {args.lr_floor} x peak,
  gradient clipping 1.0, seeds corpus {CORPUS_SEED} / model {MODEL_SEED}. {packing}
- Run: {run}.

## Accuracy on the task suite (greedy decoding, graded by `examples/tasks/grade.py`)

The suite is `examples/tasks/generate.py --seed {SUITE_SEED} --per-cell {args.per_cell}`, the same file the
default model's README reports (its unbounded cells exclude both models' training corpora).
Entropy: mean answer-token entropy in nats for right and wrong answers (`examples/tasks/evaluate_torch.py`).

{table}

Overall: {100 * overall:.1f} % (default model: 64.1 %). `eval_examples.txt` lists the first prompt of every
cell with the token ids this model produces.

## Reproduce

    {command}
    /usr/bin/python3 examples/tasks/generate.py --seed {SUITE_SEED} --per-cell {args.per_cell} -o tasks.jsonl
    /usr/bin/python3 examples/tasks/evaluate_torch.py {out} tasks.jsonl{" --max-new-tokens " + str(evaluate_torch.WORKED_MAX_NEW_TOKENS) if args.role == "cloud" else ""}

(Debian python3-torch; the same torch/BLAS build and thread count give the same weights; only the measured
wall-clock line of this README differs between runs.)
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--steps", type=int, default=corpus.TRAIN_STEPS)
    ap.add_argument("--batch", type=int, default=corpus.BATCH)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--lr-floor", type=float, default=0.05)
    ap.add_argument("--warmup", type=int, default=200)
    ap.add_argument("--weight-decay", type=float, default=0.1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--per-cell", type=int, default=100, help="suite tasks per cell for the README table")
    ap.add_argument("--log-every", type=int, default=100)
    # Options for a differently shaped model on the same corpus (the cloud model of issue 7,
    # examples/models/cloud); without them this script trains and writes the default model, unchanged.
    ap.add_argument("--role", choices=["default", "cloud"], default="default",
                    help="which model the README describes")
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--kv-heads", type=int, default=2)
    ap.add_argument("--head-dim", type=int, default=32)
    ap.add_argument("--intermediate", type=int, default=512)
    ap.add_argument("--sliding-window", type=int, default=64)
    ap.add_argument("--epochs", type=int, default=1,
                    help="passes over the corpus; the corpus has steps * batch / epochs examples (at the default "
                         "steps, batch and epochs: the default model's corpus)")
    ap.add_argument("--pack", type=int, default=0, metavar="LEN",
                    help="pack each batch's examples into rows of at most LEN tokens with attention masked "
                         "between them instead of padding every example to the batch's longest (same loss, about "
                         "half the arithmetic on this corpus); 0: pad (the default model's training)")
    ap.add_argument("--max-mb", type=float, default=10.0, help="fail if model.safetensors is larger")
    ap.add_argument("--reference-run", default=None,
                    help="wall-clock sentence for the README (default model: the committed reference run; "
                         "otherwise this run's measured time)")
    args = ap.parse_args()
    if args.steps % args.epochs:
        raise SystemExit("--steps must be a multiple of --epochs")

    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(MODEL_SEED)
    t0 = time.time()

    num_sampled = args.steps // args.epochs * args.batch - corpus.num_fixed_items()
    if args.role == "cloud":
        # The suite of every table (its unbounded cells exclude the default model's corpus) stays unseen by the
        # cloud's own corpus too, and the cloud shares the default model's tokenizer.
        tasks = generate.build_suite(SUITE_SEED, args.per_cell)
        data = corpus.generate_corpus(num_sampled, seed=CORPUS_SEED, weights=corpus.CLOUD_WEIGHTS,
                                      exclude_questions=frozenset(t["question"] for t in tasks), worked=True)
        charset = corpus.corpus_charset(data)
        if charset != corpus.corpus_charset(corpus.default_corpus()):
            raise SystemExit("the cloud corpus uses other characters than the default model's tokenizer")
    else:
        data = corpus.generate_corpus(num_sampled, seed=CORPUS_SEED)
        charset = corpus.corpus_charset(data)
        tasks = generate.build_suite(SUITE_SEED, args.per_cell, frozenset(q for _, q, _ in data))
    tok = CharTokenizer(charset)
    examples = [encode_example(tok, q, a) for _, q, a in data]
    n_tokens = sum(len(ids) for ids, _ in examples)
    print(f"corpus: {len(data)} examples, {n_tokens} tokens, vocab {len(tok)} "
          f"({time.time() - t0:.1f}s)", flush=True)

    cfg = model_config(len(tok), args.hidden, args.layers, args.heads, args.kv_heads, args.head_dim,
                       args.intermediate, args.sliding_window)
    model = GemmaForCausalLM(cfg)
    print(f"model: {model.num_parameters()} parameters", flush=True)
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}], lr=args.lr, betas=(0.9, 0.98))
    batches = []
    for epoch in range(args.epochs):  # a new order every pass; the first is the default model's
        batches += make_batches(len(examples), args.batch, seed=CORPUS_SEED + 1 + epoch)
    assert len(batches) >= args.steps, (len(batches), args.steps)

    t_train = time.time()
    run_loss, run_n = 0.0, 0
    for step in range(args.steps):
        for g in opt.param_groups:
            g["lr"] = lr_at(step, args.steps, args.lr, args.warmup, args.lr_floor)
        if args.pack:
            inp, tgt, pos, seg = collate_packed(examples, batches[step], args.pack)
            logits = model(inp, pos, seg)
        else:
            inp, tgt = collate(examples, batches[step])
            logits = model(inp)
        loss = F.cross_entropy(logits.reshape(-1, cfg.vocab_size), tgt.reshape(-1), ignore_index=-100)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        run_loss += loss.item()
        run_n += 1
        if (step + 1) % args.log_every == 0 or step + 1 == args.steps:
            el = time.time() - t_train
            print(f"step {step + 1}/{args.steps} loss {run_loss / run_n:.4f} lr {opt.param_groups[0]['lr']:.2e} "
                  f"elapsed {el / 60:.1f} min eta {el / (step + 1) * (args.steps - step - 1) / 60:.1f} min",
                  flush=True)
            run_loss, run_n = 0.0, 0
    train_minutes = (time.time() - t_train) / 60
    print(f"training took {train_minutes:.1f} min", flush=True)

    model.eval()
    max_new = evaluate_torch.WORKED_MAX_NEW_TOKENS if args.role == "cloud" else MAX_NEW_TOKENS
    results = evaluate_torch.evaluate(model, tok, tasks, max_new)
    rows = evaluate_torch.summarize(results)
    print(evaluate_torch.format_table(rows), flush=True)

    os.makedirs(args.out, exist_ok=True)
    st_path = os.path.join(args.out, "model.safetensors")
    write_safetensors(st_path, {k: v.detach().numpy() for k, v in model.state_dict().items()})
    write_json(os.path.join(args.out, "config.json"), cfg.to_hf_dict())
    write_json(os.path.join(args.out, "tokenizer.json"), tok.tokenizer_json())
    write_json(os.path.join(args.out, "tokenizer_config.json"),
               CharTokenizer.tokenizer_config(cfg.max_position_embeddings, CHAT_TEMPLATE))
    write_eval_examples(os.path.join(args.out, "eval_examples.txt"), model, tok, tasks, results, max_new)
    size = os.path.getsize(st_path)
    write_card(os.path.join(args.out, "README.md"), cfg, model.num_parameters(), size, args, len(data), n_tokens,
               rows, charset, train_minutes, (time.time() - t0) / 60)
    if size > args.max_mb * 1024 * 1024:
        raise SystemExit(f"model.safetensors is {size} bytes, over the {args.max_mb:g} MB budget")

    # The exported files must reproduce the in-memory model exactly.
    reloaded = load_model(args.out)
    probe = torch.tensor([[BOS_ID] + tok.encode(corpus.format_prompt("What is 17 + 25?"))])
    with torch.no_grad():
        same = torch.equal(reloaded(probe), model.eval()(probe))
    if not same:
        raise SystemExit("reloaded model disagrees with the trained model")
    print(f"exported to {args.out} ({size} bytes); total {(time.time() - t0) / 60:.1f} min", flush=True)


if __name__ == "__main__":
    main()
