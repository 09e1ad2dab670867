// Filters, tests and methods of the Jinja subset (names as in Jinja / Python; semantics as Hugging Face renders).
#pragma once

#include <string>

#include "JinjaValue.h"

namespace saguaro::chat {

/// Whether `name` is a supported filter.
bool is_filter(const std::string& name);
/// Whether `name` is a supported test (`is name`).
bool is_test(const std::string& name);
/// Applies filter `name` to `v`; throws EvalError.
Value apply_filter(const std::string& name, const Value& v, const List& args, const KwArgs& kwargs);
/// Evaluates test `name` on `v`; throws EvalError.
bool apply_test(const std::string& name, const Value& v, const List& args);
/// What a for loop or list filter iterates: list items, dict keys, string characters; undefined is empty.
List iterate(const Value& v, const std::string& what);
/// Calls method `name` of `self` (string, dict or list methods); throws EvalError for unsupported ones.
Value call_method(const Value& self, const std::string& name, const List& args, const KwArgs& kwargs);

}  // namespace saguaro::chat
