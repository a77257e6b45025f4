// A move-only `void()` callable with inline storage for small captures.
//
// Events carry callbacks; std::function needs copyable targets (so it cannot hold a moved-in message
// or a unique_ptr) and allocates for captures over 16 bytes. Most event captures fit in 48 bytes.
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

#include "base/assert.h"

namespace dst::sim {

class UniqueFunction {
 public:
  UniqueFunction() = default;

  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, UniqueFunction>>>
  UniqueFunction(F&& f) {  // NOLINT: implicit, like std::function
    using Fn = std::decay_t<F>;
    if constexpr (sizeof(Fn) <= kInlineBytes && alignof(Fn) <= alignof(std::max_align_t) &&
                  std::is_nothrow_move_constructible_v<Fn>) {
      new (storage_) Fn(std::forward<F>(f));
      ops_ = &inline_ops<Fn>;
    } else {
      *reinterpret_cast<Fn**>(storage_) = new Fn(std::forward<F>(f));
      ops_ = &heap_ops<Fn>;
    }
  }

  UniqueFunction(UniqueFunction&& other) noexcept { take(std::move(other)); }
  UniqueFunction& operator=(UniqueFunction&& other) noexcept {
    if (this != &other) {
      reset();
      take(std::move(other));
    }
    return *this;
  }
  UniqueFunction(const UniqueFunction&) = delete;
  UniqueFunction& operator=(const UniqueFunction&) = delete;
  ~UniqueFunction() { reset(); }

  explicit operator bool() const { return ops_ != nullptr; }

  void operator()() {
    DST_ASSERT_MSG(ops_ != nullptr, "calling an empty UniqueFunction");
    ops_->call(storage_);
  }

  void reset() {
    if (ops_ != nullptr) {
      ops_->destroy(storage_);
      ops_ = nullptr;
    }
  }

 private:
  static constexpr size_t kInlineBytes = 48;

  struct Ops {
    void (*call)(void* storage);
    void (*move)(void* from, void* to);  // move-constructs into `to` and destroys `from`
    void (*destroy)(void* storage);
  };

  template <typename Fn>
  static constexpr Ops inline_ops = {
      [](void* s) { (*std::launder(reinterpret_cast<Fn*>(s)))(); },
      [](void* from, void* to) {
        Fn* f = std::launder(reinterpret_cast<Fn*>(from));
        new (to) Fn(std::move(*f));
        f->~Fn();
      },
      [](void* s) { std::launder(reinterpret_cast<Fn*>(s))->~Fn(); },
  };

  template <typename Fn>
  static constexpr Ops heap_ops = {
      [](void* s) { (**reinterpret_cast<Fn**>(s))(); },
      [](void* from, void* to) { *reinterpret_cast<Fn**>(to) = *reinterpret_cast<Fn**>(from); },
      [](void* s) { delete *reinterpret_cast<Fn**>(s); },
  };

  void take(UniqueFunction&& other) {
    if (other.ops_ != nullptr) {
      other.ops_->move(other.storage_, storage_);
      ops_ = other.ops_;
      other.ops_ = nullptr;
    }
  }

  alignas(std::max_align_t) unsigned char storage_[kInlineBytes];
  const Ops* ops_ = nullptr;
};

}  // namespace dst::sim
