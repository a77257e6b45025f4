// The lessor's expected failures, with the strings etcd 3.4 answers clients with.
//
// etcd's lessor returns bare errors ("lease not found"); its gRPC layer maps them to the
// "etcdserver: ..." strings below, which is what a client sees and what histories record, so the
// Statuses carry those. ErrNotPrimary is never mapped by etcd (the server forwards the request to
// the leader instead), so it keeps the lessor's own text.
#pragma once

#include "base/status.h"

namespace dst::lease {

inline constexpr char kErrLeaseNotFound[] = "etcdserver: requested lease not found";
inline constexpr char kErrLeaseExists[] = "etcdserver: lease already exists";
inline constexpr char kErrLeaseTtlTooLarge[] = "etcdserver: too large lease TTL";
// Renew on a member that is not the leader: the server must forward the keep-alive to the leader.
inline constexpr char kErrNotPrimary[] = "not a primary lessor";
// Renew of a lease that already expired on the leader. etcd's Renew blocks until the revoke is
// applied (then answers "lease not found") or the leader steps down (then "not a primary lessor");
// a pure data structure cannot block, so it says so and the server waits (see Lessor::renew).
inline constexpr char kErrLeaseExpired[] = "lessor: lease expired, revoke pending";
// dst's own bound (limits::kLeasesMax); etcd has none.
inline constexpr char kErrTooManyLeases[] = "lessor: too many leases";

inline Status lease_not_found() { return Status(StatusCode::kNotFound, kErrLeaseNotFound); }
inline Status lease_exists() { return Status(StatusCode::kAlreadyExists, kErrLeaseExists); }
inline Status lease_ttl_too_large() { return Status(StatusCode::kOutOfRange, kErrLeaseTtlTooLarge); }
inline Status not_primary() { return Status(StatusCode::kUnavailable, kErrNotPrimary); }
inline Status lease_expired() { return Status(StatusCode::kUnavailable, kErrLeaseExpired); }
inline Status too_many_leases() { return Status(StatusCode::kResourceExhausted, kErrTooManyLeases); }

}  // namespace dst::lease
