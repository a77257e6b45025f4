// Internal to the etcd report importer (import_etcd_report.h): reading the fields of a report's
// JSON records, and the readers of one operation and one watch record.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "base/json_value.h"
#include "base/status.h"
#include "history/etcd_report_format.h"
#include "history/history.h"

namespace dst::history::report_import {

using json::Value;

// Reads the fields of one file's records as Go's encoding/json would: a missing field or null is
// the zero value, names match case-insensitively when no exact match. The first error is kept
// (naming the file, the line and the field) and later reads return zero values, so each reader
// function stays straight-line; the caller checks ok() once per record.
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}
  bool ok() const { return !error_.has_value(); }
  const Status& error() const { return *error_; }

  void fail(const Value& at, const std::string& what) {
    if (!error_) error_ = Status(StatusCode::kInvalidArgument, file_ + ":" + std::to_string(at.line()) + ": " + what);
  }
  // Where an error about field `name` points: the field when present, else its object.
  const Value& at(const Value& obj, std::string_view name) {
    const Value* v = obj.is_object() ? obj.find_folded(name) : nullptr;
    return v == nullptr ? obj : *v;
  }
  // The member `name` of an object, or nullptr when missing or null.
  const Value* get(const Value& obj, std::string_view name) {
    if (!obj.is_object()) {
      fail(obj, "expected a JSON object");
      return nullptr;
    }
    const Value* v = obj.find_folded(name);
    return v == nullptr || v->is_null() ? nullptr : v;
  }
  const Value* object(const Value& obj, std::string_view name) { return typed(obj, name, Value::Kind::kObject, "an object"); }
  const Value* array(const Value& obj, std::string_view name) { return typed(obj, name, Value::Kind::kArray, "an array"); }
  int64_t int64(const Value& obj, std::string_view name) {
    const Value* v = typed(obj, name, Value::Kind::kNumber, "an integer");
    if (v == nullptr) return 0;
    std::optional<int64_t> n = v->as_int64();
    if (!n) fail(*v, std::string(name) + ": expected an integer that fits 64 bits, got " + v->number_text());
    return n.value_or(0);
  }
  bool boolean(const Value& obj, std::string_view name) {
    const Value* v = typed(obj, name, Value::Kind::kBool, "true or false");
    return v != nullptr && v->as_bool();
  }
  std::string string(const Value& obj, std::string_view name) {
    const Value* v = typed(obj, name, Value::Kind::kString, "a string");
    return v == nullptr ? std::string() : v->as_string();
  }
  // A ValueOrHash ({"Value": "..."} or {"Hash": n}) as the canonical value (etcd_report_format.h).
  std::string value(const Value& obj, std::string_view name);

 private:
  const Value* typed(const Value& obj, std::string_view name, Value::Kind kind, const char* expected) {
    const Value* v = get(obj, name);
    if (v != nullptr && v->kind() != kind) {
      fail(*v, std::string(name) + ": expected " + expected);
      return nullptr;
    }
    return v;
  }
  std::string file_;
  std::optional<Status> error_;
};

inline std::string Reader::value(const Value& obj, std::string_view name) {
  const Value* v = object(obj, name);
  if (v == nullptr) return "";
  // Hash 0 is Go's zero value: "no hash" (reports before etcd 3546091f wrote it beside every value).
  const Value* hash = get(*v, "Hash");
  if (hash == nullptr || (hash->is_number() && hash->number_text() == "0"))
    return etcd_report::canonical_value(string(*v, "Value"));
  std::optional<uint64_t> h = hash->is_number() ? hash->as_uint64() : std::nullopt;
  if (!h || *h > std::numeric_limits<uint32_t>::max()) {
    fail(*hash, std::string(name) + ".Hash: expected a 32-bit FNV-1a hash (an integer below 2^32)");
    return "";
  }
  return etcd_report::hash_token(static_cast<uint32_t>(*h));
}


// One operations.json record (a Porcupine operation of an etcd request and response) as an
// operation without its id and member; false when it has no effect worth checking (a
// defragmentation). `member_id`: the answering member's id as the report writes it (hex; "" when
// not recorded).
bool read_operation(Reader& r, const Value& record, Operation* op, std::string* member_id);

// One watch.json record (a WatchOperation) as a watch of one segment, without its id.
void read_watch(Reader& r, const Value& record, Watch* w);

}  // namespace dst::history::report_import
