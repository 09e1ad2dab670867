"""`saguaro tokenize` keeps the compiled tokenizer in the cache directory (docs/user-guide.md, "Tokenizer cache"):
- the first call writes one entry (a 16-hex-digit directory holding tokenizer.sgw), a second call reads it: a
  valid blob of another tokenizer put in its place is what the second call answers with;
- a change to tokenizer.json, or to the tokenizer_config.json or generation_config.json beside it, gives a new
  entry;
- a damaged entry (flipped bytes, truncated, empty, a directory in the blob's place) is compiled again with one
  line on stderr naming it, and the answer is right; a cache directory that cannot be written still answers,
  with one warning line.
Tokenizer: the Gemma 4 fixture (test/fixtures/chat_templates/gemma4/)."""
import json
import os
import shutil

import common

TEXT = "What is the help?"


def flip(data, at):
    return data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1:]


def entries(cache):
    return sorted(e for e in os.listdir(cache) if len(e) == 16) if os.path.isdir(cache) else []


def main():
    args = common.parse_args()
    w = args.work_dir
    cache = os.path.join(w, "cache")  # common.run's SAGUARO_CACHE_DIR
    tok = os.path.join(w, "gemma4")
    shutil.copytree(os.path.join(args.source_dir, "test", "fixtures", "chat_templates", "gemma4"), tok)

    def tokenize():
        proc = common.run([args.saguaro, "tokenize", tok, TEXT], args, check=False)
        if proc.returncode != 0:
            raise SystemExit(f"FAIL: tokenize {tok} exited {proc.returncode}: {proc.stderr.decode()}")
        return proc.stdout.decode().split(), proc.stderr.decode().strip().splitlines()

    want, err = tokenize()
    if err or len(entries(cache)) != 1:
        raise SystemExit(f"FAIL: the first call wrote {entries(cache)} and said {err}")
    entry = os.path.join(cache, entries(cache)[0])
    blob = os.path.join(entry, "tokenizer.sgw")
    if not os.path.isfile(blob):
        raise SystemExit(f"FAIL: no {blob}")
    print(f"first call: {want}, cached in {entry}")

    # Read, not recompiled: the entry is answered from even when it holds another (valid) tokenizer.
    common.run([args.saguaro, "tokenize", os.path.join(args.source_dir, "examples", "models", "default"), "x"], args)
    default_entry = [e for e in entries(cache) if os.path.join(cache, e) != entry][0]
    saved = os.path.join(w, "saved.sgw")
    shutil.copy(blob, saved)
    shutil.copy(os.path.join(cache, default_entry, "tokenizer.sgw"), blob)
    got, err = tokenize()
    if got == want:
        raise SystemExit("FAIL: the second call did not read the cached blob")
    shutil.copy(saved, blob)
    if tokenize()[0] != want:
        raise SystemExit("FAIL: the restored entry gives other ids")
    print("second call: answered from the cached blob")

    # A changed tokenizer.json or tokenizer_config.json is a new entry, and the answer follows the change.
    before = set(entries(cache))
    path = os.path.join(tok, "tokenizer.json")
    text = open(path, encoding="utf-8").read()
    edited = json.loads(text)
    edited["model"]["merges"] = [m for m in edited["model"]["merges"] if "".join(m) not in ("help", "\u2581help")]
    json.dump(edited, open(path, "w", encoding="utf-8"), ensure_ascii=False)  # "help" is no longer one token
    changed, _ = tokenize()
    if changed == want or len(set(entries(cache)) - before) != 1:
        raise SystemExit(f"FAIL: a changed tokenizer.json gave {changed} and entries {entries(cache)}")
    open(path, "w", encoding="utf-8").write(text)
    for name in ("tokenizer_config.json", "generation_config.json"):
        before = set(entries(cache))
        open(os.path.join(tok, name), "a").write("\n")
        if tokenize()[0] != want or len(set(entries(cache)) - before) != 1:
            raise SystemExit(f"FAIL: a changed {name} did not give a new entry")
    print("a changed tokenizer.json, tokenizer_config.json or generation_config.json: a new entry")

    # Damaged entries: compiled again, one line naming the blob, the right answer, a sound entry afterwards.
    key = [e for e in entries(cache) if e not in before][0]
    blob = os.path.join(cache, key, "tokenizer.sgw")
    good = open(blob, "rb").read()
    damages = {
        "flipped header byte": lambda: open(blob, "wb").write(flip(good, 8)),
        "flipped data byte": lambda: open(blob, "wb").write(flip(good, len(good) // 2)),
        "truncated": lambda: open(blob, "wb").write(good[:len(good) // 2]),
        "empty": lambda: open(blob, "wb").close(),
        "a directory": lambda: (os.remove(blob), os.makedirs(blob)),
    }
    for name, damage in damages.items():
        damage()
        got, err = tokenize()
        if got != want or len(err) != 1 or blob not in err[0] or "again" not in err[0]:
            raise SystemExit(f"FAIL: {name} entry: ids {got}, stderr {err}")
        if open(blob, "rb").read() != good:
            raise SystemExit(f"FAIL: {name} entry was not rewritten")
        print(f"{name}: {err[0]}")

    # A cache directory that cannot be written (a file in its place, which stops root too): still the answer,
    # with one warning.
    shutil.rmtree(cache)
    open(cache, "w").close()
    got, err = tokenize()
    if got != want or len(err) != 1 or "not caching" not in err[0]:
        raise SystemExit(f"FAIL: unwritable cache: ids {got}, stderr {err}")
    print(f"unwritable cache: {err[0]}")

if __name__ == "__main__":
    main()
