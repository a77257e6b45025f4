// Where clients report what they see, as it happens: an operation at its invocation and again at
// its return, each watch segment and response. The in-memory recorder keeps a History; the run
// database's writer (history/run_db.h) persists the same calls incrementally, so a run that is
// killed still leaves everything up to that moment.
#pragma once

#include <cstdint>

#include "history/history.h"

namespace dst::history {

class Recorder {
 public:
  virtual ~Recorder() = default;
  // An operation was sent: returns its id (dense, in invocation order). `op.id` is ignored.
  virtual uint64_t invoke(const Operation& op) = 0;
  // Its answer (or the client's giving up) arrived.
  virtual void complete(uint64_t id, Outcome outcome, const etcdserverpb::ApiResponse& response, int64_t return_ns) = 0;
  // A logical watch starts (returns its id), and each of its segments / responses / breaks.
  virtual uint64_t watch_started(uint32_t client) = 0;
  virtual void segment_started(uint64_t watch, const WatchSegment& segment) = 0;
  virtual void watch_response(uint64_t watch, const WatchResponse& response) = 0;
  virtual void segment_broken(uint64_t watch) = 0;
  virtual uint64_t fault_started(const Fault& fault) = 0;
  virtual void fault_ended(uint64_t fault, int64_t end_ns) = 0;
};

// Keeps everything in a History (bounded by the caller's run length; asserts past the limits).
class MemoryRecorder : public Recorder {
 public:
  uint64_t invoke(const Operation& op) override;
  void complete(uint64_t id, Outcome outcome, const etcdserverpb::ApiResponse& response, int64_t return_ns) override;
  uint64_t watch_started(uint32_t client) override;
  void segment_started(uint64_t watch, const WatchSegment& segment) override;
  void watch_response(uint64_t watch, const WatchResponse& response) override;
  void segment_broken(uint64_t watch) override;
  uint64_t fault_started(const Fault& fault) override;
  void fault_ended(uint64_t fault, int64_t end_ns) override;

  const History& history() const { return history_; }
  History& history() { return history_; }

 private:
  History history_;
};

}  // namespace dst::history
