#include "scenarios/swarm_salts.h"

#include "base/parse_number.h"

#include <charconv>

namespace dst::scenarios {
namespace {

constexpr uint64_t kSaltMax = uint64_t{1} << 63;

Status salt_error(std::string_view entry, const std::string& what) {
  return Status(StatusCode::kInvalidArgument, "--swarm-salt: '" + std::string(entry) + "': " + what +
                                                  " (expected PART=N,... with PART one of faults, nodes, timing, workload, kube)");
}

}  // namespace

bool SwarmSalts::empty() const {
  for (uint64_t s : salt)
    if (s != 0) return false;
  return true;
}

std::string swarm_stream(const SwarmSalts& salts, size_t part) {
  const std::string base = "swarm/" + std::string(kSwarmParts.at(part));
  return salts.salt.at(part) == 0 ? base : base + "/" + std::to_string(salts.salt[part]);
}

Result<SwarmSalts> parse_swarm_salts(std::string_view spec) {
  SwarmSalts out;
  if (spec.empty()) return salt_error(spec, "empty");
  size_t from = 0;
  for (size_t entries = 0; from <= spec.size(); ++entries) {
    if (entries >= kSwarmParts.size()) return salt_error(spec, "more entries than parts");
    const size_t comma = spec.find(',', from);
    const std::string_view entry = spec.substr(from, comma == std::string_view::npos ? std::string_view::npos : comma - from);
    const size_t eq = entry.find('=');
    if (eq == std::string_view::npos) return salt_error(entry, "no '='");
    size_t part = kSwarmParts.size();
    for (size_t p = 0; p < kSwarmParts.size(); ++p)
      if (kSwarmParts[p] == entry.substr(0, eq)) part = p;
    if (part == kSwarmParts.size()) return salt_error(entry, "unknown part");
    if (out.salt[part] != 0) return salt_error(entry, "the part is named twice");
    const uint64_t n = parse_u64(entry.substr(eq + 1)).value_or(0);
    if (n == 0 || n > kSaltMax)
      return salt_error(entry, "N is not a whole number in 1..2^63");
    out.salt[part] = n;
    if (comma == std::string_view::npos) break;
    from = comma + 1;
  }
  return out;
}

std::string format_swarm_salts(const SwarmSalts& salts) {
  std::string out;
  for (size_t p = 0; p < kSwarmParts.size(); ++p) {
    if (salts.salt[p] == 0) continue;
    if (!out.empty()) out += ',';
    out += std::string(kSwarmParts[p]) + "=" + std::to_string(salts.salt[p]);
  }
  return out;
}

}  // namespace dst::scenarios
