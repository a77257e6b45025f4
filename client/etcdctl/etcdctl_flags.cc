#include "client/etcdctl/etcdctl_flags.h"

#include "client/etcdctl/go_format.h"

namespace dst::etcdctl {

namespace {

Status error(std::string message) { return Status(StatusCode::kInvalidArgument, std::move(message)); }

const FlagSpec* find_long(const std::vector<FlagSpec>& specs, std::string_view name) {
  for (const FlagSpec& s : specs)
    if (s.name == name) return &s;
  return nullptr;
}

const FlagSpec* find_short(const std::vector<FlagSpec>& specs, char c) {
  for (const FlagSpec& s : specs)
    if (s.shorthand != 0 && s.shorthand == c) return &s;
  return nullptr;
}

// pflag names a flag in value errors as "--name" or "-s, --name".
std::string display_name(const FlagSpec& spec) {
  std::string out;
  if (spec.shorthand != 0) out = std::string("-") + spec.shorthand + ", ";
  return out + "--" + std::string(spec.name);
}

Result<std::string> validate(const FlagSpec& spec, const std::string& value) {
  auto invalid = [&](const Status& why) {
    return error("invalid argument " + go_quote(value) + " for " + go_quote(display_name(spec)) +
                 " flag: " + why.message());
  };
  if (spec.kind == FlagKind::kBool) {
    auto b = go_parse_bool(value);
    if (!b.is_ok()) return invalid(b.status());
    return std::string(*b ? "true" : "false");
  }
  if (spec.kind == FlagKind::kInt64) {
    auto n = go_parse_int(value, 10);
    if (!n.is_ok()) return invalid(n.status());
  }
  if (spec.kind == FlagKind::kDuration) {
    auto d = go_parse_duration(value);
    if (!d.is_ok()) return invalid(d.status());
  }
  return value;
}

}  // namespace

bool ParsedFlags::get_bool(std::string_view name) const {
  auto it = values_.find(std::string(name));
  return it != values_.end() && it->second == "true";
}

int64_t ParsedFlags::get_int(std::string_view name, int64_t fallback) const {
  auto it = values_.find(std::string(name));
  if (it == values_.end()) return fallback;
  auto n = go_parse_int(it->second, 10);
  DST_ASSERT_MSG(n.is_ok(), "int flag validated while parsing");
  return *n;
}

std::string ParsedFlags::get_string(std::string_view name, std::string_view fallback) const {
  auto it = values_.find(std::string(name));
  return it == values_.end() ? std::string(fallback) : it->second;
}

int64_t ParsedFlags::get_duration_ns(std::string_view name, int64_t fallback) const {
  auto it = values_.find(std::string(name));
  if (it == values_.end()) return fallback;
  auto d = go_parse_duration(it->second);
  DST_ASSERT_MSG(d.is_ok(), "duration flag validated while parsing");
  return *d;
}

std::vector<std::string> ParsedFlags::get_slice(std::string_view name) const {
  std::vector<std::string> out;
  auto it = values_.find(std::string(name));
  if (it == values_.end()) return out;
  size_t begin = 0;
  for (;;) {
    const size_t comma = it->second.find(',', begin);
    out.push_back(it->second.substr(begin, comma - begin));
    if (comma == std::string::npos) return out;
    begin = comma + 1;
  }
}

Result<ParsedFlags> parse_flags(const std::vector<std::string>& args, const std::vector<FlagSpec>& specs) {
  ParsedFlags out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      out.positional_.insert(out.positional_.end(), args.begin() + static_cast<long>(i) + 1, args.end());
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      out.positional_.push_back(arg);
      continue;
    }
    const FlagSpec* spec = nullptr;
    std::string value;
    bool has_value = false;
    if (arg[1] == '-') {
      const std::string body = arg.substr(2);
      const size_t eq = body.find('=');
      const std::string name = body.substr(0, eq);
      spec = find_long(specs, name);
      if (spec == nullptr) return error("unknown flag: --" + name);
      if (eq != std::string::npos) value = body.substr(eq + 1), has_value = true;
    } else {
      // Only the first shorthand is looked at; "-wjson" and "-w=json" carry the value inline.
      spec = find_short(specs, arg[1]);
      if (spec == nullptr)
        return error(std::string("unknown shorthand flag: '") + arg[1] + "' in " + arg);
      if (arg.size() > 2) {
        value = arg.substr(arg[2] == '=' ? 3 : 2);
        has_value = true;
      }
    }
    if (!has_value) {
      if (spec->kind == FlagKind::kBool) {
        value = "true";
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        return error(arg[1] == '-' ? "flag needs an argument: --" + std::string(spec->name)
                                   : std::string("flag needs an argument: '") + arg[1] + "' in " + arg);
      }
    }
    auto checked = validate(*spec, value);
    if (!checked.is_ok()) return checked.status();
    const bool append = spec->kind == FlagKind::kStringSlice && out.has(spec->name);
    std::string& slot = out.values_[std::string(spec->name)];
    slot = append ? slot + "," + *checked : *checked;
  }
  return out;
}

}  // namespace dst::etcdctl
