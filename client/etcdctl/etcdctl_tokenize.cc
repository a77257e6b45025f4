#include "client/etcdctl/etcdctl_tokenize.h"

#include "client/etcdctl/go_format.h"

namespace dst::etcdctl {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_utf8(std::string* out, uint32_t cp) {
  if (cp < 0x80) {
    *out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    *out += static_cast<char>(0xc0 | (cp >> 6));
    *out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    *out += static_cast<char>(0xe0 | (cp >> 12));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    *out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    *out += static_cast<char>(0xf0 | (cp >> 18));
    *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    *out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

// One escape after a backslash inside a Go "..." literal; text[*i] is the character after '\'.
Status go_escape(std::string_view text, size_t* i, std::string* out) {
  const Status bad(StatusCode::kInvalidArgument, "invalid syntax: bad escape in Go string literal " +
                                                     std::string(text));
  const char c = text[*i];
  ++*i;
  switch (c) {
    case 'a': *out += '\a'; return Status::ok();
    case 'b': *out += '\b'; return Status::ok();
    case 'f': *out += '\f'; return Status::ok();
    case 'n': *out += '\n'; return Status::ok();
    case 'r': *out += '\r'; return Status::ok();
    case 't': *out += '\t'; return Status::ok();
    case 'v': *out += '\v'; return Status::ok();
    case '\\': *out += '\\'; return Status::ok();
    case '"': *out += '"'; return Status::ok();
    default: break;
  }
  if (c == 'x' || c == 'u' || c == 'U') {
    const size_t n = c == 'x' ? 2 : c == 'u' ? 4 : 8;
    if (*i + n > text.size()) return bad;
    uint32_t v = 0;
    for (size_t k = 0; k < n; ++k) {
      const int h = hex_value(text[*i + k]);
      if (h < 0) return bad;
      v = v * 16 + static_cast<uint32_t>(h);
    }
    *i += n;
    if (c == 'x') {
      *out += static_cast<char>(v);
    } else {
      if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return bad;
      append_utf8(out, v);
    }
    return Status::ok();
  }
  if (c >= '0' && c <= '7') {  // three octal digits, the first already read
    if (*i + 2 > text.size()) return bad;
    uint32_t v = static_cast<uint32_t>(c - '0');
    for (size_t k = 0; k < 2; ++k) {
      const char d = text[*i + k];
      if (d < '0' || d > '7') return bad;
      v = v * 8 + static_cast<uint32_t>(d - '0');
    }
    if (v > 255) return bad;
    *i += 2;
    *out += static_cast<char>(v);
    return Status::ok();
  }
  return bad;
}

}  // namespace

bool is_blank_or_comment(std::string_view line) {
  for (char c : line) {
    if (is_space(c)) continue;
    return c == '#';
  }
  return true;
}

Result<std::vector<std::string>> tokenize_shell(std::string_view line) {
  std::vector<std::string> args;
  std::string current;
  bool in_word = false;  // distinguishes "" (an empty argument) from no argument
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (is_space(c)) {
      if (in_word) args.push_back(std::move(current));
      current.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\\') {
      if (i + 1 >= line.size())
        return Status(StatusCode::kInvalidArgument, "unterminated backslash at the end of the line");
      current += line[++i];
    } else if (c == '\'') {
      const size_t end = line.find('\'', i + 1);
      if (end == std::string_view::npos)
        return Status(StatusCode::kInvalidArgument, "unterminated single quote (expected a closing ')");
      current.append(line.substr(i + 1, end - i - 1));
      i = end;
    } else if (c == '"') {
      size_t j = i + 1;
      for (; j < line.size() && line[j] != '"'; ++j) {
        // Inside double quotes a shell only treats \ specially before " \ $ ` and newline.
        if (line[j] == '\\' && j + 1 < line.size() &&
            (line[j + 1] == '"' || line[j + 1] == '\\' || line[j + 1] == '$' || line[j + 1] == '`')) {
          ++j;
        }
        current += line[j];
      }
      if (j >= line.size())
        return Status(StatusCode::kInvalidArgument, "unterminated double quote (expected a closing \")");
      i = j;
    } else {
      current += c;
    }
  }
  if (in_word) args.push_back(std::move(current));
  return args;
}

Result<std::string> go_unquote_prefix(std::string_view text, size_t* consumed) {
  DST_ASSERT(!text.empty() && text[0] == '"');
  std::string out;
  for (size_t i = 1; i < text.size();) {
    const char c = text[i];
    if (c == '"') {
      *consumed = i + 1;
      return out;
    }
    if (c == '\n') break;
    if (c == '\\') {
      ++i;
      if (i >= text.size()) break;
      if (Status s = go_escape(text, &i, &out); !s.is_ok()) return s;
      continue;
    }
    out += c;
    ++i;
  }
  return Status(StatusCode::kInvalidArgument, "unterminated Go string literal: " + std::string(text));
}

Result<std::vector<std::string>> tokenize_txn_op(std::string_view line) {
  std::vector<std::string> args;
  size_t i = 0;
  while (i < line.size()) {
    if (is_space(line[i])) {
      ++i;
      continue;
    }
    if (line[i] == '"') {
      size_t used = 0;
      auto s = go_unquote_prefix(line.substr(i), &used);
      if (!s.is_ok()) return s.status();
      args.push_back(std::move(*s));
      i += used;
    } else if (line[i] == '\'') {
      const size_t end = line.find('\'', i + 1);
      if (end == std::string_view::npos)
        return Status(StatusCode::kInvalidArgument, "unterminated single quote in txn request: " + std::string(line));
      args.emplace_back(line.substr(i + 1, end - i - 1));
      i = end + 1;
    } else {
      const size_t start = i;
      while (i < line.size() && !is_space(line[i])) ++i;
      args.emplace_back(line.substr(start, i - start));
    }
  }
  return args;
}

}  // namespace dst::etcdctl
