#include "base/probes.h"

#include "base/assert.h"

namespace dst {

namespace {

constexpr ProbeInfo kProbeTable[] = {
#define DST_PROBE_ENUM(id, name, meaning) {Probe::id, name, meaning},
#include "base/probe_list.h"
#undef DST_PROBE_ENUM
};
static_assert(std::size(kProbeTable) == static_cast<size_t>(Probe::kCount), "one row per probe");

}  // namespace

const ProbeInfo& probe_info(Probe probe) {
  const auto i = static_cast<size_t>(probe);
  DST_ASSERT_MSG(i < std::size(kProbeTable) && kProbeTable[i].probe == probe, "kProbeTable is out of enum order");
  return kProbeTable[i];
}

std::string_view probe_name(Probe probe) { return probe_info(probe).name; }

std::optional<Probe> find_probe(std::string_view name) {
  for (const ProbeInfo& p : kProbeTable)
    if (p.name == name) return p.probe;
  return std::nullopt;
}

std::vector<Probe> all_probes() {
  std::vector<Probe> out;
  for (const ProbeInfo& p : kProbeTable) out.push_back(p.probe);
  return out;
}

}  // namespace dst
