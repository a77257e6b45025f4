// See register_histories.h.
#include "bench/register_histories.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <tuple>
#include <utility>

#include "base/assert.h"
#include "sim/rng.h"

namespace dst::bench {

namespace {

constexpr int kValues = 5;     // Jepsen's etcd test writes 0..4
constexpr int64_t kAbsent = -1;  // the register before its first write: nil

enum class Fn : uint8_t { kRead, kWrite, kCas };

struct GenOp {
  size_t slot = 0;       // the worker thread; its process number changes after a timeout
  uint64_t process = 0;
  int64_t call = 0, point = 0, ret = 0;  // it takes effect at `point`, call <= point <= ret
  Fn fn = Fn::kRead;
  int64_t a = 0, b = 0;  // write's value; cas's expected and new value
  bool timed_out = false;
  bool ok = true;        // a cas's compare matched
  int64_t read = kAbsent;
};

// The workers' operations back to back, each worker's in order, until there are `n`.
std::vector<GenOp> draw_intervals(const RegisterHistoryShape& shape, sim::Rng& rng) {
  std::vector<int64_t> cursor(shape.processes);
  for (int64_t& c : cursor) c = rng.uniform_int(0, 2'000);
  std::vector<GenOp> ops;
  ops.reserve(shape.operations);
  while (ops.size() < shape.operations) {
    const size_t slot = static_cast<size_t>(std::min_element(cursor.begin(), cursor.end()) - cursor.begin());
    GenOp op;
    op.slot = slot;
    op.call = cursor[slot] + rng.uniform_int(0, 2'000);
    op.timed_out = rng.bernoulli(shape.timeout_probability);
    op.ret = op.call + (op.timed_out ? rng.uniform_int(10'000, 20'000) : rng.uniform_int(500, 8'000));
    op.point = rng.uniform_int(op.call, op.ret);
    const uint64_t kind = rng.uniform_u64(10);
    op.fn = kind < 4 ? Fn::kRead : kind < 7 ? Fn::kWrite : Fn::kCas;
    op.a = rng.uniform_int(0, kValues - 1);
    op.b = rng.uniform_int(0, kValues - 1);
    cursor[slot] = op.ret + 1;
    ops.push_back(op);
  }
  return ops;
}

// Applies the operations at their points, in that order: the results a true register gives, but
// for the anomalies. A timed-out write or cas takes effect or not, at random.
void apply_in_point_order(std::vector<GenOp>& ops, const RegisterHistoryShape& shape, sim::Rng& rng) {
  std::vector<size_t> order(ops.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return ops[x].point < ops[y].point; });
  int64_t state = kAbsent, before = kAbsent;
  for (size_t i : order) {
    GenOp& op = ops[i];
    const bool anomaly = rng.bernoulli(shape.anomaly_probability);
    const bool takes_effect = !op.timed_out || rng.bernoulli(0.5);
    switch (op.fn) {
      case Fn::kRead:
        op.read = !anomaly ? state : rng.bernoulli(0.5) ? before : rng.uniform_int(0, kValues - 1);
        break;
      case Fn::kWrite:
        if (takes_effect && !anomaly) before = std::exchange(state, op.a);  // an anomaly: acknowledged, lost
        break;
      case Fn::kCas:
        op.ok = state == op.a;
        if (op.ok && takes_effect) before = std::exchange(state, op.b);
        break;
    }
  }
}

// Jepsen gives a worker a new process number after an operation it cannot know the outcome of.
void number_processes(std::vector<GenOp>& ops, size_t processes) {
  std::vector<uint64_t> current(processes);
  for (size_t s = 0; s < processes; ++s) current[s] = s;
  for (GenOp& op : ops) {  // each worker's operations are in call order
    op.process = current[op.slot];
    if (op.timed_out && op.fn != Fn::kRead) current[op.slot] += processes;
  }
}

std::string value_text(const GenOp& op) {
  if (op.fn == Fn::kCas) return "[" + std::to_string(op.a) + " " + std::to_string(op.b) + "]";
  if (op.fn == Fn::kWrite) return std::to_string(op.a);
  return "nil";
}

std::string line(const GenOp& op, bool invoke) {
  static const char* const kF[] = {":read", ":write", ":cas"};
  std::string type = ":ok", value = value_text(op);
  if (invoke) {
    type = ":invoke";
  } else if (op.timed_out) {
    type = op.fn == Fn::kRead ? ":fail" : ":info";  // a read changes nothing: Jepsen fails it
    value = ":timed-out";
  } else if (op.fn == Fn::kRead) {
    value = op.read == kAbsent ? "nil" : std::to_string(op.read);
  } else if (op.fn == Fn::kCas && !op.ok) {
    type = ":fail";
  }
  return "INFO  jepsen.util - " + std::to_string(op.process) + "\t" + type + "\t" + kF[static_cast<int>(op.fn)] +
         "\t" + value + "\n";
}

}  // namespace

std::string make_register_history(const RegisterHistoryShape& shape, uint64_t seed) {
  DST_ASSERT(shape.processes >= 1 && shape.processes <= 1000 && shape.operations <= 1'000'000);
  sim::Rng rng(seed);
  std::vector<GenOp> ops = draw_intervals(shape, rng);
  apply_in_point_order(ops, shape, rng);
  number_processes(ops, shape.processes);
  // Lines in time order; at one time invocations first, so that touching intervals overlap.
  std::vector<std::tuple<int64_t, int, size_t>> events;
  for (size_t i = 0; i < ops.size(); ++i) {
    events.emplace_back(ops[i].call, 0, i);
    events.emplace_back(ops[i].ret, 1, i);
  }
  std::sort(events.begin(), events.end());
  std::string out;
  for (const auto& [time, kind, i] : events) out += line(ops[i], kind == 0);
  return out;
}

Result<std::vector<std::string>> write_register_set(const std::string& dir, uint64_t seed, size_t count) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status(StatusCode::kIoError, dir + ": cannot create the directory: " + ec.message());
  sim::Rng rng(seed);
  std::vector<std::string> paths;
  for (size_t i = 0; i < count; ++i) {
    RegisterHistoryShape shape;
    shape.operations = static_cast<size_t>(rng.uniform_int(60, 200));
    shape.processes = static_cast<size_t>(rng.uniform_int(5, 15));
    shape.timeout_probability = rng.uniform_real(0.02, 0.08);
    shape.anomaly_probability = i % 2 == 1 ? rng.uniform_real(0.03, 0.12) : 0.0;
    char name[32];
    std::snprintf(name, sizeof name, "register-%03zu.log", i);
    const std::string path = dir + "/" + name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << make_register_history(shape, rng.next_u64());
    if (!out) return Status(StatusCode::kIoError, path + ": cannot write the file");
    paths.push_back(path);
  }
  return paths;
}

}  // namespace dst::bench
