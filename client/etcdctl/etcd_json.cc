#include "client/etcdctl/etcd_json.h"

#include "base/assert.h"

namespace dst::etcdctl {

namespace {

// Builds one JSON object, skipping zero values as Go's `omitempty` does.
class Object {
 public:
  Object& number(const char* name, int64_t v) {
    if (v != 0) field(name, std::to_string(v));
    return *this;
  }
  Object& unsigned_number(const char* name, uint64_t v) {
    if (v != 0) field(name, std::to_string(v));
    return *this;
  }
  Object& boolean(const char* name, bool v) {
    if (v) field(name, "true");
    return *this;
  }
  Object& bytes(const char* name, const std::string& v) {
    if (!v.empty()) field(name, "\"" + base64(v) + "\"");
    return *this;
  }
  // `json` is already rendered; empty objects are omitted (like a nil pointer).
  Object& object(const char* name, const std::string& json) {
    if (json != "{}") field(name, json);
    return *this;
  }
  Object& array(const char* name, const std::string& items, bool empty) {
    if (!empty) field(name, "[" + items + "]");
    return *this;
  }
  std::string str() const { return "{" + body_ + "}"; }

 private:
  void field(const char* name, const std::string& value) {
    if (!body_.empty()) body_ += ",";
    body_ += "\"" + std::string(name) + "\":" + value;
  }
  std::string body_;
};

template <typename Repeated>
std::string join(const Repeated& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ",") + to_json(item);
  return out;
}

std::string response_op(const etcdserverpb::ResponseOp& op) {
  const char* name = nullptr;
  std::string inner;
  switch (op.response_case()) {
    case etcdserverpb::ResponseOp::kResponseRange:
      name = "ResponseRange";
      inner = to_json(op.response_range());
      break;
    case etcdserverpb::ResponseOp::kResponsePut:
      name = "ResponsePut";
      inner = to_json(op.response_put());
      break;
    case etcdserverpb::ResponseOp::kResponseDeleteRange:
      name = "ResponseDeleteRange";
      inner = to_json(op.response_delete_range());
      break;
    case etcdserverpb::ResponseOp::kResponseTxn:
      name = "ResponseTxn";
      inner = to_json(op.response_txn());
      break;
    default: return "{}";
  }
  return "{\"Response\":{\"" + std::string(name) + "\":" + inner + "}}";
}

}  // namespace

std::string base64(std::string_view bytes) {
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t v = (static_cast<uint8_t>(bytes[i]) << 16) | (static_cast<uint8_t>(bytes[i + 1]) << 8) |
                 static_cast<uint8_t>(bytes[i + 2]);
    for (int shift : {18, 12, 6, 0}) out += kAlphabet[(v >> shift) & 63];
  }
  if (size_t rest = bytes.size() - i; rest > 0) {
    uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
    if (rest == 2) v |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string to_json(const etcdserverpb::ResponseHeader& h) {
  return Object()
      .unsigned_number("cluster_id", h.cluster_id())
      .unsigned_number("member_id", h.member_id())
      .number("revision", h.revision())
      .unsigned_number("raft_term", h.raft_term())
      .str();
}

std::string to_json(const mvccpb::KeyValue& kv) {
  return Object()
      .bytes("key", kv.key())
      .number("create_revision", kv.create_revision())
      .number("mod_revision", kv.mod_revision())
      .number("version", kv.version())
      .bytes("value", kv.value())
      .number("lease", kv.lease())
      .str();
}

std::string to_json(const etcdserverpb::RangeResponse& r) {
  return Object()
      .object("header", to_json(r.header()))
      .array("kvs", join(r.kvs()), r.kvs().empty())
      .boolean("more", r.more())
      .number("count", r.count())
      .str();
}

std::string to_json(const etcdserverpb::PutResponse& r) {
  return Object()
      .object("header", to_json(r.header()))
      .object("prev_kv", r.has_prev_kv() ? to_json(r.prev_kv()) : "{}")
      .str();
}

std::string to_json(const etcdserverpb::DeleteRangeResponse& r) {
  return Object()
      .object("header", to_json(r.header()))
      .number("deleted", r.deleted())
      .array("prev_kvs", join(r.prev_kvs()), r.prev_kvs().empty())
      .str();
}

std::string to_json(const etcdserverpb::TxnResponse& r) {
  std::string ops;
  for (const auto& op : r.responses()) ops += (ops.empty() ? "" : ",") + response_op(op);
  return Object()
      .object("header", to_json(r.header()))
      .boolean("succeeded", r.succeeded())
      .array("responses", ops, r.responses().empty())
      .str();
}

}  // namespace dst::etcdctl
