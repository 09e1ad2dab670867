"""Fine-tune the default model into examples/models/tools/: a model that answers arithmetic by calling `math`.

    nice -n 5 /usr/bin/python3 examples/train/train_tools.py

Starts from examples/models/default's weights and trains on conversations rendered by TOOLS_CHAT_TEMPLATE (the
chat template written into the new model's tokenizer_config.json, so the compiled template and the training text
are the same): with `math` among the offered tools, an arithmetic question of the task suite is answered by a
Hermes-style call (Qwen3's `<tool_call>` syntax, which the runtime reads), the tool's result comes back as a tool
message, and the model states it as the answer. Other questions, and every question without tools, are answered
directly as the default model does. Loss is on the assistant turns only.

The call syntax needs 7 characters the default model's 71-token vocabulary lacks (`"/<>_{}`): they are appended
as ids 71..77, their embeddings (tied to the output layer) initialised at the mean of the existing rows, so every
old token keeps its id and the default model's prompts encode unchanged.
"""

import argparse
import json
import os
import random
import sys
import time
from fractions import Fraction
from typing import Dict, List, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tasks"))
from train_default import lr_at  # noqa: E402  (first: it sets the BLAS and OpenMP threading before torch loads)
import jinja2  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import generate  # noqa: E402
from families import ARITHMETIC_FAMILIES as ARITHMETIC, FAMILIES  # noqa: E402
from hf_files import BOS_ID, EOS_ID, PAD_ID, CharTokenizer, write_json, write_safetensors  # noqa: E402
from model import GemmaForCausalLM  # noqa: E402
from torch_logits import load_model  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BASE = os.path.join(REPO, "examples", "models", "default")
OUT = os.path.join(REPO, "examples", "models", "tools")
NEW_CHARS = ['"', "/", "<", ">", "_", "{", "}"]
SEED = 4321
SUITE_SEED = 1
BUILTIN = ["math", "dates", "units"]

# The tool list is the tools' names on one line; a call is Qwen3's <tool_call> JSON on the assistant's line; a
# tool result is an "R: " line; "A:" is the generation prompt. Without tools and tool messages it renders what the
# default model's template renders.
TOOLS_CHAT_TEMPLATE = (
    "{{ bos_token }}{% if tools %}Tools:{% for tool in tools %} {{ tool.function.name }}{% endfor %}{{ '\\n' }}"
    "{% endif %}"
    "{% for message in messages %}"
    "{% if message['role'] == 'system' %}{{ message['content'] }}\n"
    "{% elif message['role'] == 'user' %}Q: {{ message['content'] }}\n"
    "{% elif message['role'] == 'assistant' %}A:"
    "{% if message.tool_calls %}{% for tool_call in message.tool_calls %}"
    "{% if tool_call.function %}{% set tool_call = tool_call.function %}{% endif %}"
    " <tool_call>{\"name\": \"{{ tool_call.name }}\", \"arguments\": "
    "{% if tool_call.arguments is string %}{{ tool_call.arguments }}{% else %}{{ tool_call.arguments | tojson }}"
    "{% endif %}}</tool_call>{% endfor %}"
    "{% else %} {{ message['content'] }}{% endif %}{{ '\\n' + eos_token }}"
    "{% elif message['role'] == 'tool' %}R: {{ message['content'] }}\n"
    "{% endif %}{% endfor %}{% if add_generation_prompt %}A:{% endif %}")


def _compile():
    env = jinja2.Environment(trim_blocks=True, lstrip_blocks=True)  # as transformers renders chat templates
    env.filters["tojson"] = lambda v: json.dumps(v, ensure_ascii=False)  # as transformers defines it
    return env.from_string(TOOLS_CHAT_TEMPLATE)


_TEMPLATE = _compile()


def render(messages: List[Dict], tools: List[str], add_generation_prompt: bool) -> str:
    decls = [{"type": "function", "function": {"name": n}} for n in tools]
    return _TEMPLATE.render(messages=messages, tools=decls or None, bos_token="<bos>",
                                                       eos_token="<eos>", add_generation_prompt=add_generation_prompt)


def math_expression(question: str) -> str:
    """The expression an arithmetic question asks about: 'What is 48 + 57?' -> '48 + 57'."""
    if question.startswith("What is "):
        return question[len("What is "):-1]
    return question[len("Is "):].split(" equal to ")[0]  # sum_check: the sum, compared after the call


def math_result(expression: str) -> str:
    a, op, b = expression.split(" ")
    x, y = Fraction(a), Fraction(b)
    r = {"+": x + y, "-": x - y, "*": x * y}[op]
    return str(r)


def tool_conversation(question: str, answer: str, tools: List[str]) -> Tuple[List[Dict], List[Dict]]:
    expr = math_expression(question)
    call = {"role": "assistant", "content": "",
            "tool_calls": [{"type": "function", "function": {"name": "math", "arguments": {"expression": expr}}}]}
    return [{"role": "user", "content": question}, call, {"role": "tool", "content": math_result(expr)},
            {"role": "assistant", "content": answer}], tools


def encode(tok: CharTokenizer, messages: List[Dict], tools: List[str]) -> Tuple[List[int], List[bool]]:
    """Token ids of the rendered conversation and, per id, whether it is an assistant token (trained on)."""
    text = render(messages, tools, False)
    assert text.startswith("<bos>")
    ids, train = [BOS_ID], [False]
    # The assistant turns: from after each "A:" to its <eos>; found by rendering prefixes of the conversation.
    spans = []
    for k, m in enumerate(messages):
        if m["role"] == "assistant":
            start = len(render(messages[:k], tools, True)) - len("<bos>")
            end = len(render(messages[:k + 1], tools, False)) - len("<bos>")
            spans.append((start, end))
    body = text[len("<bos>"):]
    pos = 0
    while pos < len(body):
        is_eos = body.startswith("<eos>", pos)
        inside = any(s <= pos < e for s, e in spans)
        ids.append(EOS_ID if is_eos else tok.encode(body[pos])[0])
        train.append(inside)
        pos += 5 if is_eos else 1
    return ids, train


def build_corpus(n: int, rng: random.Random, exclude: frozenset) -> List[Tuple[List[Dict], List[str]]]:
    arith = [f for f in FAMILIES if f.name in ARITHMETIC]
    other = [f for f in FAMILIES if f.name not in ARITHMETIC and f.train_weight > 0]
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.55:  # arithmetic with math offered: call, result, answer
            fam = rng.choice(arith)
            q, accepted = fam.sample(rng)
            while fam.space is None and q in exclude:
                q, accepted = fam.sample(rng)
            tools = ["math"] + rng.sample(["dates", "units"], rng.randint(0, 2))
            rng.shuffle(tools)
            out.append(tool_conversation(q, accepted[0], tools))
            continue
        if r < 0.75:  # the default model's corpus, no tools
            fam = rng.choices(other + arith, weights=[f.train_weight for f in other + arith])[0]
            tools = []
        else:  # tools offered but none fits (or math not offered): a direct answer
            if rng.random() < 0.25:
                fam = rng.choice([f for f in arith if f.train_weight > 0])
                tools = rng.sample(["dates", "units"], rng.randint(1, 2))
            else:
                fam = rng.choices(other, weights=[f.train_weight for f in other])[0]
                tools = rng.sample(BUILTIN, rng.randint(1, 3))
        q, a = fam.sample_training(rng)
        out.append(([{"role": "user", "content": q}, {"role": "assistant", "content": a}], tools))
    return out


def collate(rows: List[Tuple[List[int], List[bool]]]):
    length = max(len(ids) for ids, _ in rows) - 1
    inp = torch.full((len(rows), length), PAD_ID, dtype=torch.long)
    tgt = torch.full((len(rows), length), -100, dtype=torch.long)
    for r, (ids, train) in enumerate(rows):
        t = torch.tensor(ids)
        inp[r, :len(ids) - 1] = t[:-1]
        mask = torch.tensor(train[1:])
        tgt[r, :len(ids) - 1] = torch.where(mask, t[1:], torch.full_like(t[1:], -100))
    return inp, tgt


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--warmup", type=int, default=30)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(SEED)
    t0 = time.time()

    base_tok = CharTokenizer.from_tokenizer_json(os.path.join(BASE, "tokenizer.json"))
    old_chars = [base_tok.inverse[i] for i in range(4, len(base_tok))]
    tok = CharTokenizer(old_chars + NEW_CHARS)
    base = load_model(BASE)
    cfg = base.cfg
    cfg.vocab_size = len(tok)
    model = GemmaForCausalLM(cfg)
    state = base.state_dict()
    emb = state["model.embed_tokens.weight"]
    extra = emb.mean(0, keepdim=True) + 0.02 * torch.randn(len(NEW_CHARS), emb.shape[1])
    state["model.embed_tokens.weight"] = torch.cat([emb, extra], 0)
    model.load_state_dict(state, strict=True)
    model.train()

    suite = generate.build_suite(SUITE_SEED, 100)
    exclude = frozenset(t["question"] for t in suite)
    rng = random.Random(SEED)
    data = [encode(tok, m, t) for m, t in build_corpus(args.steps * args.batch, rng, exclude)]
    print(f"corpus: {len(data)} conversations, {sum(len(i) for i, _ in data)} tokens, vocab {len(tok)}", flush=True)

    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.98))
    t_train = time.time()
    run = 0.0
    for step in range(args.steps):
        lr = lr_at(step, args.steps, args.lr, args.warmup, 0.1)
        for g in opt.param_groups:
            g["lr"] = lr
        inp, tgt = collate(data[step * args.batch:(step + 1) * args.batch])
        loss = F.cross_entropy(model(inp).reshape(-1, cfg.vocab_size), tgt.reshape(-1), ignore_index=-100)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        run += loss.item()
        if (step + 1) % 20 == 0:
            el = time.time() - t_train
            print(f"step {step + 1}/{args.steps} loss {run / 20:.4f} lr {lr:.2e} elapsed {el / 60:.1f} min "
                  f"eta {el / (step + 1) * (args.steps - step - 1) / 60:.1f} min", flush=True)
            run = 0.0
    minutes = (time.time() - t_train) / 60
    print(f"training took {minutes:.1f} min", flush=True)
    model.eval()
    os.makedirs(args.out, exist_ok=True)
    write_safetensors(os.path.join(args.out, "model.safetensors"),
                      {k: v.detach().numpy() for k, v in model.state_dict().items()})
    write_json(os.path.join(args.out, "config.json"), cfg.to_hf_dict())
    write_json(os.path.join(args.out, "tokenizer.json"), tok.tokenizer_json())
    write_json(os.path.join(args.out, "tokenizer_config.json"),
               CharTokenizer.tokenizer_config(cfg.max_position_embeddings, TOOLS_CHAT_TEMPLATE))

    print(f"exported to {args.out}; {(time.time() - t0) / 60:.1f} min in all", flush=True)


if __name__ == "__main__":
    main()
