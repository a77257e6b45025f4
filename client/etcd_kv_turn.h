// One turn of an etcd-kv client: a request (or a read and the write it guards) drawn from the mix
// (KvMix: the weight of each kind, and how often each option rides along), over `keys` keys
// "key/0".."key/<keys-1>". Every kind and option of the KV and lease API the member implements is
// in the default mix, so every run exercises them under its faults, and the etcd model checks
// their answers (limits and `more`, counts, sorting, keys/count only, revision filters, past
// revisions, prev_kv, ignore_value/ignore_lease, value and lease compares, txns that read in either
// branch, keep-alives). swarm{} draws a mix per seed.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "history/history.h"
#include "proto/etcd_api.pb.h"
#include "sim/rng.h"

namespace dst::client {

struct KvMix {
  // The weight of each kind of turn (0: never).
  uint64_t get = 25, stale_get = 5, list = 5, scan = 8, put = 22, del = 8, lease_put = 6, lease_grant = 3,
           lease_revoke = 2, keep_alive = 3, lease_ttl = 1, txn = 10, cas_mod = 9, cas_value = 4;
  // How often an option rides on a request of its kind. ignore_value is off by default: the etcd
  // model tells writes apart by their unique values, and a put that keeps the key's old value
  // writes a value another request wrote (the model cannot place it yet).
  double put_prev_kv = 0.15, put_ignore_value = 0, put_ignore_lease = 0.03;
  double del_prev_kv = 0.3, del_range = 0.1;
  double scan_sub_range = 0.3, scan_limit = 0.5, scan_sort = 0.35, scan_keys_only = 0.2, scan_count_only = 0.1,
         scan_serializable = 0.2, scan_filter = 0.1, scan_past_revision = 0.15;
  double txn_else_read = 0.5, txn_then_read = 0.3, txn_nested = 0.15, txn_lease_compare = 0.1;
  // A granted lease's TTL in seconds, uniform in [min, max] (the member raises it to its minimum,
  // 1.5 election timeouts). Short TTLs expire between keep-alives and race leader changes.
  int64_t lease_ttl_min = 10, lease_ttl_max = 29;
  // The share of clients that keep their leases alive as clientv3's KeepAlive does: a stream on
  // one member renews every lease the client holds each third of the shortest TTL it grants.
  // Off by default (a scenario's clients send keep-alives only as turns); swarm{} draws it.
  double keep_alive_stream = 0;
};

// What one client remembers between its turns.
struct ClientState {
  std::vector<int64_t> leases;  // granted by it and not revoked by it (at most 8)
  int64_t last_revision = 0;    // the newest revision an answer showed it (past-revision reads)
  std::string last_read;        // register: the value its last read saw
};

// Sends one request and returns it recorded (outcome and answer).
using RunRequest = std::function<history::Operation(etcdserverpb::ApiRequest)>;

// One etcd-kv turn; `value` is the turn's unique value ("c3.17").
void etcd_kv_turn(const KvMix& mix, size_t keys, sim::Rng& rng, const RunRequest& run, ClientState& state,
                  const std::string& value);

// A range over "key/" with the mix's options drawn (limit, sort, keys/count only, serializable,
// revision filters, a past revision).
etcdserverpb::ApiRequest draw_scan(const KvMix& mix, size_t keys, sim::Rng& rng, int64_t last_revision);

}  // namespace dst::client
