// Swarm draws of the clients' own knobs (issue 21: "swarm over everything"). Each seed of a swarm
// runs a different workload, the way swarm{} draws a different mix of faults: some request kinds
// dropped, others made dominant, options far more or less frequent than the defaults, watchers
// that read slowly or filter. A seed's mix is its own corner of the API; a sweep covers many.
//
// Every draw returns a short text of what it changed (for the run's header), so the seed's mix
// is readable next to its reproduce command.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "client/etcd_kv_turn.h"
#include "client/watch_mix.h"
#include "sim/rng.h"

namespace dst::client {

// Starts from `mix` (the defaults or the scenario's): each kind's weight is dropped (a quarter of
// the kinds), kept, halved or multiplied by 2 or 4, and each option's probability becomes 0, its
// default, three times it or a uniform draw. At least one read and one write kind stay in.
// put_ignore_value stays as given (the etcd model needs unique values).
std::string draw_kv_mix(sim::Rng& rng, KvMix& mix);

// The watchers' behaviour: filters, prev_kv, progress, sub-ranges, starts, restarts and the
// share of slow readers (and how slow), drawn the same way.
std::string draw_watch_mix(sim::Rng& rng, WatchMix& mix);

// The etcd-kv request kinds by name ("get", "stale_get", ..., "cas_value"), as KvMix weighs them.
const std::vector<std::string>& kv_kind_names();
// The kinds `mix` sends (weight above 0), in kv_kind_names() order.
std::vector<std::string> kv_kinds_sent(const KvMix& mix);
// Stops `mix` sending a kind (its weight becomes 0); false for an unknown name.
bool drop_kv_kind(KvMix& mix, std::string_view name);

}  // namespace dst::client
