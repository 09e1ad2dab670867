// Jinja lexer: text between tags, `{{ }}` / `{% %}` / `{# #}` with `-` whitespace control, trim_blocks and
// lstrip_blocks, and the expression tokens inside tags (names, numbers, Python string literals, operators).
#include "JinjaLexer.h"

#include <cctype>
#include <cstdlib>

#include "JinjaValue.h"

namespace saguaro::chat {
namespace {

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

int count_lines(const std::string& s, size_t from, size_t to) {
  int n = 0;
  for (size_t k = from; k < to; ++k) n += s[k] == '\n';
  return n;
}

class Lexer {
 public:
  Lexer(const std::string& src, const LexOptions& opts) : src_(src), opts_(opts) {
    // keep_trailing_newline is off in Jinja: one final newline of the template is dropped.
    if (!src_.empty() && src_.back() == '\n') src_.pop_back();
  }

  std::vector<Token> run() {
    size_t pos = 0;
    bool strip_next = false, trim_next = false;  // effects of the previous tag on the following text
    while (pos <= src_.size()) {
      const size_t open = find_tag(pos);
      std::string text = src_.substr(pos, open - pos);
      const int text_line = line_;
      line_ += count_lines(src_, pos, open);
      if (strip_next) {
        size_t k = 0;
        while (k < text.size() && is_ws(text[k])) ++k;
        text.erase(0, k);
      } else if (trim_next && !text.empty() && text[0] == '\n') {
        text.erase(0, 1);
      }
      if (open == src_.size()) {
        push_text(text, text_line);
        break;
      }
      const char kind = src_[open + 1];  // '{', '%' or '#'
      const char mod = open + 2 < src_.size() ? src_[open + 2] : '\0';
      if (mod == '-') {
        while (!text.empty() && is_ws(text.back())) text.pop_back();
      } else if (opts_.lstrip_blocks && kind != '{' && mod != '+') {
        size_t k = text.size();
        while (k > 0 && (text[k - 1] == ' ' || text[k - 1] == '\t')) --k;
        // Only when the tag starts its line: nothing but blanks since the last newline (or the template start).
        const size_t text_start = open - text.size();
        const bool line_start = k > 0 ? text[k - 1] == '\n' : text_start == 0 || src_[text_start - 1] == '\n';
        if (line_start) text.erase(k);
      }
      push_text(text, text_line);
      pos = open + 2 + ((mod == '-' || mod == '+') ? 1 : 0);
      bool end_strip = false;
      if (kind == '#') {
        pos = skip_comment(pos, &end_strip);
      } else {
        out_.push_back({kind == '{' ? Token::Kind::VarBegin : Token::Kind::BlockBegin, "", 0, 0, line_});
        pos = lex_tag(pos, kind == '{' ? '}' : '%', &end_strip);
      }
      strip_next = end_strip;
      trim_next = !end_strip && kind != '{' && opts_.trim_blocks;
    }
    out_.push_back({Token::Kind::End, "", 0, 0, line_});
    return std::move(out_);
  }

 private:
  size_t find_tag(size_t pos) const {
    for (size_t k = src_.find('{', pos); k != std::string::npos; k = src_.find('{', k + 1))
      if (k + 1 < src_.size() && (src_[k + 1] == '{' || src_[k + 1] == '%' || src_[k + 1] == '#')) return k;
    return src_.size();
  }

  void push_text(const std::string& text, int line) {
    if (!text.empty()) out_.push_back({Token::Kind::Text, text, 0, 0, line});
  }

  size_t skip_comment(size_t pos, bool* strip) {
    const size_t end = src_.find("#}", pos);
    if (end == std::string::npos) throw error_at(line_, "unterminated comment '{#'");
    line_ += count_lines(src_, pos, end);
    *strip = end > pos && src_[end - 1] == '-';
    return end + 2;
  }

  // Lexes the inside of a `{{ }}` or `{% %}` tag up to its closing delimiter (`close` is '}' or '%').
  size_t lex_tag(size_t pos, char close, bool* strip) {
    const Token::Kind end_kind = close == '}' ? Token::Kind::VarEnd : Token::Kind::BlockEnd;
    for (;;) {
      while (pos < src_.size() && is_ws(src_[pos])) line_ += src_[pos++] == '\n';
      if (pos >= src_.size()) throw error_at(line_, std::string("unterminated tag, expected '") + close + "}'");
      const char c = src_[pos];
      for (int dash = 0; dash < 2; ++dash) {
        const size_t k = pos + dash;
        if ((dash == 0 || c == '-') && k + 1 < src_.size() && src_[k] == close && src_[k + 1] == '}') {
          *strip = dash == 1;
          out_.push_back({end_kind, "", 0, 0, line_});
          return k + 2;
        }
      }
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        size_t e = pos;
        while (e < src_.size() && (std::isalnum(static_cast<unsigned char>(src_[e])) || src_[e] == '_')) ++e;
        out_.push_back({Token::Kind::Name, src_.substr(pos, e - pos), 0, 0, line_});
        pos = e;
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        pos = lex_number(pos);
      } else if (c == '\'' || c == '"') {
        pos = lex_string(pos);
      } else {
        static const char* const ops[] = {"**", "//", "==", "!=", "<=", ">=", "+", "-", "*", "/", "%", "~", "<",
                                          ">", "(", ")", "[", "]", "{", "}", ",", ".", ":", "|", "="};
        const char* found = nullptr;
        for (const char* op : ops)
          if (src_.compare(pos, std::char_traits<char>::length(op), op) == 0) {
            found = op;
            break;
          }
        if (!found) throw error_at(line_, std::string("unexpected character '") + c + "'");
        out_.push_back({Token::Kind::Op, found, 0, 0, line_});
        pos += std::char_traits<char>::length(found);
      }
    }
  }

  size_t lex_number(size_t pos) {
    size_t e = pos;
    while (e < src_.size() && std::isdigit(static_cast<unsigned char>(src_[e]))) ++e;
    const bool is_float = e + 1 < src_.size() && src_[e] == '.' && std::isdigit(static_cast<unsigned char>(src_[e + 1]));
    if (is_float) {
      ++e;
      while (e < src_.size() && std::isdigit(static_cast<unsigned char>(src_[e]))) ++e;
    }
    const std::string digits = src_.substr(pos, e - pos);
    Token t{is_float ? Token::Kind::Float : Token::Kind::Int, digits, 0, 0, line_};
    if (is_float) t.fval = std::strtod(digits.c_str(), nullptr);
    else t.ival = std::strtoll(digits.c_str(), nullptr, 10);
    out_.push_back(t);
    return e;
  }

  // A Python string literal with backslash escapes (Jinja decodes them like Python's unicode-escape).
  size_t lex_string(size_t pos) {
    const char quote = src_[pos];
    const int start_line = line_;
    std::string v;
    size_t k = pos + 1;
    for (;; ++k) {
      if (k >= src_.size()) throw error_at(start_line, "unterminated string literal");
      const char c = src_[k];
      if (c == quote) break;
      if (c == '\n') ++line_;
      if (c != '\\' || k + 1 >= src_.size()) {
        v += c;
        continue;
      }
      const char e = src_[++k];
      switch (e) {
        case 'n': v += '\n'; break;
        case 't': v += '\t'; break;
        case 'r': v += '\r'; break;
        case 'b': v += '\b'; break;
        case 'f': v += '\f'; break;
        case 'v': v += '\v'; break;
        case 'a': v += '\a'; break;
        case '0': v += '\0'; break;
        case '\\': v += '\\'; break;
        case '\'': v += '\''; break;
        case '"': v += '"'; break;
        case '\n': ++line_; break;
        case 'x':
        case 'u':
        case 'U': {
          const size_t n = e == 'x' ? 2 : e == 'u' ? 4 : 8;
          const std::string hex = src_.substr(k + 1, n);
          char* endp = nullptr;
          const unsigned long cp = std::strtoul(hex.c_str(), &endp, 16);
          if (hex.size() != n || *endp != '\0' || cp > 0x10ffff)
            throw error_at(line_, std::string("bad \\") + e + " escape in string literal");
          v += utf8_encode({static_cast<uint32_t>(cp)});
          k += n;
          break;
        }
        default: v += '\\', v += e;
      }
    }
    out_.push_back({Token::Kind::String, v, 0, 0, start_line});
    return k + 1;
  }

  std::string src_;
  const LexOptions& opts_;
  int line_ = 1;
  std::vector<Token> out_;
};

}  // namespace

std::vector<Token> lex(const std::string& src, const LexOptions& opts) { return Lexer(src, opts).run(); }

}  // namespace saguaro::chat
