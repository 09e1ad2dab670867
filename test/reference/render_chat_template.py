"""Renders a Hugging Face chat template with Python's jinja2, as transformers' apply_chat_template does
(transformers src/transformers/utils/chat_template_utils.py, _compile_jinja_template and render_jinja_template): an
ImmutableSandboxedEnvironment with trim_blocks and lstrip_blocks and the loopcontrols extension; the filter
tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False) = json.dumps with those arguments; the
globals raise_exception(message) (raises TemplateError) and strftime_now(format) (here a fixed date, 2024-07-26,
the date Saguaro's compiler renders with, so the output is reproducible); the special tokens of
tokenizer_config.json as variables (bos_token, eos_token, ... and the model-specific ones Gemma 4 names, such as
sot_token), the messages, the tools (None when there are none, as apply_chat_template passes them) and
add_generation_prompt. The independent oracle for Saguaro's template compiler (compiler/chat/).

Usage: render_chat_template.py TOKENIZER_CONFIG_JSON MESSAGES_JSON [--tools TOOLS_JSON] [--template FILE]
                               [--no-generation-prompt] [--enable-thinking true|false]
The template is FILE, else the config's "chat_template", else chat_template.jinja beside it. Prints the rendering
(no newline added) and exits 0, or prints the template's exception and exits 1. render() does the same for a
caller that imports this file.
"""
import argparse
import datetime
import json
import os
import sys

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment

DATE = datetime.datetime(2024, 7, 26)


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


def template_of(config_path, template_path=None):
    """The template text: the given file, the config's "chat_template", or chat_template.jinja beside it."""
    if template_path:
        return open(template_path, encoding="utf-8").read()
    config = json.load(open(config_path, encoding="utf-8"))
    if config.get("chat_template") is not None:
        return config["chat_template"]
    return open(os.path.join(os.path.dirname(config_path), "chat_template.jinja"), encoding="utf-8").read()


def environment():
    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = DATE.strftime
    return env


def render(template, config, messages, tools=None, add_generation_prompt=True, enable_thinking=None):
    """The template's text for `messages` (a list of dicts) and `tools` (a list, or None); raises TemplateError."""
    variables = dict(special_tokens(config), messages=messages, tools=tools or None,
                     add_generation_prompt=add_generation_prompt)
    if enable_thinking is not None:
        variables["enable_thinking"] = enable_thinking
    return environment().from_string(template).render(**variables)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("config")
    ap.add_argument("messages", help="a JSON array of {role, content}")
    ap.add_argument("--tools", help="a JSON array of OpenAI tools")
    ap.add_argument("--template", help="a Jinja file replacing the config's template")
    ap.add_argument("--no-generation-prompt", action="store_true")
    ap.add_argument("--enable-thinking", choices=["true", "false"])
    a = ap.parse_args()
    config = json.load(open(a.config, encoding="utf-8"))
    thinking = None if a.enable_thinking is None else a.enable_thinking == "true"
    try:
        sys.stdout.write(render(template_of(a.config, a.template), config, json.loads(a.messages),
                                json.loads(a.tools) if a.tools else None, not a.no_generation_prompt, thinking))
    except jinja2.exceptions.TemplateError as e:
        print(f"template error: {e}")
        sys.exit(1)


if __name__ == "__main__":
    main()
