#include "node/raft/datadriven.h"

#include "base/assert.h"

namespace dst::datadriven {

namespace {

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    lines.emplace_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

std::string trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return std::string(s.substr(b, e - b + 1));
}

// Splits "a key=(1, 2) b" into words, keeping parenthesised lists together.
Result<std::vector<std::string>> words(std::string_view line) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : line) {
    if (c == '(') ++depth;
    if (c == ')') {
      if (depth == 0) return Status(StatusCode::kInvalidArgument, "unbalanced ')'");
      --depth;
    }
    if ((c == ' ' || c == '\t') && depth == 0) {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
      continue;
    }
    cur += c;
  }
  if (depth != 0) return Status(StatusCode::kInvalidArgument, "unbalanced '('");
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

}  // namespace

std::vector<std::string> Command::positional() const {
  std::vector<std::string> out;
  for (const Arg& a : args)
    if (a.values.empty()) out.push_back(a.key);
  return out;
}

std::optional<std::vector<std::string>> Command::find(std::string_view key) const {
  for (const Arg& a : args)
    if (!a.values.empty() && a.key == key) return a.values;
  return std::nullopt;
}

Result<Script> parse(std::string_view file_name, std::string_view text) {
  std::vector<std::string> lines = split_lines(text);
  std::vector<Command> commands;
  std::vector<std::string> preamble;
  auto error = [&](size_t i, const std::string& what) {
    return Status(StatusCode::kInvalidArgument,
                  std::string(file_name) + ":" + std::to_string(i + 1) + ": " + what);
  };
  size_t i = 0;
  while (i < lines.size()) {
    std::string line = trim(lines[i]);
    if (line.empty() || line[0] == '#') {
      preamble.push_back(lines[i]);
      ++i;
      continue;
    }
    Command cmd;
    cmd.line = static_cast<int>(i + 1);
    cmd.preamble = std::move(preamble);
    preamble.clear();
    auto w = words(line);
    if (!w.is_ok()) return error(i, w.status().message());
    cmd.name = (*w)[0];
    for (size_t k = 1; k < w->size(); ++k) {
      const std::string& word = (*w)[k];
      size_t eq = word.find('=');
      if (eq == std::string::npos) {
        cmd.args.push_back(Arg{word, {}});
        continue;
      }
      Arg arg{word.substr(0, eq), {}};
      std::string value = word.substr(eq + 1);
      if (!value.empty() && value.front() == '(') {
        if (value.back() != ')') return error(i, "expected ')' at the end of '" + word + "'");
        std::string inner = value.substr(1, value.size() - 2);
        size_t start = 0;
        while (start <= inner.size()) {
          size_t comma = inner.find(',', start);
          if (comma == std::string::npos) comma = inner.size();
          std::string v = trim(std::string_view(inner).substr(start, comma - start));
          if (!v.empty()) arg.values.push_back(v);
          start = comma + 1;
        }
        if (arg.values.empty()) arg.values.push_back("");  // key=() still counts as present
      } else {
        if (value.empty()) return error(i, "expected a value after '" + arg.key + "='");
        arg.values.push_back(value);
      }
      cmd.args.push_back(std::move(arg));
    }
    ++i;
    if (i >= lines.size() || trim(lines[i]) != "----")
      return error(i < lines.size() ? i : lines.size() - 1, "expected '----' after command '" + cmd.name + "'");
    ++i;
    std::string expected;
    while (i < lines.size() && !trim(lines[i]).empty()) {
      if (!expected.empty()) expected += '\n';
      expected += lines[i];
      ++i;
    }
    cmd.expected = std::move(expected);
    commands.push_back(std::move(cmd));
  }
  return Script{std::move(commands), std::move(preamble)};
}

std::string render(const Script& script, const std::vector<std::string>& outputs) {
  const std::vector<Command>& commands = script.commands;
  DST_ASSERT_EQ(commands.size(), outputs.size());
  std::string out;
  for (size_t k = 0; k < commands.size(); ++k) {
    const Command& c = commands[k];
    for (const std::string& p : c.preamble) out += p + "\n";
    out += c.name;
    for (const Arg& a : c.args) {
      out += " " + a.key;
      if (a.values.empty()) continue;
      out += "=";
      if (a.values.size() == 1 && a.values[0].find_first_of(",() ") == std::string::npos && !a.values[0].empty()) {
        out += a.values[0];
        continue;
      }
      out += "(";
      for (size_t v = 0; v < a.values.size(); ++v) out += (v ? "," : "") + a.values[v];
      out += ")";
    }
    out += "\n----\n" + outputs[k] + "\n";
  }
  for (const std::string& p : script.trailer) out += p + "\n";
  return out;
}

}  // namespace dst::datadriven
