#include "client/etcdctl/etcd_json.h"

#include <cstdio>

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
  Object& string(const char* name, const std::string& v) {
    if (!v.empty()) field(name, json_string(v));
    return *this;
  }
  // A field without omitempty: always present, value already rendered.
  Object& raw(const char* name, const std::string& json) {
    field(name, json);
    return *this;
  }
  // The fields of an embedded (anonymous) struct pointer, promoted into this object.
  Object& inline_fields(const std::string& json) {
    DST_ASSERT(json.size() >= 2 && json.front() == '{' && json.back() == '}');
    if (json.size() > 2) body_ += (body_.empty() ? "" : ",") + json.substr(1, json.size() - 2);
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

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<uint8_t>(text[i]);
    if (c >= 0x80) {
      // Keep valid UTF-8 as is; Go replaces each invalid byte with U+FFFD.
      size_t n = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c <= 0xdf ? 2 : 0;
      bool valid = n > 0 && i + n <= text.size();
      for (size_t k = 1; valid && k < n; ++k) valid = (static_cast<uint8_t>(text[i + k]) & 0xc0) == 0x80;
      if (valid) {
        out.append(text.substr(i, n));
        i += n;
      } else {
        out += "\\ufffd";
        ++i;
      }
      continue;
    }
    ++i;
    switch (c) {
      case '"': out += "\\\""; continue;
      case '\\': out += "\\\\"; continue;
      case '\n': out += "\\n"; continue;
      case '\r': out += "\\r"; continue;
      case '\t': out += "\\t"; continue;
      default: break;
    }
    if (c < 0x20 || c == '<' || c == '>' || c == '&') {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string to_json(const mvccpb::Event& e) {
  return Object()
      .number("type", e.type())
      .object("kv", e.has_kv() ? to_json(e.kv()) : "{}")
      .object("prev_kv", e.has_prev_kv() ? to_json(e.prev_kv()) : "{}")
      .str();
}

std::string watch_response_json(const etcdserverpb::WatchResponse& r) {
  return Object()
      .raw("Header", to_json(r.header()))
      .raw("Events", "[" + join(r.events()) + "]")
      .raw("CompactRevision", std::to_string(r.compact_revision()))
      .raw("Canceled", r.canceled() ? "true" : "false")
      .raw("Created", r.created() ? "true" : "false")
      .str();
}

std::string lease_grant_json(const etcdserverpb::LeaseGrantResponse& r) {
  return Object()
      .inline_fields(to_json(r.header()))
      .raw("ID", std::to_string(r.id()))
      .raw("TTL", std::to_string(r.ttl()))
      .raw("Error", json_string(r.error()))
      .str();
}

std::string lease_revoke_json(const etcdserverpb::LeaseRevokeResponse& r) {
  return Object().object("header", to_json(r.header())).str();
}

std::string lease_keep_alive_json(const etcdserverpb::LeaseKeepAliveResponse& r) {
  return Object()
      .inline_fields(to_json(r.header()))
      .raw("ID", std::to_string(r.id()))
      .raw("TTL", std::to_string(r.ttl()))
      .str();
}

std::string lease_time_to_live_json(const etcdserverpb::LeaseTimeToLiveResponse& r) {
  std::string keys;
  for (const std::string& k : r.keys()) keys += (keys.empty() ? "\"" : ",\"") + base64(k) + "\"";
  return Object()
      .inline_fields(to_json(r.header()))
      .raw("id", std::to_string(r.id()))
      .raw("ttl", std::to_string(r.ttl()))
      .raw("granted-ttl", std::to_string(r.grantedttl()))
      .raw("keys", r.keys().empty() ? "null" : "[" + keys + "]")  // a nil [][]byte marshals as null
      .str();
}

std::string lease_leases_json(const etcdserverpb::LeaseLeasesResponse& r) {
  std::string leases;
  for (const auto& l : r.leases()) leases += (leases.empty() ? "" : ",") + ("{\"id\":" + std::to_string(l.id()) + "}");
  return Object().inline_fields(to_json(r.header())).raw("leases", "[" + leases + "]").str();
}

std::string to_json(const etcdserverpb::AlarmResponse& r) {
  std::string alarms;
  for (const auto& a : r.alarms()) {
    alarms += (alarms.empty() ? "" : ",") +
              Object().unsigned_number("memberID", a.memberid()).number("alarm", a.alarm()).str();
  }
  return Object()
      .object("header", to_json(r.header()))
      .array("alarms", alarms, r.alarms().empty())
      .str();
}

std::string to_json(const etcdserverpb::StatusResponse& r) {
  std::string errors;
  for (const std::string& e : r.errors()) errors += (errors.empty() ? "" : ",") + json_string(e);
  return Object()
      .object("header", to_json(r.header()))
      .string("version", r.version())
      .number("dbSize", r.dbsize())
      .unsigned_number("leader", r.leader())
      .unsigned_number("raftIndex", r.raftindex())
      .unsigned_number("raftTerm", r.raftterm())
      .unsigned_number("raftAppliedIndex", r.raftappliedindex())
      .array("errors", errors, r.errors().empty())
      .number("dbSizeInUse", r.dbsizeinuse())
      .boolean("isLearner", r.islearner())
      .str();
}

std::string to_json(const etcdserverpb::HashKVResponse& r) {
  return Object()
      .object("header", to_json(r.header()))
      .unsigned_number("hash", r.hash())
      .number("compact_revision", r.compact_revision())
      .str();
}

namespace {

template <typename Strings>
std::string string_array(const Strings& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ",") + json_string(s);
  return out;
}

}  // namespace

namespace {

std::string member_json(const etcdserverpb::Member& m) {
  return Object()
      .unsigned_number("ID", m.id())
      .string("name", m.name())
      .array("peerURLs", string_array(m.peerurls()), m.peerurls().empty())
      .array("clientURLs", string_array(m.clienturls()), m.clienturls().empty())
      .boolean("isLearner", m.islearner())
      .str();
}

std::string members_json(const google::protobuf::RepeatedPtrField<etcdserverpb::Member>& members) {
  std::string out;
  for (const auto& m : members) out += (out.empty() ? "" : ",") + member_json(m);
  return out;
}

}  // namespace

std::string to_json(const etcdserverpb::MemberListResponse& r) {
  return Object()
      .object("header", to_json(r.header()))
      .array("members", members_json(r.members()), r.members().empty())
      .str();
}

std::string to_json(const etcdserverpb::MemberAddResponse& r) {
  Object o;
  o.object("header", to_json(r.header()));
  if (r.has_member()) o.object("member", member_json(r.member()));
  return o.array("members", members_json(r.members()), r.members().empty()).str();
}

std::string to_json(const etcdserverpb::MemberRemoveResponse& r) {
  return Object()
      .object("header", to_json(r.header()))
      .array("members", members_json(r.members()), r.members().empty())
      .str();
}

std::string to_json(const etcdserverpb::MemberPromoteResponse& r) {
  return Object()
      .object("header", to_json(r.header()))
      .array("members", members_json(r.members()), r.members().empty())
      .str();
}

std::string to_json(const etcdserverpb::MemberUpdateResponse& r) {
  return Object()
      .object("header", to_json(r.header()))
      .array("members", members_json(r.members()), r.members().empty())
      .str();
}

std::string endpoint_status_json(const std::vector<EndpointStatus>& statuses) {
  std::string out;
  for (const EndpointStatus& s : statuses) {
    out += (out.empty() ? "" : ",") +
           Object().raw("Endpoint", json_string(s.endpoint)).raw("Status", to_json(s.status)).str();
  }
  return "[" + out + "]";
}

std::string endpoint_hashkv_json(const std::vector<EndpointHashKV>& hashes) {
  std::string out;
  for (const EndpointHashKV& h : hashes) {
    out += (out.empty() ? "" : ",") +
           Object().raw("Endpoint", json_string(h.endpoint)).raw("HashKV", to_json(h.hash_kv)).str();
  }
  return "[" + out + "]";
}

std::string endpoint_health_json(const std::vector<EndpointHealth>& healths) {
  std::string out;
  for (const EndpointHealth& h : healths) {
    Object o;
    o.raw("endpoint", json_string(h.endpoint)).raw("health", h.health ? "true" : "false").raw("took", json_string(h.took));
    out += (out.empty() ? "" : ",") + o.string("error", h.error).str();
  }
  return "[" + out + "]";
}

}  // namespace dst::etcdctl
