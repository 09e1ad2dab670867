// Syntax tree of the Jinja subset: expressions and statements, each with its source line.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "JinjaValue.h"

namespace saguaro::chat {

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
  enum class Kind {
    Literal,  // value
    Name,     // name
    List,     // args: elements
    Dict,     // args: key, value, key, value, ...
    Attr,     // args[0].name
    Index,    // args[0][args[1]]
    Slice,    // args[0][args[1]:args[2]:args[3]] (null parts omitted)
    Call,     // args[0](args[1..], kwargs)
    Filter,   // args[0] | name(args[1..], kwargs)
    Test,     // args[0] is [not] name(args[1..]); negated
    Unary,    // name ("not", "-", "+") args[0]
    Binary,   // args[0] name args[1]; name: + - * / // % ** ~ == != < <= > >= in "not in" and or
    Cond,     // args[1] if args[0] else args[2] (args[2] null: undefined)
  };
  Kind kind;
  int line;
  Value value;
  std::string name;
  std::vector<ExprPtr> args;
  std::vector<std::pair<std::string, ExprPtr>> kwargs;
  bool negated = false;
};

struct Stmt;
using Body = std::vector<std::unique_ptr<Stmt>>;

struct Stmt {
  enum class Kind {
    Text,      // text
    Output,    // {{ expr }}
    If,        // branches (condition null for else)
    For,       // targets in expr [if filter]: body, else_body
    Set,       // targets[0] (targets[1]: attribute for `set ns.attr`) = expr
    SetBlock,  // {% set targets[0] %}body{% endset %}
    Macro,     // targets[0](params) body
    Break,
    Continue,
  };
  Kind kind;
  int line;
  std::string text;
  ExprPtr expr, filter;
  std::vector<std::pair<ExprPtr, Body>> branches;
  std::vector<std::string> targets;
  std::vector<std::pair<std::string, ExprPtr>> params;
  Body body, else_body;
};

}  // namespace saguaro::chat
