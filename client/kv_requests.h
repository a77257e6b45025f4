// The requests the workloads send, built one way everywhere: single-key reads, prefix lists and
// pages, puts, deletes, guarded transactions, and the etcd-kv profile's options (kv_mix.h) drawn
// onto them. Pure functions of their arguments and the client's random stream.
#pragma once

#include <cstdint>
#include <string>

#include "history/history.h"
#include "proto/etcd_api.pb.h"

namespace dst::client {

// [prefix, prefix_end(prefix)) is every key starting with prefix (prefixes here never end in 0xff).
std::string prefix_end(std::string prefix);

etcdserverpb::ApiRequest get(const std::string& key, bool serializable = false);
etcdserverpb::ApiRequest list(const std::string& prefix, int64_t limit = 0, int64_t revision = 0,
                              const std::string& from = "");
etcdserverpb::ApiRequest put(const std::string& key, const std::string& value, int64_t lease = 0);
etcdserverpb::ApiRequest del(const std::string& key);
etcdserverpb::RequestOp put_op(const std::string& key, const std::string& value);
etcdserverpb::RequestOp delete_op(const std::string& key);
etcdserverpb::Compare* compare(etcdserverpb::TxnRequest* t, const std::string& key,
                               etcdserverpb::Compare::CompareTarget target, etcdserverpb::Compare::CompareResult result);
// A txn guarded by the key's mod_revision (0: the key must not exist), then `then`, else a read
// of the key: the optimistic-concurrency write every Kubernetes object update is.
etcdserverpb::ApiRequest guarded(const std::string& key, int64_t mod_revision, etcdserverpb::RequestOp then);
// The key's mod_revision in a successful single-key read (0: absent or the read failed).
int64_t mod_revision_of(const history::Operation& op);

}  // namespace dst::client
