#include "node/server/alarms.h"

#include "base/big_endian.h"

#include "base/probes.h"

namespace dst::node {

namespace {

constexpr std::string_view kAlarmBucket = "alarm";

// Backend key: member id (8 bytes, big endian) then the alarm type (1 byte), so rows sort as
// (member, type) like list() does.
std::string alarm_key(uint64_t member, int alarm) {
  std::string k = be64(member);
  k.push_back(static_cast<char>(alarm));
  return k;
}

etcdserverpb::AlarmMember member_of(uint64_t member, int alarm) {
  etcdserverpb::AlarmMember m;
  m.set_memberid(member);
  m.set_alarm(static_cast<etcdserverpb::AlarmType>(alarm));
  return m;
}

}  // namespace

Status AlarmStore::load(backend::Backend& backend) {
  alarms_.clear();
  Status bad;
  Status s = backend.range(kAlarmBucket, "", "", 0, [&](std::string_view k, std::string_view) {
    if (k.size() != 9 || !etcdserverpb::AlarmType_IsValid(static_cast<uint8_t>(k[8]))) {
      bad = Status(StatusCode::kCorruption, "alarm bucket: malformed key of " + std::to_string(k.size()) + " bytes");
      return false;
    }
    const uint64_t member = read_be(k.substr(0, 8));
    alarms_.emplace(member, static_cast<uint8_t>(k[8]));
    return true;
  });
  return s.is_ok() ? bad : s;
}

Result<std::vector<etcdserverpb::AlarmMember>> AlarmStore::activate(backend::Backend& backend, uint64_t member,
                                                                    etcdserverpb::AlarmType alarm) {
  std::vector<etcdserverpb::AlarmMember> changed;
  if (alarm == etcdserverpb::NONE) return changed;  // etcd ignores it too
  if (alarms_.emplace(member, alarm).second) {
    if (alarm == etcdserverpb::NOSPACE) DST_PROBE(kServerNospaceRaised);
    Status s = backend.put(kAlarmBucket, alarm_key(member, alarm), "");
    if (!s.is_ok()) return s;
  }
  changed.push_back(member_of(member, alarm));
  return changed;
}

Result<std::vector<etcdserverpb::AlarmMember>> AlarmStore::deactivate(backend::Backend& backend, uint64_t member,
                                                                      etcdserverpb::AlarmType alarm) {
  std::vector<etcdserverpb::AlarmMember> changed;
  if (alarms_.erase({member, alarm}) == 0) return changed;
  if (alarm == etcdserverpb::NOSPACE) DST_PROBE(kServerNospaceCleared);
  Status s = backend.del(kAlarmBucket, alarm_key(member, alarm));
  if (!s.is_ok()) return s;
  changed.push_back(member_of(member, alarm));
  return changed;
}

std::vector<etcdserverpb::AlarmMember> AlarmStore::list() const {
  std::vector<etcdserverpb::AlarmMember> out;
  for (const auto& [member, alarm] : alarms_) out.push_back(member_of(member, alarm));
  return out;
}

bool AlarmStore::raised(etcdserverpb::AlarmType alarm) const {
  for (const auto& a : alarms_)
    if (a.second == alarm) return true;
  return false;
}

std::string alarm_text(const etcdserverpb::AlarmMember& m) {
  return "memberID:" + std::to_string(m.memberid()) + " alarm:" + etcdserverpb::AlarmType_Name(m.alarm()) + " ";
}

}  // namespace dst::node
