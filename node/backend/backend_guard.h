// Backend::Guard, shared by backend.cc and backend_open.cc (an implementation detail).
#pragma once

#include <string>

#include "node/backend/backend.h"

namespace dst::backend {

// Held for the length of every public call: waits while another fiber is inside SQLite (which it
// may be for an fsync's duration), then reseeds SQLite's PRNG.
//
// SQLite draws WAL salts and journal nonces from one process-wide PRNG, seeded from the default
// VFS (/dev/urandom) unless a test-control seed is set. Seeding it from the simulator at the start
// of every call makes every draw a function of the seed and of the (deterministic) order of calls,
// whatever ran before in this OS process.
class Backend::Guard {
 public:
  explicit Guard(Backend& b) : b_(b) {
    DST_ASSERT_MSG(!b.visiting_, "a range() visitor called its Backend");
    while (b.busy_) {
      const sim::WaitResult r = b.lock_waiters_.wait();
      if (r != sim::WaitResult::kOk) {
        status_ = Status(StatusCode::kCancelled,
                         std::string("waiting for the backend: ") + sim::wait_result_name(r));
        return;
      }
    }
    b.busy_ = true;
    held_ = true;
    b.reseed_sqlite_prng();
  }
  ~Guard() {
    if (!held_) return;
    b_.busy_ = false;
    b_.lock_waiters_.notify_all();
  }
  Guard(const Guard&) = delete;
  Guard& operator=(const Guard&) = delete;
  // Not ok if the wait was cancelled, or the Backend is failed or closed.
  Status status() const { return status_.is_ok() ? b_.check_usable() : status_; }

 private:
  Backend& b_;
  bool held_ = false;
  Status status_;
};

}  // namespace dst::backend
