"""Renders a Hugging Face chat template with Python's jinja2, as transformers' apply_chat_template does: an
ImmutableSandboxedEnvironment with trim_blocks and lstrip_blocks and the loopcontrols extension,
raise_exception(), the special tokens of tokenizer_config.json as variables (bos_token, eos_token, ... and the
model-specific ones Gemma 4 names, such as sot_token), the messages and add_generation_prompt. The independent
oracle for Saguaro's template compiler (compiler/chat/).

Usage: render_chat_template.py TOKENIZER_CONFIG_JSON MESSAGES_JSON [--no-generation-prompt]
                               [--enable-thinking true|false]
The template is the config's "chat_template", else chat_template.jinja beside it. Prints the rendering (no
newline added) and exits 0, or prints the template's exception and exits 1.
"""
import argparse
import json
import os
import sys

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment


def special_tokens(config):
    """Every string-valued *_token field (a string or an AddedToken object), as transformers passes them."""
    out = {}
    for key, value in config.items():
        if not key.endswith("_token"):
            continue
        if isinstance(value, dict):
            value = value.get("content")
        if isinstance(value, str):
            out[key] = value
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("config")
    ap.add_argument("messages", help="a JSON array of {role, content}")
    ap.add_argument("--no-generation-prompt", action="store_true")
    ap.add_argument("--enable-thinking", choices=["true", "false"])
    a = ap.parse_args()
    config = json.load(open(a.config, encoding="utf-8"))
    template = config.get("chat_template")
    if template is None:
        template = open(os.path.join(os.path.dirname(a.config), "chat_template.jinja"), encoding="utf-8").read()

    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"])
    env.globals["raise_exception"] = raise_exception
    variables = dict(special_tokens(config), messages=json.loads(a.messages),
                     add_generation_prompt=not a.no_generation_prompt)
    if a.enable_thinking:
        variables["enable_thinking"] = a.enable_thinking == "true"
    try:
        sys.stdout.write(env.from_string(template).render(**variables))
    except jinja2.exceptions.TemplateError as e:
        print(f"template error: {e}")
        sys.exit(1)


if __name__ == "__main__":
    main()
