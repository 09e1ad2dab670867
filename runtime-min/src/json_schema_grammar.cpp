// JSON Schema → JsonGrammarNodes. The grammar generates a subset of the schema's valid texts (compact, properties
// in declared order, undeclared properties only where none are declared), so every text it accepts validates.
#include "json_schema_grammar.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

namespace saguaro {
namespace {

// Ordered: properties are generated in the order the schema declares them.
using json = nlohmann::ordered_json;

// Keywords that only describe a schema; they constrain nothing.
bool is_annotation(const std::string& k) {
  for (const char* a : {"title", "description", "default", "examples", "$schema", "$id", "$comment", "deprecated",
                        "readOnly", "writeOnly", "$defs", "definitions"})
    if (k == a) return true;
  return false;
}

bool is_supported(const std::string& k) {
  for (const char* a : {"type", "properties", "required", "additionalProperties", "items", "minItems", "maxItems",
                        "minLength", "maxLength", "enum", "const", "anyOf", "$ref"})
    if (k == a) return true;
  return is_annotation(k);
}

bool matches_type(const json& v, const std::string& type) {
  if (type == "string") return v.is_string();
  if (type == "integer") return v.is_number_integer() || (v.is_number_float() && v.get<double>() == static_cast<int64_t>(v.get<double>()));
  if (type == "number") return v.is_number();
  if (type == "boolean") return v.is_boolean();
  if (type == "null") return v.is_null();
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  return false;
}

class Compiler {
 public:
  Compiler(const json& root, JsonGrammarNodes* out) : root_(root), g_(*out) {}

  bool run(std::string* err) {
    g_.nodes.clear();
    g_.any_string = add(JsonNodeKind::kString);
    any_value();
    g_.root = add(JsonNodeKind::kAnyOf);
    if (!compile_into(root_, "#", g_.root)) return *err = error_, false;
    return finish(err);
  }

 private:
  int32_t add(JsonNodeKind kind) {
    g_.nodes.emplace_back();
    g_.nodes.back().kind = kind;
    return static_cast<int32_t>(g_.nodes.size() - 1);
  }

  // The node of any JSON value (created once): object, array, string, number, true/false/null.
  int32_t any_value() {
    if (any_ >= 0) return any_;
    any_ = add(JsonNodeKind::kAnyOf);
    const int32_t obj = add(JsonNodeKind::kObject), arr = add(JsonNodeKind::kArray),
                  num = add(JsonNodeKind::kNumber), lit = add(JsonNodeKind::kLiterals);
    g_.nodes[obj].additional = any_;
    g_.nodes[arr].items = any_;
    g_.nodes[lit].literals = {"false", "null", "true"};
    g_.nodes[any_].alts = {obj, arr, g_.any_string, num, lit};
    return any_;
  }

  bool fail(const std::string& path, const std::string& msg) {
    error_ = path + ": " + msg;
    return false;
  }

  bool read_count(const json& s, const char* key, const std::string& path, int32_t* out) {
    if (!s.contains(key)) return true;
    const json& v = s[key];
    if (!v.is_number_unsigned() || v.get<uint64_t>() > 1000000)
      return fail(path, std::string("\"") + key + "\" must be a non-negative integer (at most 1000000)");
    *out = static_cast<int32_t>(v.get<uint64_t>());
    return true;
  }

  // The node of the schema at JSON pointer `ref` ("#", "#/$defs/a", "#/definitions/a/properties/b", ...).
  bool ref_node(const std::string& ref, const std::string& path, int32_t* out) {
    auto it = refs_.find(ref);
    if (it != refs_.end()) return *out = it->second, true;
    if (ref.empty() || ref[0] != '#')
      return fail(path, "\"$ref\" " + json(ref).dump() + " is not local (only \"#...\" references are supported)");
    const json* target = &root_;
    try {
      if (ref.size() > 1) target = &root_.at(json::json_pointer(ref.substr(1)));
    } catch (const std::exception&) {
      return fail(path, "\"$ref\" " + json(ref).dump() + " points to nothing");
    }
    const int32_t id = add(JsonNodeKind::kAnyOf);
    refs_[ref] = id;
    *out = id;
    return compile_into(*target, ref, id);
  }

  // A node for `s` (a fresh one, or the referenced schema's).
  bool compile(const json& s, const std::string& path, int32_t* out) {
    *out = add(JsonNodeKind::kAnyOf);
    return compile_into(s, path, *out);
  }

  // Compiles schema `s` into node `id` (kAnyOf until known: an alias resolved by finish()).
  bool compile_into(const json& s, const std::string& path, int32_t id) {
    if (s.is_boolean()) {
      if (!s.get<bool>()) return fail(path, "the schema false accepts no value");
      g_.nodes[id].alts = {any_value()};
      return true;
    }
    if (!s.is_object()) return fail(path, "a schema must be an object or a boolean");
    for (auto it = s.begin(); it != s.end(); ++it)
      if (!is_supported(it.key())) return fail(path, "unsupported keyword \"" + it.key() + "\"");
    if (s.contains("$ref")) {
      if (!only_keys(s, {"$ref"}, "\"$ref\"", path)) return false;
      if (!s["$ref"].is_string()) return fail(path, "\"$ref\" must be a string");
      int32_t target = -1;
      if (!ref_node(s["$ref"].get<std::string>(), path, &target)) return false;
      g_.nodes[id].alts = {target};
      return true;
    }
    if (s.contains("anyOf")) {
      if (!only_keys(s, {"anyOf"}, "\"anyOf\"", path)) return false;
      const json& a = s["anyOf"];
      if (!a.is_array() || a.empty()) return fail(path, "\"anyOf\" must be a non-empty array of schemas");
      for (size_t i = 0; i < a.size(); ++i) {
        int32_t alt;
        if (!compile(a[i], path + "/anyOf/" + std::to_string(i), &alt)) return false;
        g_.nodes[id].alts.push_back(alt);
      }
      return true;
    }
    std::vector<std::string> types;
    if (s.contains("type")) {
      const json& t = s["type"];
      for (const json& x : t.is_array() ? t : json::array({t})) {
        static const std::set<std::string> known = {"object", "array", "string", "number", "integer", "boolean",
                                                    "null"};
        if (!x.is_string() || !known.count(x.get<std::string>()))
          return fail(path, "\"type\" " + x.dump() + " is not a JSON Schema type");
        types.push_back(x.get<std::string>());
      }
      if (types.empty()) return fail(path, "\"type\" is an empty array");
    }
    if (s.contains("enum") || s.contains("const")) return compile_literals(s, path, types, id);
    if (types.empty()) {
      // Without "type" the keywords present say which kind to generate; none: any value.
      if (s.contains("properties") || s.contains("required") || s.contains("additionalProperties"))
        types = {"object"};
      else if (s.contains("items") || s.contains("minItems") || s.contains("maxItems"))
        types = {"array"};
      else if (s.contains("minLength") || s.contains("maxLength"))
        types = {"string"};
      else
        return g_.nodes[id].alts = {any_value()}, true;
    }
    for (const std::string& t : types) {
      int32_t n;
      if (!compile_type(s, path, t, &n)) return false;
      g_.nodes[id].alts.push_back(n);
    }
    return true;
  }

  bool compile_literals(const json& s, const std::string& path, const std::vector<std::string>& types, int32_t id) {
    if (!only_keys(s, {"enum", "const", "type"}, "\"enum\"/\"const\"", path)) return false;
    std::vector<json> values;
    if (s.contains("const")) values.push_back(s["const"]);
    if (s.contains("enum")) {
      if (!s["enum"].is_array() || s["enum"].empty()) return fail(path, "\"enum\" must be a non-empty array");
      for (const json& v : s["enum"])
        if (!s.contains("const") || v == s["const"]) values.push_back(v);
    }
    const int32_t n = add(JsonNodeKind::kLiterals);
    for (const json& v : values) {
      bool typed = types.empty();
      for (const std::string& t : types) typed |= matches_type(v, t);
      if (typed) g_.nodes[n].literals.push_back(v.dump());
    }
    std::vector<std::string>& lits = g_.nodes[n].literals;
    std::sort(lits.begin(), lits.end());
    lits.erase(std::unique(lits.begin(), lits.end()), lits.end());
    if (lits.empty()) return fail(path, "no value of \"enum\"/\"const\" satisfies the schema");
    g_.nodes[id].alts = {n};
    return true;
  }

  // Only `allowed` and annotations beside `what` (a keyword that does not combine with the others).
  bool only_keys(const json& s, std::initializer_list<const char*> allowed, const std::string& what,
                 const std::string& path) {
    for (auto it = s.begin(); it != s.end(); ++it) {
      if (is_annotation(it.key())) continue;
      bool ok = false;
      for (const char* a : allowed) ok |= it.key() == a;
      if (!ok) return fail(path, "\"" + it.key() + "\" beside " + what + " is not supported");
    }
    return true;
  }

  bool compile_type(const json& s, const std::string& path, const std::string& type, int32_t* out) {
    if (type == "boolean" || type == "null") {
      *out = add(JsonNodeKind::kLiterals);
      g_.nodes[*out].literals = type == "null" ? std::vector<std::string>{"null"}
                                               : std::vector<std::string>{"false", "true"};
      return true;
    }
    if (type == "number" || type == "integer")
      return *out = add(type == "number" ? JsonNodeKind::kNumber : JsonNodeKind::kInteger), true;
    if (type == "string") {
      *out = add(JsonNodeKind::kString);
      int32_t lo = 0, hi = -1;
      if (!read_count(s, "minLength", path, &lo) || !read_count(s, "maxLength", path, &hi)) return false;
      if (hi >= 0 && hi < lo) return fail(path, "\"minLength\" is above \"maxLength\"");
      g_.nodes[*out].min_len = lo, g_.nodes[*out].max_len = hi;
      return true;
    }
    if (type == "array") {
      *out = add(JsonNodeKind::kArray);
      int32_t lo = 0, hi = -1, items = -1;
      if (!read_count(s, "minItems", path, &lo) || !read_count(s, "maxItems", path, &hi)) return false;
      if (hi >= 0 && hi < lo) return fail(path, "\"minItems\" is above \"maxItems\"");
      if (s.contains("items")) {
        if (s["items"].is_array()) return fail(path, "\"items\" as an array (tuple validation) is not supported");
        if (!compile(s["items"], path + "/items", &items)) return false;
      } else {
        items = any_value();
      }
      JsonNode& n = g_.nodes[*out];
      n.items = items, n.min_items = lo, n.max_items = hi;
      return true;
    }
    return compile_object(s, path, out);
  }

  bool compile_object(const json& s, const std::string& path, int32_t* out) {
    *out = add(JsonNodeKind::kObject);
    std::set<std::string> required;
    if (s.contains("required")) {
      if (!s["required"].is_array()) return fail(path, "\"required\" must be an array of strings");
      for (const json& r : s["required"]) {
        if (!r.is_string()) return fail(path, "\"required\" must be an array of strings");
        required.insert(r.get<std::string>());
      }
    }
    std::vector<JsonProperty> props;
    if (s.contains("properties")) {
      const json& p = s["properties"];
      if (!p.is_object()) return fail(path, "\"properties\" must be an object");
      for (auto it = p.begin(); it != p.end(); ++it) {
        JsonProperty prop;
        prop.required = required.erase(it.key()) > 0;
        prop.key = add(JsonNodeKind::kLiterals);
        g_.nodes[prop.key].literals = {json(it.key()).dump()};
        if (!compile(it.value(), path + "/properties/" + it.key(), &prop.value)) return false;
        props.push_back(prop);
      }
    }
    if (!required.empty())
      return fail(path, "required property \"" + *required.begin() + "\" is not in \"properties\"");
    int32_t additional = -1;
    if (props.empty()) {
      const json a = s.contains("additionalProperties") ? s["additionalProperties"] : json(true);
      if (a.is_boolean())
        additional = a.get<bool>() ? any_value() : -1;
      else if (!compile(a, path + "/additionalProperties", &additional))
        return false;
    } else if (s.contains("additionalProperties")) {
      const json& a = s["additionalProperties"];
      if (!a.is_boolean() && !a.is_object()) return fail(path, "\"additionalProperties\" must be a boolean or a schema");
    }
    g_.nodes[*out].props = std::move(props);
    g_.nodes[*out].additional = additional;
    return true;
  }

  // Flattens node `id`'s alternatives into concrete nodes; a node met again on the way is a $ref cycle that
  // never reaches a value.
  bool flatten(int32_t id, std::vector<int32_t>* path, std::vector<int32_t>* out, std::set<int32_t>* seen) {
    const JsonNode& n = g_.nodes[id];
    if (n.kind != JsonNodeKind::kAnyOf) {
      if (seen->insert(id).second) out->push_back(id);
      return true;
    }
    if (std::find(path->begin(), path->end(), id) != path->end())
      return error_ = "#: a $ref cycle never reaches a value (a schema that is only a reference to itself)", false;
    path->push_back(id);
    for (int32_t a : std::vector<int32_t>(n.alts))
      if (!flatten(a, path, out, seen)) return false;
    path->pop_back();
    return true;
  }

  // Resolves aliases and nested anyOf, then computes every node's shortest text (a least fixpoint).
  bool finish(std::string* err) {
    const int32_t count = static_cast<int32_t>(g_.nodes.size());
    std::vector<std::vector<int32_t>> flat(count);
    for (int32_t i = 0; i < count; ++i) {
      if (g_.nodes[i].kind != JsonNodeKind::kAnyOf) continue;
      std::vector<int32_t> path;
      std::set<int32_t> seen;
      if (!flatten(i, &path, &flat[i], &seen)) return *err = error_, false;
    }
    for (int32_t i = 0; i < count; ++i)
      if (g_.nodes[i].kind == JsonNodeKind::kAnyOf) g_.nodes[i].alts = flat[i];
    g_.self_.resize(count);
    for (int32_t i = 0; i < count; ++i) g_.self_[i] = i, g_.nodes[i].min_bytes = kNoValueBytes;
    for (bool changed = true; changed;) {
      changed = false;
      for (JsonNode& n : g_.nodes) {
        const int64_t m = shortest(n);
        if (m < n.min_bytes) n.min_bytes = m, changed = true;
      }
    }
    for (JsonNode& n : g_.nodes) {
      if (n.kind != JsonNodeKind::kObject) continue;
      const size_t np = n.props.size();
      n.required_bytes_from.assign(np + 1, 0);
      n.required_count_from.assign(np + 1, 0);
      for (size_t i = np; i-- > 0;) {
        const JsonProperty& p = n.props[i];
        const int64_t cost = p.required ? add_bytes(g_.nodes[p.key].min_bytes + 1, g_.nodes[p.value].min_bytes) : 0;
        n.required_bytes_from[i] = add_bytes(n.required_bytes_from[i + 1], cost);
        n.required_count_from[i] = n.required_count_from[i + 1] + (p.required ? 1 : 0);
      }
    }
    if (g_.nodes[g_.root].min_bytes >= kNoValueBytes)
      return *err = "#: the schema has no finite value (a $ref cycle through required properties or items)", false;
    return true;
  }

  int64_t shortest(const JsonNode& n) const {
    auto of = [&](int32_t i) { return g_.nodes[i].min_bytes; };
    switch (n.kind) {
      case JsonNodeKind::kObject: {
        int64_t sum = 2, k = 0;
        for (const JsonProperty& p : n.props)
          if (p.required) sum = add_bytes(sum, add_bytes(of(p.key) + 1, of(p.value))), ++k;
        return add_bytes(sum, std::max<int64_t>(k - 1, 0));
      }
      case JsonNodeKind::kArray:
        return n.min_items == 0 ? 2 : add_bytes(times_bytes(n.min_items, of(n.items) + 1), 1);
      case JsonNodeKind::kString:
        return n.min_len + 2;
      case JsonNodeKind::kNumber:
      case JsonNodeKind::kInteger:
        return 1;
      case JsonNodeKind::kLiterals: {
        int64_t m = kNoValueBytes;
        for (const std::string& l : n.literals) m = std::min<int64_t>(m, l.size());
        return m;
      }
      case JsonNodeKind::kAnyOf: {
        int64_t m = kNoValueBytes;
        for (int32_t a : n.alts) m = std::min(m, of(a));
        return m;
      }
    }
    return kNoValueBytes;
  }

  const json& root_;
  JsonGrammarNodes& g_;
  std::map<std::string, int32_t> refs_;
  int32_t any_ = -1;
  std::string error_;
};

}  // namespace

bool compile_json_schema(const std::string& schema_json, JsonGrammarNodes* out, std::string* err) {
  const json schema = json::parse(schema_json, nullptr, false);
  if (schema.is_discarded()) return *err = "the schema is not valid JSON", false;
  try {
    Compiler c(schema, out);
    return c.run(err);
  } catch (const std::exception& e) {
    return *err = std::string("the schema: ") + e.what(), false;
  }
}

}  // namespace saguaro
