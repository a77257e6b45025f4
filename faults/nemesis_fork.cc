#include "faults/nemesis_fork.h"

#include "base/parse_number.h"

#include <charconv>

#include "base/assert.h"

namespace dst::faults {
namespace {

// Splits on `sep`, keeping empty parts (so "1s::2" is refused, not read as "1s:2").
std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  for (size_t from = 0;;) {
    const size_t at = s.find(sep, from);
    parts.push_back(s.substr(from, at == std::string_view::npos ? std::string_view::npos : at - from));
    if (at == std::string_view::npos) return parts;
    from = at + 1;
  }
}

bool parse_u64(std::string_view s, uint64_t* out) {
  const std::optional<uint64_t> v = dst::parse_u64(s);
  if (v) *out = *v;
  return v.has_value();
}

Status entry_error(size_t i, std::string_view entry, const std::string& what) {
  return Status(StatusCode::kInvalidArgument, "--fork: entry " + std::to_string(i + 1) + " '" + std::string(entry) +
                                                  "': " + what + " (expected AT:SALT[:PERCENT], e.g. 4250ms:7:50)");
}

Result<NemesisFork> parse_one(size_t i, std::string_view entry, sim::DurationNs phase) {
  const std::vector<std::string_view> parts = split(entry, ':');
  if (parts.size() < 2 || parts.size() > 3) return entry_error(i, entry, "two or three fields separated by ':'");
  NemesisFork f;
  if (!sim::parse_duration(parts[0], &f.after)) return entry_error(i, entry, "AT is not a duration like 4250ms or 4.25s");
  if (f.after >= phase)
    return entry_error(i, entry, "AT is not inside the fault phase of " + sim::format_duration(phase));
  if (!parse_u64(parts[1], &f.salt)) return entry_error(i, entry, "SALT is not a whole number");
  if (parts.size() == 3) {
    uint64_t pct = 0;
    if (!parse_u64(parts[2], &pct) || pct < kForkIntervalPercentMin || pct > kForkIntervalPercentMax)
      return entry_error(i, entry, "PERCENT is not a whole number in " + std::to_string(kForkIntervalPercentMin) + ".." +
                                       std::to_string(kForkIntervalPercentMax));
    f.interval_percent = static_cast<uint32_t>(pct);
  }
  return f;
}

}  // namespace

std::string fork_stream_name(const NemesisFork& fork) { return "raft-nemesis/fork-" + std::to_string(fork.salt); }

Result<std::vector<NemesisFork>> parse_forks(std::string_view spec, sim::DurationNs phase) {
  if (spec.empty()) return Status(StatusCode::kInvalidArgument, "--fork: empty (expected AT:SALT[:PERCENT],...)");
  const std::vector<std::string_view> entries = split(spec, ',');
  if (entries.size() > kNemesisForksMax)
    return Status(StatusCode::kInvalidArgument, "--fork: " + std::to_string(entries.size()) + " forks; at most " +
                                                    std::to_string(kNemesisForksMax));
  std::vector<NemesisFork> forks;
  for (size_t i = 0; i < entries.size(); ++i) {
    Result<NemesisFork> f = parse_one(i, entries[i], phase);
    if (!f.is_ok()) return f.status();
    if (!forks.empty() && f->after <= forks.back().after)
      return entry_error(i, entries[i], "AT must be later than the entry before's");
    forks.push_back(*f);
  }
  return forks;
}

std::string format_forks(const std::vector<NemesisFork>& forks) {
  std::string out;
  for (const NemesisFork& f : forks) {
    DST_ASSERT_GE(f.after, 0);
    if (!out.empty()) out += ',';
    out += f.after % sim::milliseconds(1) == 0 ? std::to_string(f.after / sim::milliseconds(1)) + "ms"
                                                : std::to_string(f.after) + "ns";
    out += ':' + std::to_string(f.salt);
    if (f.interval_percent != 100) out += ':' + std::to_string(f.interval_percent);
  }
  return out;
}

}  // namespace dst::faults
