#include "client/mix_draw.h"

#include <algorithm>
#include <array>
#include <cstdio>

#include "base/assert.h"

namespace dst::client {

namespace {

// kWrite: writes values the reads can find (deletes and revokes only take them away).
enum class Role { kRead, kWrite, kOther };

struct WeightField {
  const char* name;
  uint64_t KvMix::*field;
  Role role;
};

constexpr std::array<WeightField, 14> kKinds = {{{"get", &KvMix::get, Role::kRead},
                                                 {"stale_get", &KvMix::stale_get, Role::kRead},
                                                 {"list", &KvMix::list, Role::kRead},
                                                 {"scan", &KvMix::scan, Role::kRead},
                                                 {"put", &KvMix::put, Role::kWrite},
                                                 {"del", &KvMix::del, Role::kOther},
                                                 {"lease_put", &KvMix::lease_put, Role::kWrite},
                                                 {"lease_grant", &KvMix::lease_grant, Role::kOther},
                                                 {"lease_revoke", &KvMix::lease_revoke, Role::kOther},
                                                 {"keep_alive", &KvMix::keep_alive, Role::kOther},
                                                 {"lease_ttl", &KvMix::lease_ttl, Role::kOther},
                                                 {"txn", &KvMix::txn, Role::kWrite},
                                                 {"cas_mod", &KvMix::cas_mod, Role::kWrite},
                                                 {"cas_value", &KvMix::cas_value, Role::kWrite}}};

template <typename Mix>
struct ChanceField {
  const char* name;
  double Mix::*field;
  double max = 1;  // the start and restart chances are shares of one draw (watch_mix.cc draw_start)
};

constexpr std::array<ChanceField<KvMix>, 17> kKvOptions = {{{"put_prev_kv", &KvMix::put_prev_kv},
                                                            {"put_ignore_lease", &KvMix::put_ignore_lease},
                                                            {"del_prev_kv", &KvMix::del_prev_kv},
                                                            {"del_range", &KvMix::del_range},
                                                            {"scan_sub_range", &KvMix::scan_sub_range},
                                                            {"scan_limit", &KvMix::scan_limit},
                                                            {"scan_sort", &KvMix::scan_sort},
                                                            {"scan_keys_only", &KvMix::scan_keys_only},
                                                            {"scan_count_only", &KvMix::scan_count_only},
                                                            {"scan_serializable", &KvMix::scan_serializable},
                                                            {"scan_filter", &KvMix::scan_filter},
                                                            {"scan_past_revision", &KvMix::scan_past_revision},
                                                            {"txn_else_read", &KvMix::txn_else_read},
                                                            {"txn_then_read", &KvMix::txn_then_read},
                                                            {"txn_nested", &KvMix::txn_nested},
                                                            {"txn_lease_compare", &KvMix::txn_lease_compare},
                                                            {"keep_alive_stream", &KvMix::keep_alive_stream}}};

constexpr std::array<ChanceField<WatchMix>, 11> kWatchOptions = {
    {{"prev_kv", &WatchMix::prev_kv},
     {"progress_notify", &WatchMix::progress_notify},
     {"progress_requests", &WatchMix::progress_requests},
     {"filter_noput", &WatchMix::filter_noput},
     {"filter_nodelete", &WatchMix::filter_nodelete},
     {"sub_range", &WatchMix::sub_range},
     {"start_at_beginning", &WatchMix::start_at_beginning, 0.5},
     {"start_near", &WatchMix::start_near, 0.5},
     {"restart_at_compaction", &WatchMix::restart_at_compaction, 0.5},
     {"restart_below_compaction", &WatchMix::restart_below_compaction, 0.5},
     {"slow_reader", &WatchMix::slow_reader}}};

std::string chance_text(const char* name, double p) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s %.2f", name, p);
  return buf;
}

// 0, the default, three times it (at most 1) or uniform in [0, 1): a quarter each.
double draw_chance(sim::Rng& rng, double given) {
  switch (rng.uniform_u64(4)) {
    case 0: return 0;
    case 1: return given;
    case 2: return std::min(1.0, 3 * given);
    default: return rng.uniform_real();
  }
}

template <typename Mix, size_t N>
std::string draw_chances(sim::Rng& rng, Mix& mix, const std::array<ChanceField<Mix>, N>& fields) {
  std::string text;
  for (const ChanceField<Mix>& f : fields) {
    double& p = mix.*f.field;
    const double before = p;
    p = std::min(draw_chance(rng, p), f.max);
    DST_ASSERT(p >= 0 && p <= 1);
    if (p != before) text += (text.empty() ? "" : ", ") + chance_text(f.name, p);
  }
  return text.empty() ? "options as given" : "options " + text;
}

}  // namespace

std::string draw_kv_mix(sim::Rng& rng, KvMix& mix) {
  constexpr std::array<uint64_t, 5> kFactorPercent = {0, 50, 100, 200, 400};
  bool reads = false, writes = false;
  std::string kinds;
  for (const WeightField& k : kKinds) {
    uint64_t& w = mix.*k.field;
    // A quarter of the kinds dropped, the rest scaled.
    const uint64_t percent = rng.bernoulli(0.25) ? 0 : kFactorPercent[1 + rng.uniform_u64(4)];
    w = std::max<uint64_t>(w * percent / 100, w > 0 && percent > 0 ? 1 : 0);
    if (w > 0 && k.role == Role::kRead) reads = true;
    if (w > 0 && k.role == Role::kWrite) writes = true;
    if (w > 0) kinds += (kinds.empty() ? "" : " ") + std::string(k.name) + "=" + std::to_string(w);
  }
  // A mix without reads checks nothing; one without writes has nothing to check.
  if (!reads) {
    mix.get = 25;
    kinds += " get=25";
  }
  if (!writes) {
    mix.put = 22;
    kinds += " put=22";
  }
  return "kv kinds " + kinds + "; " + draw_chances(rng, mix, kKvOptions);
}

std::string draw_watch_mix(sim::Rng& rng, WatchMix& mix) {
  std::string text = draw_chances(rng, mix, kWatchOptions);
  constexpr std::array<sim::DurationNs, 4> kSlowDelays = {sim::milliseconds(20), sim::milliseconds(150),
                                                          sim::milliseconds(600), sim::seconds(2)};
  mix.slow_read_delay_max = kSlowDelays[rng.uniform_u64(kSlowDelays.size())];
  return "watch " + text + "; slow reads up to " + sim::format_duration(mix.slow_read_delay_max);
}

const std::vector<std::string>& kv_kind_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const WeightField& k : kKinds) out.emplace_back(k.name);
    return out;
  }();
  return names;
}

std::vector<std::string> kv_kinds_sent(const KvMix& mix) {
  std::vector<std::string> out;
  for (const WeightField& k : kKinds)
    if (mix.*k.field > 0) out.emplace_back(k.name);
  return out;
}

bool drop_kv_kind(KvMix& mix, std::string_view name) {
  for (const WeightField& k : kKinds) {
    if (name == k.name) {
      mix.*k.field = 0;
      return true;
    }
  }
  return false;
}

}  // namespace dst::client
