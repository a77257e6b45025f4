// See cli_args.h.
#include "tools/cli_args.h"
#include "base/parse_number.h"

#include <cstdio>

#include <charconv>

#include "sim/time.h"

namespace dst::cli {

Args::Args(std::string command, std::vector<std::string> argv)
    : command_(std::move(command)), argv_(std::move(argv)) {
  flag("help", "show this help");
}

void Args::flag(const std::string& name, const std::string& help) { specs_[name] = Spec{false, "", help}; }

void Args::option(const std::string& name, const std::string& value_name, const std::string& help) {
  specs_[name] = Spec{true, value_name, help};
}

void Args::positional(const std::string& name, const std::string& help, bool optional) {
  positional_specs_.push_back(PositionalSpec{name, help, optional});
}

void Args::more_positionals(size_t max) { more_max_ = max; }

Status Args::parse() {
  size_t next_positional = 0;
  for (size_t i = 0; i < argv_.size(); ++i) {
    const std::string& a = argv_[i];
    if (a == "--") {
      passthrough_.assign(argv_.begin() + static_cast<long>(i) + 1, argv_.end());
      break;
    }
    if (a == "-h") {
      values_["help"] = "";
      continue;
    }
    if (a.size() > 1 && a[0] == '-' && a[1] != '-') {
      return Status(StatusCode::kInvalidArgument,
                    command_ + ": unknown option '" + a + "' (options are spelled --name)");
    }
    if (a.rfind("--", 0) == 0) {
      std::string name = a.substr(2), inline_value;
      const size_t eq = name.find('=');
      const bool has_inline = eq != std::string::npos;
      if (has_inline) {
        inline_value = name.substr(eq + 1);
        name = name.substr(0, eq);
      }
      auto it = specs_.find(name);
      if (it == specs_.end()) {
        return Status(StatusCode::kInvalidArgument, command_ + ": unknown option '--" + name + "'");
      }
      // A second --seed would silently win over the first (or lose to it): refuse it instead.
      if (values_.count(name) != 0) {
        return Status(StatusCode::kInvalidArgument, command_ + ": --" + name + " is given more than once");
      }
      if (!it->second.takes_value) {
        if (has_inline) return Status(StatusCode::kInvalidArgument, command_ + ": --" + name + " takes no value");
        values_[name] = "";
      } else if (has_inline) {
        values_[name] = inline_value;
      } else if (i + 1 < argv_.size() && argv_[i + 1].rfind("--", 0) != 0) {
        values_[name] = argv_[++i];
      } else {
        return Status(StatusCode::kInvalidArgument,
                      command_ + ": --" + name + " expects a value (" + it->second.value_name + ")");
      }
      continue;
    }
    if (next_positional >= positional_specs_.size() && more_.size() < more_max_) {
      more_.push_back(a);
      continue;
    }
    if (next_positional >= positional_specs_.size()) {
      return Status(StatusCode::kInvalidArgument, command_ + ": unexpected argument '" + a + "'" +
                                                      (more_max_ > 0 ? " (at most " + std::to_string(more_max_) + " more)" : ""));
    }
    positionals_[positional_specs_[next_positional++].name] = a;
  }
  if (has("help")) return Status::ok();
  for (size_t i = next_positional; i < positional_specs_.size(); ++i) {
    if (!positional_specs_[i].optional) {
      return Status(StatusCode::kInvalidArgument, command_ + ": missing " + positional_specs_[i].name);
    }
  }
  return Status::ok();
}

bool Args::has(const std::string& name) const { return values_.count(name) != 0; }

std::optional<std::string> Args::value(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> Args::positional_value(const std::string& name) const {
  auto it = positionals_.find(name);
  if (it == positionals_.end()) return std::nullopt;
  return it->second;
}

Result<uint64_t> Args::u64(const std::string& name, uint64_t default_value) const {
  auto v = value(name);
  if (!v) return default_value;
  const std::optional<uint64_t> out = parse_u64(*v);
  if (!out) {
    return Status(StatusCode::kInvalidArgument,
                  command_ + ": --" + name + " expects an unsigned 64-bit integer, got '" + *v + "'");
  }
  return *out;
}

Result<int64_t> Args::duration_ns(const std::string& name, int64_t default_value, int64_t min, int64_t max) const {
  auto v = value(name);
  if (!v) return default_value;
  sim::DurationNs d;
  if (!sim::parse_duration(*v, &d)) {
    return Status(StatusCode::kInvalidArgument, command_ + ": --" + name +
                                                    " expects a duration like 500ms, 10s or 2m, got '" + *v + "'");
  }
  if (d < min || d > max) {
    return Status(StatusCode::kInvalidArgument, command_ + ": --" + name + " is " + sim::format_duration(d) +
                                                    "; expected " + sim::format_duration(min) + ".." +
                                                    sim::format_duration(max));
  }
  return d;
}

int Args::usage_error(const std::string& message) const {
  std::fprintf(stderr, "%s\n\n%s", message.c_str(), usage().c_str());
  return 2;  // tools/exit_codes.h: kExitUsage
}

std::string Args::usage() const {
  std::string out = "usage: " + command_ + " [options]";
  for (const PositionalSpec& p : positional_specs_) out += p.optional ? " [" + p.name + "]" : " " + p.name;
  if (more_max_ > 0) out += " ...";
  out += "\n";
  for (const PositionalSpec& p : positional_specs_) out += "  " + p.name + "\n      " + p.help + "\n";
  for (const auto& [name, spec] : specs_) {
    out += "  --" + name + (spec.takes_value ? " " + spec.value_name : "") + "\n      " + spec.help + "\n";
  }
  return out;
}

std::optional<int> Args::parse_or_exit(const std::string& more_help) {
  if (Status st = parse(); !st.is_ok()) {
    std::fprintf(stderr, "%s\n\n%s", st.message().c_str(), usage().c_str());
    return 2;  // tools/exit_codes.h: kExitUsage
  }
  if (has("help")) {
    std::printf("%s%s", usage().c_str(), more_help.c_str());
    return 0;  // kExitPass
  }
  return std::nullopt;
}

}  // namespace dst::cli
