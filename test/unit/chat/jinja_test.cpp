// The Jinja-subset renderer: one test per construct, whitespace control, and errors that name construct and line.
#include <gtest/gtest.h>

#include "ChatVariables.h"
#include "JinjaTemplate.h"

namespace saguaro::chat {
namespace {

std::string render(const std::string& src, const Dict& vars = Dict(), const LexOptions& opts = LexOptions()) {
  return Template(src, opts).render(vars);
}

Dict vars_with(const std::string& key, Value v) {
  Dict d;
  d.set(key, std::move(v));
  return d;
}

Value messages() {
  auto msg = [](const char* role, const char* content) {
    Dict m;
    m.set("role", Value::string(role));
    m.set("content", Value::string(content));
    return Value::dict_of(m);
  };
  return Value::list_of({msg("system", "S"), msg("user", "U1"), msg("assistant", "A1"), msg("user", "U2")});
}

// The message of the TemplateError thrown by rendering `src` ("" when it renders).
std::string error_of(const std::string& src, const Dict& vars = Dict()) {
  try {
    render(src, vars);
  } catch (const TemplateError& e) {
    return e.what();
  }
  return "";
}

TEST(Jinja, TextAndLiterals) {
  EXPECT_EQ(render("plain {{ 'a\\n\\'b\\'' }} {{ \"x\" 'y' }}"), "plain a\n'b' xy");
  EXPECT_EQ(render("{{ 42 }} {{ -3 }} {{ 1.5 }} {{ true }} {{ none }} {{ undefined_var }}|"), "42 -3 1.5 True None |");
  EXPECT_EQ(render("{{ [1, 'a', none] }} {{ {'k': 'v', 'n': 2} }}"), "[1, 'a', None] {'k': 'v', 'n': 2}");
  EXPECT_EQ(render("{{ '\\u00e9\\x41' }}"), "\xc3\xa9" "A");
  EXPECT_EQ(render("{# a comment #}x{# another #}"), "x");
  EXPECT_EQ(render("ends with one newline\n"), "ends with one newline");  // keep_trailing_newline off
}

TEST(Jinja, WhitespaceControl) {
  EXPECT_EQ(render("a  {{- 'b' -}}  \n c"), "abc");
  EXPECT_EQ(render("a\n  {%- if true %}b{% endif -%}\n  c"), "abc");
  // trim_blocks + lstrip_blocks (Hugging Face's settings): block lines leave no trace.
  EXPECT_EQ(render("x\n  {% if true %}\n  y\n  {% endif %}\nz"), "x\n  y\nz");
  EXPECT_EQ(render("  {# note #}\nq"), "q");
  EXPECT_EQ(render("v {% if true %}w{% endif %}"), "v w");  // not at line start: blanks stay
  EXPECT_EQ(render("{{ 'a' }}\nb"), "a\nb");              // no trim after {{ }}
  LexOptions off;
  off.trim_blocks = off.lstrip_blocks = false;
  EXPECT_EQ(render("x\n  {% if true %}\n  y\n  {% endif %}\nz", Dict(), off), "x\n  \n  y\n  \nz");
  EXPECT_EQ(render("  {%+ if true %}k{% endif %}"), "  k");
}

TEST(Jinja, IfElifElse) {
  const std::string t = "{% if n == 1 %}one{% elif n == 2 %}two{% else %}many{% endif %}";
  EXPECT_EQ(render(t, vars_with("n", Value::integer(1))), "one");
  EXPECT_EQ(render(t, vars_with("n", Value::integer(2))), "two");
  EXPECT_EQ(render(t, vars_with("n", Value::integer(7))), "many");
  EXPECT_EQ(render("{% if '' or [] or none or 0 %}t{% else %}f{% endif %}"), "f");
}

TEST(Jinja, ForLoopVariables) {
  const Dict v = vars_with("messages", messages());
  EXPECT_EQ(render("{% for m in messages %}{{ loop.index0 }}{{ loop.index }}{{ loop.length }}"
                   "{% if loop.first %}F{% endif %}{% if loop.last %}L{% endif %}{{ m.role[0] }},{% endfor %}",
                   v),
            "014Fs,124u,234a,344Lu,");
  EXPECT_EQ(render("{% for m in messages if m.role == 'user' %}{{ m.content }}{{ loop.length }}{% endfor %}", v),
            "U12U22");
  EXPECT_EQ(render("{% for x in [] %}x{% else %}empty{% endfor %}"), "empty");
  EXPECT_EQ(render("{% for x in [1,2,3,4] %}{% if x == 2 %}{% continue %}{% endif %}{% if x == 4 %}{% break %}"
                   "{% endif %}{{ x }}{% endfor %}"),
            "13");
  EXPECT_EQ(render("{% for k, v in {'a': 1, 'b': 2}.items() %}{{ k }}={{ v }};{% endfor %}"), "a=1;b=2;");
  EXPECT_EQ(render("{% for c in 'hé' %}[{{ c }}]{% endfor %}"), "[h][\xc3\xa9]");
  EXPECT_EQ(render("{% for i in range(3) %}{{ i }}{% endfor %}"), "012");
}

TEST(Jinja, SetNamespaceAndScopes) {
  EXPECT_EQ(render("{% set x = 'a' %}{% set y = x ~ 'b' %}{{ y }}"), "ab");
  // A plain `set` inside a loop does not leak; a namespace attribute does.
  EXPECT_EQ(render("{% set x = 1 %}{% set ns = namespace(found=false, n=0) %}{% for i in [1, 2] %}{% set x = 5 %}"
                   "{% set ns.n = ns.n + i %}{% set ns.found = true %}{% endfor %}{{ x }} {{ ns.n }} {{ ns.found }}"),
            "1 3 True");
  EXPECT_EQ(render("{% set block %}in{{ 1 + 1 }}{% endset %}[{{ block }}]"), "[in2]");
  EXPECT_NE(error_of("{% set s = 'x' %}{% set s.a = 1 %}").find("line 1: cannot assign attribute 'a'"),
            std::string::npos);
}

TEST(Jinja, Macros) {
  EXPECT_EQ(render("{% macro turn(role, text='?') %}<{{ role }}>{{ text }}{% endmacro %}"
                   "{{ turn('user', 'hi') }}{{ turn('bot') }}{{ turn(text='t', role='r') }}"),
            "<user>hi<bot>?<r>t");
}

TEST(Jinja, Operators) {
  EXPECT_EQ(render("{{ 1 + 2 * 3 }} {{ 7 // 2 }} {{ -7 // 2 }} {{ 7 % 3 }} {{ -7 % 3 }} {{ 7 / 2 }} {{ 2 ** 3 }}"),
            "7 3 -4 1 2 3.5 8");
  EXPECT_EQ(render("{{ 'a' + 'b' }} {{ 'a' ~ 1 ~ none }} {{ [1] + [2] }} {{ '-' * 3 }}"), "ab a1None [1, 2] ---");
  EXPECT_EQ(render("{{ 1 < 2 }} {{ 'b' >= 'a' }} {{ 1 == 1.0 }} {{ [1] != [1] }}"), "True True True False");
  EXPECT_EQ(render("{{ not true or false and true }} {{ 0 or 'x' }} {{ 'x' and 0 }}"), "False x 0");
  EXPECT_EQ(render("{{ 'ell' in 'hello' }} {{ 2 not in [1, 2] }} {{ 'k' in {'k': 1} }}"), "True False True");
  EXPECT_EQ(render("{{ 'y' if 1 > 2 else 'n' }}|{{ 'y' if false }}|"), "n||");
}

TEST(Jinja, AccessAndSlicing) {
  const Dict v = vars_with("messages", messages());
  EXPECT_EQ(render("{{ messages[0].role }} {{ messages[1]['content'] }} {{ messages[-1].content }}", v),
            "system U1 U2");
  EXPECT_EQ(render("{% for m in messages[::-1] %}{{ m.content }}{% endfor %}|{{ messages[1:]|length }}", v),
            "U2A1U1S|3");
  EXPECT_EQ(render("{{ 'abcdef'[1:4] }} {{ 'abc'[::-1] }} {{ [1,2,3,4][::2] }} {{ 'abc'[-1] }}"), "bcd cba [1, 3] c");
  EXPECT_EQ(render("{{ messages[9] is defined }} {{ messages[0].missing is defined }}", v), "False False");
}

TEST(Jinja, Tests) {
  Dict v = vars_with("s", Value::string("x"));
  v.set("n", Value::none());
  EXPECT_EQ(render("{{ s is defined }}{{ u is defined }}{{ u is undefined }}{{ n is none }}{{ s is not none }}"
                   "{{ s is string }}{{ 1 is string }}{{ {} is mapping }}{{ [] is iterable }}{{ 3 is odd }}"
                   "{{ 4 is even }}{{ 2 is number }}{{ false is false }}{{ true is true }}{{ 6 is divisibleby 3 }}",
                   v),
            "TrueFalseTrueTrueTrueTrueFalseTrueTrueTrueTrueTrueTrueTrueTrue");
}

TEST(Jinja, Filters) {
  EXPECT_EQ(render("[{{ '  a b \\n'|trim }}] {{ 'abc'|length }} {{ [1,2]|length }} {{ 'aB'|upper }}{{ 'aB'|lower }}"),
            "[a b] 3 2 ABab");
  EXPECT_EQ(render("{{ {'a': [1, 'x\"y'], 'b': none, 'c': true}|tojson }}"),
            "{\"a\": [1, \"x\\\"y\"], \"b\": null, \"c\": true}");
  EXPECT_EQ(render("{{ {'a': [1]}|tojson(indent=2) }}"), "{\n  \"a\": [\n    1\n  ]\n}");
  EXPECT_EQ(render("{{ 'é'|tojson }}"), "\"\xc3\xa9\"");  // ensure_ascii=False, as Hugging Face's tojson
  EXPECT_EQ(render("{{ u|default('d') }} {{ ''|default('d', true) }} {{ 'v'|d('d') }}"), "d d v");
  EXPECT_EQ(render("{{ [1,2,3]|first }}{{ [1,2,3]|last }}{{ 'xyz'|first }}"), "13x");
  EXPECT_EQ(render("{{ 'a-b-c'|replace('-', '+') }} {{ 5|string + '!' }} {{ '<b>'|safe }}"), "a+b+c 5! <b>");
  EXPECT_EQ(render("{{ 'a\\nb\\n\\nc'|indent(2) }}|{{ 'x\\ny'|indent(2, true) }}"), "a\n  b\n\n  c|  x\n  y");
  EXPECT_EQ(render("{{ ['a','b']|join(', ') }} {{ [{'n':1},{'n':2}]|map(attribute='n')|join }}"), "a, b 12");
  EXPECT_EQ(render("{{ [{'r':'u'},{'r':'s'}]|selectattr('r', 'equalto', 's')|list|length }}"), "1");
  EXPECT_EQ(render("{{ 'hello world'|title }} {{ 'hELLO'|capitalize }} {{ [3,1]|reverse|list }}"),
            "Hello World Hello [1, 3]");
  // dictsort: by key ignoring case, as Jinja's default (Gemma 4's template writes tool arguments with it).
  EXPECT_EQ(render("{% for k, v in {'b': 1, 'C': 2, 'a': 3}|dictsort %}{{ k }}{{ v }}{% endfor %}"), "a3b1C2");
  EXPECT_EQ(render("{{ ['a']|map('upper')|list }}"), "['A']");
}

TEST(Jinja, Methods) {
  EXPECT_EQ(render("{{ 'abc'.startswith('ab') }}{{ 'abc'.endswith('bc') }}{{ 'abc'.startswith(('x', 'a')) }}"),
            "TrueTrueTrue");
  EXPECT_EQ(render("[{{ ' \\na\\n '.strip() }}][{{ '\\n\\na'.lstrip('\\n') }}][{{ 'a\\n\\n'.rstrip() }}]"),
            "[a][a][a]");
  EXPECT_EQ(render("{{ 'x</think>y</think>z'.split('</think>')[-1] }} {{ ' a  b '.split() }} {{ 'a,b,c'.split(',', 1) }}"),
            "z ['a', 'b'] ['a', 'b,c']");
  EXPECT_EQ(render("{{ 'Ab'.upper() }}{{ 'Ab'.lower() }}"), "ABab");
  EXPECT_EQ(render("{% set d = {'a': 1} %}{{ d.get('a') }} {{ d.get('b', 'no') }} {{ d.get('c') }} "
                   "{{ d.items()|list|length }} {{ d.keys()|list }} {{ d.values()|list }}"),
            "1 no None 1 ['a'] [1]");
}

TEST(Jinja, RaiseExceptionNamesLine) {
  try {
    render("ok\n{{ raise_exception('roles must alternate') }}");
    FAIL() << "expected a TemplateRaise";
  } catch (const TemplateRaise& e) {
    EXPECT_STREQ(e.what(), "chat_template line 2: raise_exception: roles must alternate");
  }
}

TEST(Jinja, StrftimeNowUsesTheFixedDate) {
  ChatTemplateOptions opts;
  opts.date = "2025-03-09";
  const Dict v = chat_variables({}, {}, false, opts);
  EXPECT_EQ(render("{{ strftime_now('%d %b %Y') }}|{{ strftime_now('%A %B %-d, %y') }}|{{ strftime_now('%j') }}", v),
            "09 Mar 2025|Sunday March 9, 25|068");
  opts.date = "2025-3-9";
  EXPECT_THROW(chat_variables({}, {}, false, opts), TemplateError);
}

TEST(Jinja, UnsupportedConstructsNameLine) {
  EXPECT_EQ(error_of("a\n\n{{ text|wordwrap }}"), "chat_template line 3: unsupported filter 'wordwrap'");
  EXPECT_EQ(error_of("{% include 'x.jinja' %}"), "chat_template line 1: unsupported statement 'include'");
  EXPECT_EQ(error_of("\n{% if x is sameas_not_a_test %}{% endif %}"),
            "chat_template line 2: unsupported test 'sameas_not_a_test'");
  EXPECT_EQ(error_of("{{ 'a'.zfill(3) }}"), "chat_template line 1: unsupported method 'zfill' of string");
  EXPECT_EQ(error_of("{{ cycler(1) }}"), "chat_template line 1: unsupported function 'cycler'");
  EXPECT_EQ(error_of("{% set a, b = 1, 2 %}"), "chat_template line 1: unsupported tuple assignment in 'set'");
  EXPECT_EQ(error_of("{{ '%s' % 1 }}"), "chat_template line 1: unsupported string formatting with '%'");
}

TEST(Jinja, MalformedTemplatesAreErrors) {
  EXPECT_EQ(error_of("{% if true %}\nno end"), "chat_template line 2: unexpected end of template, expected 'endif'");
  EXPECT_EQ(error_of("x\n{{ 'a' "), "chat_template line 2: unterminated tag, expected '}}'");
  // fuzz_chat_template's finding: an empty subscript parsed to a null index expression.
  EXPECT_EQ(error_of("{{ x[] }}"), "chat_template line 1: expected an expression inside '[]'");
  EXPECT_EQ(error_of("{{ 'abc }}"), "chat_template line 1: unterminated string literal");
  EXPECT_EQ(error_of("{% endfor %}"), "chat_template line 1: unexpected 'endfor'");
  EXPECT_EQ(error_of("{{ a + }}"), "chat_template line 1: unexpected '}}' in expression");
  EXPECT_EQ(error_of("{{ a ? b }}"), "chat_template line 1: unexpected character '?'");
  EXPECT_EQ(error_of("{# open"), "chat_template line 1: unterminated comment '{#'");
  EXPECT_EQ(error_of("{% break %}"), "chat_template line 1: 'break' or 'continue' outside a for loop");
  EXPECT_EQ(error_of("{{ u.x }}"), "chat_template line 1: cannot read attribute 'x' of an undefined value");
  EXPECT_EQ(error_of("{{ 'a' + 1 }}"), "chat_template line 1: unsupported operand types for +: string and int");
}

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int k = 0; k < n; ++k) out += s;
  return out;
}

// fuzz_tokenizer_config's finding (test/fuzz/regressions/fuzz_tokenizer_config/): a run of '[' overflowed the stack.
// Nesting (brackets, unary operators, blocks) is limited to 100 levels and an expression's tree to 256 (the evaluator recurses once per level: an AddressSanitizer build overflowed at 900); a template
// within the limits renders as before.
TEST(Jinja, NestingIsLimited) {
  EXPECT_EQ(render("{{ " + repeat("[", 99) + "7" + repeat("]", 99) + " }}"), repeat("[", 99) + "7" + repeat("]", 99));
  EXPECT_EQ(render("{{ " + repeat("- ", 90) + "1 }}"), "1");
  EXPECT_EQ(render(repeat("{% if true %}", 90) + "x" + repeat("{% endif %}", 90)), "x");
  EXPECT_EQ(render("{{ 1" + repeat(" + 1", 250) + " }}"), "251");
  const std::string deep = "chat_template line 1: nested more than 100 levels deep";
  EXPECT_EQ(error_of("{{ " + repeat("[", 5000) + " }}"), deep);
  EXPECT_EQ(error_of("{{ " + repeat("(", 5000) + " }}"), deep);
  EXPECT_EQ(error_of("{{ " + repeat("-", 5000) + "1 }}"), deep);
  EXPECT_EQ(error_of("{{ " + repeat("not ", 5000) + "x }}"), deep);
  EXPECT_EQ(error_of(repeat("{% if true %}", 5000)), deep);
  EXPECT_EQ(error_of("{{ x" + repeat("|trim", 5000) + " }}"),
            "chat_template line 1: expression more than 256 operations deep");
  EXPECT_EQ(error_of("{{ 1" + repeat(" ~ 1", 5000) + " }}"),
            "chat_template line 1: expression more than 256 operations deep");
}

}  // namespace
}  // namespace saguaro::chat
