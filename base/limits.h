// Every bound in dst, in one place, each with the reason it has the value it has.
//
// "Put a limit on everything" (DESIGN.md): a queue, table or loop that grows without bound turns a
// bug into a hang or an out-of-memory kill long after its cause. Exceeding one of these is either an
// assertion (dst's own bug) or an error value (bad input), never silent growth.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dst::limits {

// --- sim: scheduler -------------------------------------------------------------------------
// Pending events at once. A 5-node cluster with 100 clients keeps a few thousand; a million means
// something schedules in a loop without ever waiting.
inline constexpr size_t kEventsPendingMax = 1'000'000;
// Events one Simulator may execute in its lifetime; 2^40 is days of wall time at 10M events/s, so
// reaching it means a livelock (for example a fiber yielding forever while time cannot advance).
inline constexpr uint64_t kEventsExecutedMax = uint64_t{1} << 40;
// Events executed at one virtual instant without time advancing: a fiber spinning on yield() or
// two fibers waking each other forever. Real work at one instant is thousands, not millions.
inline constexpr uint64_t kEventsAtOneInstantMax = 50'000'000;

// --- sim: processes and fibers --------------------------------------------------------------
// Hosts (simulated machines) in one world. etcd clusters are 1..7 members; clients and the nemesis
// run on extra hosts; 1024 leaves room for large client fleets.
inline constexpr size_t kHostsMax = 1024;
// Processes ever started in one world, counting every restart; a crash-restart storm of 100k is
// far beyond any scenario.
inline constexpr size_t kProcessesMax = 100'000;
// Fibers alive at once across the world (each holds a stack).
inline constexpr size_t kFibersAliveMax = 100'000;
// Default fiber stack: node code runs SQLite and protobuf on it; 256 KiB is ample and costs only
// the touched pages (stacks are mmap'ed lazily).
inline constexpr size_t kFiberStackBytesDefault = 256 * 1024;
// Sanitizer builds use much bigger frames (redzones), so they get bigger stacks.
inline constexpr size_t kFiberStackBytesSanitized = 2 * 1024 * 1024;
// Released stacks kept for reuse, saving an mmap/munmap pair per spawn.
inline constexpr size_t kFiberStacksPooledMax = 256;

// --- sim: channels --------------------------------------------------------------------------
// Default capacity of a Channel when the caller names none.
inline constexpr size_t kChannelCapacityDefault = 1024;

// --- sim: network ---------------------------------------------------------------------------
// Datagrams queued at one bound socket before new arrivals are dropped (like a full UDP buffer).
inline constexpr size_t kSocketQueueMax = 65'536;
// Bytes queued in one direction of a stream (send buffer + in flight + receive buffer); a sender
// beyond it gets kResourceExhausted instead of growing memory without bound.
inline constexpr size_t kStreamBytesQueuedMax = 256ull * 1024 * 1024;
// Streams open at once in one world.
inline constexpr size_t kStreamsOpenMax = 1'000'000;
// Pending connections queued at one listener (the accept backlog).
inline constexpr size_t kListenBacklogMax = 4096;
// Largest single message or stream write (etcd's biggest request is 1.5 MiB plus overhead).
inline constexpr size_t kMessageBytesMax = 64ull * 1024 * 1024;

// --- sim: disk ------------------------------------------------------------------------------
// Default capacity of a simulated disk; scenarios may set less to provoke ENOSPC.
inline constexpr uint64_t kDiskCapacityBytesDefault = 4ull * 1024 * 1024 * 1024;
// Files on one disk (WAL segments, snapshots, SQLite files and journals).
inline constexpr size_t kDiskFilesMax = 100'000;
// Unsynced write/truncate operations remembered per file between fsyncs; a program that never
// fsyncs is bounded by this, and crossing it is reported as an error by the writer.
inline constexpr size_t kDiskPendingOpsPerFileMax = 1'000'000;
// The sector size of the simulated device: torn writes tear at multiples of it.
inline constexpr uint64_t kDiskSectorBytes = 512;

// --- sim: trace -----------------------------------------------------------------------------
// Trace records kept for --check-determinism: 32 bytes each, so 8M records is 256 MiB per run.
// Divergence after that many events is still detected (the hashes differ) but not located.
inline constexpr size_t kTraceRecordsKeptMax = 8'000'000;

}  // namespace dst::limits
