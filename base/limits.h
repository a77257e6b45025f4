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
// Released stacks kept for reuse, saving an mmap/mprotect/munmap per spawn. The pool never holds
// more than were alive at once, so it does not raise the peak memory; 256 was too few for 1,000
// kubelets (kube_scale seed 7: 12,600 stacks unmapped and mapped again in a 5 s run).
inline constexpr size_t kFiberStacksPooledMax = 8192;

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
// Labels kept beside them (fiber names, scheduled functions' places) to say what ran: a run spawns
// tens of thousands of fibers; past the bound a record is described without its label.
inline constexpr size_t kTraceLabelsKeptMax = 1'000'000;

// --- node: raft ------------------------------------------------------------------------------
// Appends in flight to one follower; etcd uses 256 by default, more only hides a slow follower.
inline constexpr size_t kRaftInflightMsgsMax = 4096;
// ReadIndex requests a leader queues while it has not yet committed an entry of its term, and
// requests waiting for their heartbeat quorum; clients time out and retry, so dropping is safe.
inline constexpr size_t kRaftPendingReadIndexMax = 10'000;
// Voters plus learners in one cluster.
inline constexpr size_t kRaftMembersMax = 64;
// Lines kept of why members took themselves down (a restart storm exits thousands of times; the
// report shows the first few and the count).
inline constexpr size_t kMemberExitsKept = 10'000;

// --- node: wal ------------------------------------------------------------------------------
// Largest single WAL record (one entry, hard state, marker or metadata). etcd caps a request at
// 1.5 MiB by default and an entry holds one request plus a few bytes of framing; 16 MiB leaves room
// for scenarios that raise the request limit while keeping a corrupted length field from making
// us allocate gigabytes.
inline constexpr uint64_t kWalRecordBytesMax = 16ull * 1024 * 1024;
// Bytes one Wal::save may append. Raft's Ready batches are bounded by its in-flight and message
// size limits (a few MiB); a bigger batch is a caller bug, refused before anything is written.
inline constexpr uint64_t kWalSaveBytesMax = 64ull * 1024 * 1024;
// Default segment size at which the WAL cuts a new file. etcd uses 64 MiB; simulated disks are
// small and cuts are where bugs hide, so the default is smaller to exercise them in every run.
inline constexpr uint64_t kWalSegmentBytesDefault = 4ull * 1024 * 1024;
// Largest segment size an option may ask for; a segment is read whole into memory at open.
inline constexpr uint64_t kWalSegmentBytesMax = 256ull * 1024 * 1024;
// Largest segment file open() accepts: one save may push a segment past the cut size, and a
// segment starts with a small header (metadata, hard state, snapshot marker).
inline constexpr uint64_t kWalSegmentFileBytesMax = kWalSegmentBytesMax + kWalSaveBytesMax + 4096;
// Segments one WAL may hold. Segments are released after every snapshot, so thousands means
// release_to is never called; open() refuses more instead of reading without end.
inline constexpr size_t kWalSegmentsMax = 10'000;
// Entries open() may return. etcd snapshots every 100k applied entries (3.4 default), so ten
// million unsnapshotted entries means snapshots are broken.
inline constexpr size_t kWalReplayEntriesMax = 10'000'000;
// Payload bytes open() may checksum while searching for a valid record after a bad one (to tell a
// torn tail from corruption in the middle). Past it the bad record is reported as corruption, the
// safe answer: it never silently drops data it could not prove torn.
inline constexpr uint64_t kWalResyncScanBytesMax = 64ull * 1024 * 1024;

// --- node: snapshots ------------------------------------------------------------------------
// Largest snapshot file: etcd's default backend quota is 2 GiB and the snapshot is the backend.
inline constexpr uint64_t kSnapshotFileBytesMax = 2ull * 1024 * 1024 * 1024;
// The largest --bump-revision a restore accepts (Kubernetes' guidance uses 10^9); far below where
// revisions would overflow.
inline constexpr int64_t kRestoreBumpRevisionMax = 1'000'000'000'000;
// Tries to read a member's backend between two applied entries for a client's snapshot, 1 ms of
// virtual time apart, before the request fails as busy.
inline constexpr int kSnapshotReadAttempts = 16;
// Snapshot files looked at in one directory listing; old ones are removed after each save.
inline constexpr size_t kSnapshotFilesMax = 10'000;
// Snapshot files kept by default when older ones are purged (etcd's --max-snapshots default).
inline constexpr size_t kSnapshotsKeptDefault = 5;

// --- node: backend --------------------------------------------------------------------------
// Writes one batch transaction collects before it commits: etcd's --backend-batch-limit default.
inline constexpr uint64_t kBackendBatchOpsDefault = 10'000;
// Virtual ns a batch with writes may stay open: etcd's --backend-batch-interval default (100 ms).
inline constexpr int64_t kBackendBatchIntervalNsDefault = 100'000'000;
// Buckets (tables) in one backend. etcd uses about ten; each costs prepared statements.
inline constexpr size_t kBackendBucketsMax = 64;
// Longest bucket name: names become SQL table names and appear in every error message.
inline constexpr size_t kBackendBucketNameBytesMax = 64;
// Largest key: bbolt's MaxKeySize (32 KiB); etcd keys are far smaller.
inline constexpr size_t kBackendKeyBytesMax = 32 * 1024;
// Largest value: etcd caps a request at 1.5 MiB; 16 MiB leaves room for scenarios that raise the
// request limit (as kWalRecordBytesMax does) while refusing runaway values before SQLite sees them.
inline constexpr size_t kBackendValueBytesMax = 16ull * 1024 * 1024;
// SQLite page size of a backend file: the common 4 KiB (a multiple of kDiskSectorBytes, so a
// torn write never splits a page from a different write).
inline constexpr uint32_t kBackendPageBytes = 4096;
// A defragmentation's copy of the database (BackendOptions::defrag_bytes_per_second): etcd
// rewrites a 1 GB database in some 20 s; and however slow the configured rate, at most 10 minutes.
inline constexpr uint64_t kBackendDefragBytesPerSecondDefault = 50'000'000;
inline constexpr int64_t kBackendDefragCopyNsMax = int64_t{600} * 1'000'000'000;
// SQLite page cache per backend, in KiB (PRAGMA cache_size). A batch bigger than this spills pages
// into the SQLite WAL before it commits; 8 MiB holds etcd's default 10k-op batch of small values.
inline constexpr int64_t kBackendCacheKib = 8 * 1024;
// WAL pages after which a commit also checkpoints into the database file (SQLite's default).
inline constexpr int kBackendWalAutocheckpointPages = 1000;
// Backends open at once in one OS process: each registers a VFS in SQLite's process-wide list,
// which is searched linearly by name, so thousands would make every open slow.
inline constexpr size_t kBackendVfsRegisteredMax = 4096;
// Largest backend file (database or SQLite WAL) open() accepts: it reads each file whole to make it
// durable. etcd's largest allowed backend quota is 8 GiB, its default 2 GiB; simulated ones are
// far smaller.
inline constexpr uint64_t kBackendFileBytesMax = 2ull * 1024 * 1024 * 1024;

// --- node: client API -----------------------------------------------------------------------
// Client proposals one member keeps waiting for their apply at once; beyond it new writes get
// "etcdserver: too many requests" (etcd refuses once commit runs 5000 entries ahead of apply).
inline constexpr size_t kApiPendingProposalsMax = 5000;
// Linearizable reads waiting for a ReadIndex answer at once on one member.
inline constexpr size_t kApiPendingReadsMax = 10'000;
// Client connections one member serves at once, and calls in flight on one connection (gRPC's
// MaxConcurrentStreams role).
inline constexpr size_t kApiConnectionsMax = 10'000;
inline constexpr size_t kApiCallsPerConnectionMax = 1000;
// Unread bytes a member lets pile up on a client connection before its watch senders wait: the
// HTTP/2 flow-control window (64 KiB initially in gRPC). A client that stops reading thus makes
// the member's watch queue fill, and its watchers fall behind into catch-up, as in etcd.
inline constexpr size_t kApiConnectionWindowBytes = 64 * 1024;

// --- history ------------------------------------------------------------------------------------
// Operations one run may record: a 10-minute run at 2k ops/s is 1.2M; beyond 10M the run is
// misconfigured (and the checkers' budgets would not cover it anyway).
inline constexpr size_t kHistoryOperationsMax = 10'000'000;
// Watches one run may open, and responses one watch segment may record.
inline constexpr size_t kHistoryWatchesMax = 100'000;
inline constexpr size_t kHistoryWatchResponsesMax = 10'000'000;
// Informers one run may record (a kube world has a few controllers, each with one informer), and
// LISTs, WATCHes, events and processed keys per informer: a 10-minute run re-lists a few hundred
// times and delivers a few hundred thousand events.
inline constexpr size_t kHistoryInformersMax = 10'000;
inline constexpr size_t kHistoryInformerItemsMax = 10'000'000;

// --- node: watch ----------------------------------------------------------------------------
// Responses queued on one watch stream for its sender: etcd's chanBufLen (128). A watcher whose
// stream is full stops receiving live events and falls behind into the unsynced group, from
// which it catches up by reading the store (never by growing this queue).
inline constexpr size_t kWatchStreamQueueMax = 128;
// Watchers on one stream; etcd has no limit, but a client opening tens of thousands of watches on
// one stream is a client bug, answered with an error instead of unbounded memory.
inline constexpr size_t kWatchersPerStreamMax = 10'000;
// Watchers on one member at once (all streams).
inline constexpr size_t kWatchersMax = 100'000;
// Revisions one catch-up step reads from the store for the unsynced watchers: etcd's
// watchBatchMaxRevs (1000), so one step's work stays bounded however far a watcher is behind.
inline constexpr int64_t kWatchSyncRevisionsMax = 1000;
// Events a response aims to carry: a response is closed at the first revision boundary past
// this. A single revision is never split (atomicity), so one huge txn still arrives whole.
inline constexpr size_t kWatchResponseEventsSoft = 1000;

// --- node: lease ----------------------------------------------------------------------------
// Longest TTL a lease may be granted with, in seconds: etcd's MaxLeaseTTL (9,000,000,000).
inline constexpr int64_t kLeaseTtlSecondsMax = 9'000'000'000;
// Leases alive on one member; etcd has no limit, a million leases means a leaking client.
inline constexpr size_t kLeasesMax = 1'000'000;
// Expired leases the leader proposes to revoke per second: etcd's leaseRevokeRate (1000), so a
// mass expiry does not flood the raft log.
inline constexpr size_t kLeaseRevokesPerSecond = 1000;

// --- checker ---------------------------------------------------------------------------------
// Operations one imported history may hold. Jepsen's biggest register histories are ~100k
// operations; 10M keeps a runaway or corrupt file from exhausting memory before the search starts.
inline constexpr size_t kCheckerOpsMax = 10'000'000;
// Longest line an importer accepts: one Jepsen/Porcupine event is a short map (< 1 KiB); a huge
// line means the file is not one event per line.
inline constexpr size_t kImportLineBytesMax = 1024 * 1024;
// Largest history file an importer reads (it reads the file whole).
inline constexpr uint64_t kImportFileBytesMax = 1024ull * 1024 * 1024;
// Values in one EDN event map, its keys and every nested element counted: a line's worth of one-
// character values. Bounds the parse tree (about 100 bytes a value) of a map that spans lines.
inline constexpr size_t kImportFormValuesMax = kImportLineBytesMax / 2;
// Nesting of EDN vectors/maps inside one event: values are scalars or [old new] pairs; deep
// nesting is garbage, and the recursive parser must not overflow the stack on it.
inline constexpr size_t kImportNestingMax = 16;
// Model steps the linearizability search may take over all partitions when the caller names no
// budget: tens of millions run in a few seconds; beyond it the verdict is "unknown" (exit 3).
inline constexpr uint64_t kCheckerStepsDefault = 50'000'000;
// Largest budget a caller may ask for (hours of search); bigger is a typo.
inline constexpr uint64_t kCheckerStepsMax = 100'000'000'000;
// Histories one `dst check` takes (files given and found in directories): a directory of a
// night's Jepsen runs is thousands; a million is a wrong directory (/, say).
inline constexpr size_t kCheckBatchFilesMax = 100'000;
// Directory levels `dst check DIR/` descends (Jepsen's store is store/TEST/TIME/history.edn).
inline constexpr size_t kCheckBatchDepthMax = 16;
// Workers `dst check --jobs` forks.
inline constexpr size_t kCheckBatchJobsMax = 256;
// Steps one partition runs before the search moves on to the next (round-robin): small enough
// that an easily failing key is found after a few thousand steps even when another key would take
// millions (the c50-bad trap), large enough that switching costs nothing measurable.
inline constexpr uint64_t kCheckerQuantumSteps = 2'000;
// Bytes the memo of visited (state, linearized set) pairs may use. Past it no new pairs are
// remembered (still sound, only slower); the step budget bounds the time.
inline constexpr size_t kCheckerCacheBytesMax = 1024ull * 1024 * 1024;
// Bytes of model states (e.g. the kv model's interned strings) one check may create; past it
// the search stops with "unknown" instead of growing memory without bound.
inline constexpr size_t kCheckerModelBytesMax = 1024ull * 1024 * 1024;
// The block one check's tables and search arrays are carved from (checker/linearizability/
// arena_resource.h), sized from the history: a check of a longer history takes the rest from the
// heap, so this bounds only what a single block may hold unused.
inline constexpr size_t kCheckerArenaBlockBytesMax = 16ull * 1024 * 1024;
// Operations shown in a counterexample's prefix and in its list of operations that could not be
// placed: enough to see the conflict, few enough to read.
inline constexpr size_t kCounterexampleOpsShownMax = 12;
// Counterexample minimisation (checker/linearizability/minimize.h) re-checks weakened copies of
// the failing partition, after the verdict is printed. By default all its checks together may take
// kMinimizeStepsFactor times the original check's steps plus kMinimizeStepsPerOp per operation in
// the history, or the floor if that is more: about twice what reading and deciding took (on
// Porcupine's Jepsen etcd logs a model step costs ~50 ns and reading and parsing ~1.5 us per
// operation), so an explanation never delays a batch of verdicts much. Past it the core is
// reported as not shown 1-minimal; `dst check --explain-budget` gives more.
inline constexpr uint64_t kMinimizeStepsFactor = 2;
inline constexpr uint64_t kMinimizeStepsPerOp = 60;
inline constexpr uint64_t kMinimizeStepsFloor = 1'000;
// One re-check may take this many times the steps the last re-check shown NOT linearizable took
// (at first, the failing partition's own check), or the floor: weakening writes into unknown
// outcome can make the search much harder, and a re-check that runs out counts as "not shown"
// (the operation is kept, sound but less minimal).
inline constexpr uint64_t kMinimizeCheckStepsFloor = 500;
inline constexpr uint64_t kMinimizeProofStepsFactor = 8;

// --- scenarios: the Lua sandbox (scenarios/lua_host.h, docs/scenarios.md "The sandbox") ------
// Bytes one scenario's Lua state may hold (tables, strings, closures) at any moment. Scenarios
// keep a few KiB; 64 MiB leaves room for generated schedules and still fits many sweeps on one
// machine. Past it the allocator refuses and the scenario stops with an error naming the line.
inline constexpr size_t kScenarioMemoryBytesMax = 64ull * 1024 * 1024;
// Lua VM instructions one scenario may execute over the whole run (top level and every scheduled
// function), plus the work its library calls do in C, charged at one instruction per step
// (pattern matching, sorting, pairs, table.move, ...) and per kScenarioBytesPerInstruction bytes
// allocated or scanned. The scenarios in scenarios/ use under a million; 100 million is about a
// second of CPU: more is an endless loop.
inline constexpr uint64_t kScenarioInstructionsMax = 100'000'000;
// Bytes of copying or scanning that cost one instruction: about what one VM instruction costs.
inline constexpr uint64_t kScenarioBytesPerInstruction = 64;
// Longest string a scenario may make. A few VM instructions (comparing two equal long strings,
// looking one up as a table key) scan a string without being charged, so its length bounds what
// one instruction can cost: a loop comparing two equal 60 KB strings ran the 100M budget out in
// 52 s (2-core machine), one of 16 KiB in about 13 s. Scenario strings are names and messages.
inline constexpr size_t kScenarioStringBytesMax = 16 * 1024;
// Values one library call may return (table.unpack, string.byte, utf8.codepoint,
// string.unpack): a call f(...) copies all of them in one instruction, so this bounds that too.
inline constexpr size_t kScenarioResultsMax = 256;
// Instructions charged for each action on the world (a fault, a maintenance request, a member
// change, a kube fault): the simulated work one action sets off is far more than its Lua cost, so
// a loop of actions is bounded by the budget after 500,000 of them instead of 100 million.
inline constexpr uint64_t kScenarioActionInstructions = 1000;
// Requests of the scenario's own client (compact, defrag, alarm_disarm, member_add,
// member_remove) waiting for their answer at once: each is a client fiber and sets off server
// fibers, so a loop of them in one function would otherwise reach kFibersAliveMax. A request
// ends within the workload's request timeout, so this is far more than any scenario needs.
inline constexpr size_t kScenarioRequestsInFlightMax = 1000;
// A snapshot file's name in a scenario (snapshot_save, restore{snapshot=}).
inline constexpr size_t kScenarioSnapshotNameBytesMax = 128;
// Instructions charged for scheduling a function (at, after, every) and for each time one runs:
// each is a simulator event, a map entry and a digest for the trace, a hundred times an
// instruction's cost, so a function that reschedules itself at once (after(0, f)) runs out of
// budget after a million events instead of twenty million.
inline constexpr uint64_t kScenarioScheduleInstructions = 100;
// Instructions charged for each error a pcall or xpcall catches: raising one unwinds the stack as
// a C++ exception, a thousand times an instruction's cost, so a loop that raises and catches
// errors would otherwise run for many seconds on the budget (measured: 10 s under ASan for 2M).
inline constexpr uint64_t kScenarioCaughtErrorInstructions = 1000;
// Bytes a scenario may print() over the run; past it print drops its output (with one notice), so
// a print in a loop cannot fill a CI log or a disk.
inline constexpr size_t kScenarioPrintBytesMax = 1024 * 1024;
// Largest scenario file: scripts are a few KiB; a bigger file is not a scenario.
inline constexpr uint64_t kScenarioFileBytesMax = 1024 * 1024;
// Longest Lua string pattern (string.find/match/gmatch/gsub). Scenario patterns are a few dozen
// bytes; every quantified item can multiply the backtracking, which the instruction budget bounds
// in any case.
inline constexpr size_t kScenarioPatternBytesMax = 4096;
// Functions scheduled with at()/every()/after() at the top level, and scheduled functions waiting
// to run at once while the scenario runs: a schedule of a fault every 10 ms for an hour is 360k
// over the run but never many at once.
inline constexpr size_t kScenarioTimersAtLoadMax = 100'000;
inline constexpr size_t kScenarioTimersPendingMax = 100'000;

// --- scenarios: durations and rates a scenario may ask for ---------------------------------
// run_for(d): how long the clients and faults run.
inline constexpr int64_t kScenarioRunForNsMin = 1'000'000'000;         // 1 s
inline constexpr int64_t kScenarioRunForNsMax = 3'600'000'000'000;     // 1 h
// Any latency a scenario sets: link latency (cluster{net=}, delay()), fsync latency (cluster{disk=},
// slow_fsync()), a failpoint's sleep, and every distribution parameter that is a duration. A
// delay over a minute is an outage: model it with a partition or a pause instead.
inline constexpr int64_t kScenarioLatencyNsMax = 60'000'000'000;  // 60 s
// workload{compaction_keep=}: revisions the compactor keeps below the newest it read.
inline constexpr int64_t kWorkloadCompactionKeepMax = 1'000'000;
// A workload's watch fan-out (workload{fanout_streams=, fanout_watches=}): streams are clients of
// their own; the watches, at most kWatchersPerStreamMax per stream, are each a recorded watch.
inline constexpr size_t kWorkloadFanoutStreamsMax = 100;
inline constexpr size_t kWorkloadFanoutWatchesMax = 100'000;
// A watch client's stall (watch_stall) and how far back a rewind may go (watch_rewind).
inline constexpr int64_t kWatchStallNsMax = 60'000'000'000;  // 60 s
inline constexpr int64_t kClientStallNsMax = 60'000'000'000;  // 60 s: a KV client's stall
inline constexpr int64_t kWatchRewindRevisionsMax = 1'000'000'000;
// Shape parameters of distributions: lognormal's sigma (10 already spans e^±10 around the
// median) and Pareto's alpha (past 100 it is a constant at its scale).
inline constexpr double kScenarioLognormalSigmaMax = 10;
inline constexpr double kScenarioParetoShapeMax = 100;
// raft={tick=}: etcd's --heartbeat-interval. Below 1 ms the run is all ticks (a microsecond tick is
// a million events per second per member); above 10 s an election outlasts most runs.
inline constexpr int64_t kScenarioRaftTickNsMin = 1'000'000;        // 1 ms
inline constexpr int64_t kScenarioRaftTickNsMax = 10'000'000'000;   // 10 s
// tick x election_ticks: etcd refuses an --election-timeout above 50 s.
inline constexpr int64_t kScenarioElectionTimeoutNsMax = 50'000'000'000;
// check{liveness=d}: how long the harness waits for service after the heal; the run lasts that
// much longer when the cluster does not recover.
inline constexpr int64_t kScenarioRecoveryBoundNsMax = 600'000'000'000;  // 10 min
// workload{value_bytes=}: etcd's default request limit is 1.5 MiB (--max-request-bytes); a txn
// carries a value twice (a VALUE compare and a put), so past half of it every such txn is refused
// and the run tests little but the refusal.
inline constexpr int64_t kScenarioValueBytesMax = 700'000;
// workload{timeout=}: a client's request timeout (etcdctl's --command-timeout is 5 s).
inline constexpr int64_t kScenarioRequestTimeoutNsMin = 10'000'000;      // 10 ms
inline constexpr int64_t kScenarioRequestTimeoutNsMax = 60'000'000'000;  // 60 s
// Periods a scenario sets: every(), workload{compaction=}, kube{resync=}, swarm{interval=}: from
// 1 ms (10 ms for the ones that act on the cluster) up to the longest run.
inline constexpr int64_t kScenarioPeriodNsMin = 1'000'000;  // 1 ms
// Operations a run's clients and kube writers may be asked for: (clients x rate + controllers x
// writes) x run_for. Measured on a 2-core machine: a 3-member cluster records about 5,000
// operations per wall second and holds about 3 KiB per operation, so two million is minutes and
// a few GiB; an hour at 256 clients x 10,000/s (9 billion) could never finish.
inline constexpr uint64_t kScenarioOperationsOfferedMax = 2'000'000;
// clock_skew()/clock_jump(): a member's wall clock may be at most a year off true time (NTP
// mishaps and restored VM images are off by days; 2^63 ns is 292 years).
inline constexpr int64_t kClockOffsetNsMax = 365LL * 24 * 3'600'000'000'000;

}  // namespace dst::limits
