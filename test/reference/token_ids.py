"""Reads and writes token-id files: integers separated by whitespace or commas; '#' starts a comment."""


def read_token_ids(path):
    """Returns the list of int token ids in the file."""
    ids = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].replace(",", " ")
            ids.extend(int(tok) for tok in line.split())
    if not ids:
        raise ValueError(f"{path}: no token ids")
    return ids


def write_token_ids(path, ids):
    """Writes ids on one line, space separated."""
    with open(path, "w") as f:
        f.write(" ".join(str(int(i)) for i in ids) + "\n")
