// See bench_json.h.
#include "bench/bench_json.h"

#include <cmath>
#include <cstdio>

namespace dst::bench {

namespace {

void append_string(std::string& out, const std::string& text) {
  out += '"';
  for (const unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
}

void append_number(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", value);
  out += text;
}

void append_run(std::string& out, const BenchRecord& run) {
  out += "{\"name\": ";
  append_string(out, run.name);
  out += ", \"run_type\": ";
  append_string(out, run.run_type);
  if (!run.aggregate.empty()) {
    out += ", \"aggregate\": ";
    append_string(out, run.aggregate);
  }
  out += ", \"repetition\": " + std::to_string(run.repetition);
  out += ", \"iterations\": " + std::to_string(run.iterations);
  out += ", \"real_time_ns\": ";
  append_number(out, run.real_time_ns);
  out += ", \"cpu_time_ns\": ";
  append_number(out, run.cpu_time_ns);
  out += ", \"counters\": {";
  bool first = true;
  for (const auto& [key, value] : run.counters) {
    if (!first) out += ", ";
    first = false;
    append_string(out, key);
    out += ": ";
    append_number(out, value);
  }
  out += "}, \"error\": ";
  if (run.error.empty()) out += "null";
  else append_string(out, run.error);
  out += '}';
}

}  // namespace

std::string bench_json(const std::string& suite, const std::vector<BenchRecord>& runs) {
  std::vector<const BenchRecord*> failed;
  for (const BenchRecord& run : runs)
    if (!run.error.empty()) failed.push_back(&run);
  std::string out = "{\"suite\": ";
  append_string(out, suite);
  out += failed.empty() ? ", \"ok\": true" : ", \"ok\": false";
  out += ", \"failed\": [";
  for (size_t i = 0; i < failed.size(); ++i) {
    if (i > 0) out += ", ";
    append_string(out, failed[i]->name);
  }
  out += "],\n \"runs\": [";
  for (size_t i = 0; i < runs.size(); ++i) {
    out += i == 0 ? "\n  " : ",\n  ";
    append_run(out, runs[i]);
  }
  out += "\n]}\n";
  return out;
}

}  // namespace dst::bench
