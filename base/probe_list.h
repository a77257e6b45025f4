// The probes (base/probes.h): DST_PROBE_ENUM(id, name, meaning), one row each, grouped by where
// they sit. Included twice by design (the enum, and the name table in probes.cc); no include guard.
// A name is "area.what-happened"; the meaning says, in one line, what state the run reached there.

// --- raft (node/raft) ---------------------------------------------------------------------------
DST_PROBE_ENUM(kRaftPreVoteRefused, "raft.prevote-refused", "a pre-vote was refused (a leader is known, or the candidate's log is behind)")
DST_PROBE_ENUM(kRaftVoteRefusedVotedOther, "raft.vote-refused-voted-other", "a vote was refused because this node already voted for another candidate in the term")
DST_PROBE_ENUM(kRaftVoteRefusedLogBehind, "raft.vote-refused-log-behind", "a vote was refused because the candidate's log is less up to date (§5.4.1)")
DST_PROBE_ENUM(kRaftElectionLost, "raft.election-lost", "a candidate lost its election (a quorum rejected it)")
DST_PROBE_ENUM(kRaftLeaderElected, "raft.leader-elected", "a node became leader")
DST_PROBE_ENUM(kRaftCheckQuorumStepDown, "raft.check-quorum-step-down", "a leader stepped down for not hearing from a quorum for an election timeout")
DST_PROBE_ENUM(kRaftAppendRejected, "raft.append-rejected", "a follower rejected an append whose previous entry it lacks or holds at another term")
DST_PROBE_ENUM(kRaftConflictTruncated, "raft.conflict-truncated", "a follower overwrote uncommitted entries of its log with the leader's")
DST_PROBE_ENUM(kRaftSnapshotSent, "raft.snapshot-sent", "a leader sent a snapshot to a follower whose next entry it had compacted away")
DST_PROBE_ENUM(kRaftSnapshotRestored, "raft.snapshot-restored", "a follower's Raft restored a leader's snapshot")
DST_PROBE_ENUM(kRaftReadIndexWaitsForTermCommit, "raft.read-index-waits-for-term-commit", "a new leader held a ReadIndex until it committed an entry of its own term (§8)")
DST_PROBE_ENUM(kRaftReadIndexAnswered, "raft.read-index-answered", "a leader confirmed its leadership with a quorum and answered a ReadIndex")
DST_PROBE_ENUM(kRaftProposalForwarded, "raft.proposal-forwarded", "a follower forwarded a proposal to the leader")
DST_PROBE_ENUM(kRaftProposalDroppedNoLeader, "raft.proposal-dropped-no-leader", "a proposal was dropped because no leader was known")
DST_PROBE_ENUM(kRaftConfChangeApplied, "raft.conf-change-applied", "a membership change was applied to Raft's configuration")
DST_PROBE_ENUM(kRaftLeaderTransfer, "raft.leader-transfer", "a leader transferred its leadership (TimeoutNow sent)")

// --- wal and snapshots (node/wal) ---------------------------------------------------------------
DST_PROBE_ENUM(kWalTornTailRepaired, "wal.torn-tail-repaired", "opening the WAL found a torn or unsynced tail and cut the log back to its last whole record")
DST_PROBE_ENUM(kWalSegmentCut, "wal.segment-cut", "the WAL cut a new segment")
DST_PROBE_ENUM(kWalCorruptionRefused, "wal.corruption-refused", "opening the WAL found a bad record that cannot be a torn tail (valid data after it, or in a header) and refused to start")
DST_PROBE_ENUM(kWalOpenedAtOlderSnapshot, "wal.opened-at-older-snapshot", "the newest snapshot file had no WAL marker (a crash between the saves): the member opened at an older one")

// --- the member (node/server) ---------------------------------------------------------------------
DST_PROBE_ENUM(kServerSnapshotInstalled, "server.snapshot-installed", "a member installed a leader's snapshot into its state machine")
DST_PROBE_ENUM(kServerSnapshotTaken, "server.snapshot-taken", "a member took a snapshot of its state and compacted its log")
DST_PROBE_ENUM(kServerRequestTimedOut, "server.request-timed-out", "a write or linearizable read was not applied within the request timeout")
DST_PROBE_ENUM(kServerReadIndexRetried, "server.read-index-retried", "a linearizable read asked for a ReadIndex again after no answer")
DST_PROBE_ENUM(kServerNospaceRaised, "server.nospace-raised", "a request over the quota raised the NOSPACE alarm")
DST_PROBE_ENUM(kServerNospaceCleared, "server.nospace-cleared", "the NOSPACE alarm was disarmed")
DST_PROBE_ENUM(kServerRefusedUnderNospace, "server.refused-under-nospace", "a write was refused (applied as a no-op) while NOSPACE was raised")
DST_PROBE_ENUM(kServerMemberRemovedItself, "server.member-removed-itself", "a member applied its own removal and stopped")
DST_PROBE_ENUM(kServerLeaseKeepAliveForwarded, "server.lease-keepalive-forwarded", "a follower forwarded a lease keep-alive to the leader")
DST_PROBE_ENUM(kServerLeadershipUnconfirmed, "server.leadership-unconfirmed", "a member that believed it led could not confirm it with a quorum before a lease renewal or revoke")
DST_PROBE_ENUM(kServerSnapshotStreamed, "server.snapshot-streamed", "a member sent a client a consistent snapshot of its backend (etcdctl snapshot save)")
DST_PROBE_ENUM(kServerLearnerPromoted, "server.learner-promoted", "a learner caught up and was promoted to a voting member (etcdctl member promote)")
DST_PROBE_ENUM(kServerMemberUpdated, "server.member-updated", "a member's peer URLs were changed through Raft (etcdctl member update)")
DST_PROBE_ENUM(kServerLeadershipMoved, "server.leadership-moved", "a leader handed its leadership to another member on request (etcdctl move-leader)")
DST_PROBE_ENUM(kServerAutoCompacted, "server.auto-compacted", "a member's automatic compactor (--auto-compaction-*) compacted the store")
DST_PROBE_ENUM(kServerAutoCompactionAlreadyDone, "server.auto-compaction-already-done", "an automatic compaction found its revision compacted already (a success, as in etcd)")
DST_PROBE_ENUM(kServerRestoredFromSnapshot, "server.restored-from-snapshot", "a member of a restored cluster started from a snapshot file's image (etcdctl snapshot restore)")
DST_PROBE_ENUM(kSnapshotFileHashMismatch, "server.snapshot-file-hash-mismatch", "a snapshot file's integrity hash did not match its image")
DST_PROBE_ENUM(kSnapshotRestoreBumpedRevision, "server.snapshot-restore-bumped-revision", "a restore moved the revision ahead and marked it compacted (--bump-revision, --mark-compacted)")
DST_PROBE_ENUM(kServerExitedOnError, "server.exited-on-error", "a member took itself down on a storage error (WAL, snapshot or backend)")

// --- mvcc, backend, lease (node/mvcc, node/backend, node/lease) ---------------------------------------
DST_PROBE_ENUM(kMvccCompactionFinishedAtOpen, "mvcc.compaction-finished-at-open", "a store opened with a compaction scheduled but not finished, and finished it")
DST_PROBE_ENUM(kMvccCompacted, "mvcc.compacted", "a compaction removed the history below its revision from the backend")
DST_PROBE_ENUM(kMvccRangeMore, "mvcc.range-more", "a range with a limit left keys out (more = true)")
DST_PROBE_ENUM(kMvccRangeCompacted, "mvcc.range-compacted", "a range at a compacted revision was refused (ErrCompacted)")
DST_PROBE_ENUM(kMvccHistoryCompactedWhileRead, "mvcc.history-compacted-while-read", "a history read (a watch catching up) found the store compacted past its start when the read came back")
DST_PROBE_ENUM(kMvccTxnFailureBranch, "mvcc.txn-failure-branch", "a txn's compares failed and its failure branch ran")
DST_PROBE_ENUM(kMvccDeleteMissingKey, "mvcc.delete-missing-key", "a delete found nothing to delete")
DST_PROBE_ENUM(kBackendDefragmented, "backend.defragmented", "a backend was defragmented (VACUUM)")
DST_PROBE_ENUM(kBackendFilesMadeDurable, "backend.files-made-durable", "a backend opened after a crash rewrote its cached files to make them durable")
DST_PROBE_ENUM(kLeaseExpiredRevoked, "lease.expired-revoked", "the leader's lessor found a lease expired and proposed its revoke")
DST_PROBE_ENUM(kLeasePromoted, "lease.promoted", "a new leader's lessor extended every lease by an election timeout")
DST_PROBE_ENUM(kLeaseKeepAliveUnknown, "lease.keepalive-unknown", "a keep-alive named a lease that does not exist (expired or revoked)")

// --- watch (node/watch) ---------------------------------------------------------------------------
DST_PROBE_ENUM(kWatchCompactionCancel, "watch.compaction-cancel", "a watcher was canceled because the revision it needed was compacted")
DST_PROBE_ENUM(kWatchMovedToUnsynced, "watch.moved-to-unsynced", "a synced watcher found its stream's queue full and fell back to catching up")
DST_PROBE_ENUM(kWatchCatchUpQueueFull, "watch.catch-up-queue-full", "a watcher catching up stopped because its stream's queue was full")
DST_PROBE_ENUM(kWatchCaughtUp, "watch.caught-up", "a catching-up watcher reached the store's revision and became synced")
DST_PROBE_ENUM(kWatchRestoredFromSnapshot, "watch.restored-from-snapshot", "a snapshot replaced the store under live watchers")
DST_PROBE_ENUM(kWatchProgressDeferred, "watch.progress-deferred", "a progress request waited while a watcher of the stream caught up")
DST_PROBE_ENUM(kWatchFilteredEvent, "watch.filtered-event", "a watcher's NOPUT/NODELETE filter dropped an event")
DST_PROBE_ENUM(kWatchMultiEventRevision, "watch.multi-event-revision", "a watcher got a revision with several events (a txn) in one response")
DST_PROBE_ENUM(kWatchPrevKvOnCatchUp, "watch.prev-kv-on-catch-up", "a watcher catching up from history was sent events with their previous values")

// --- clients (client/) ------------------------------------------------------------------------------
DST_PROBE_ENUM(kClientStalled, "client.stalled", "a KV client (or its lease keep-alive stream) sat out a stall: nothing sent, its answer read late")
DST_PROBE_ENUM(kClientFailover, "client.failover", "a client that is not pinned moved to another member")
DST_PROBE_ENUM(kClientWriteUnknown, "client.write-unknown", "a write's outcome was unknown (no answer, or Unavailable)")
DST_PROBE_ENUM(kClientWatchResumed, "client.watch-resumed", "a watch resumed on a new stream after its stream broke")
DST_PROBE_ENUM(kClientWatchStalled, "client.watch-stalled", "a watch client stopped reading for a while (a watch_stall fault)")
DST_PROBE_ENUM(kClientWatchRewound, "client.watch-rewound", "a watch client dropped its watch to watch again from an older revision (watch_rewind)")
DST_PROBE_ENUM(kClientWatchCompacted, "client.watch-compacted", "a watch was canceled by compaction and ended")

// --- kube (kube/) ----------------------------------------------------------------------------------
DST_PROBE_ENUM(kKubeCacheRelist, "kube.cache-relist", "an apiserver's watch cache re-listed from etcd after its watch ended")
DST_PROBE_ENUM(kKubeListWaitedForCache, "kube.list-waited-for-cache", "a LIST at a resourceVersion newer than the cache waited for the cache to catch up")
DST_PROBE_ENUM(kKubeWatchGone, "kube.watch-gone", "a WATCH ended with 410 Gone (its resourceVersion left the cache's ring)")
DST_PROBE_ENUM(kKubeInformerRelist, "kube.informer-relist", "an informer re-listed after its watch ended")
DST_PROBE_ENUM(kKubeUpdateConflict, "kube.update-conflict", "an update at a stale resourceVersion was refused with 409 Conflict")
DST_PROBE_ENUM(kKubeWorkqueueRetry, "kube.workqueue-retry", "a controller re-queued a key with backoff after a failure")

// --- the simulated machine (sim/) --------------------------------------------------------------------
DST_PROBE_ENUM(kSimTornWrite, "sim.torn-write", "a power loss left a torn prefix of unsynced data on a disk")
DST_PROBE_ENUM(kSimTornWriteOverSynced, "sim.torn-write-over-synced", "a torn write began inside bytes that were already durable, leaving an old record half overwritten")
DST_PROBE_ENUM(kSimFsyncFailed, "sim.fsync-failed", "an fsync failed (and the data it covered may never be durable)")
DST_PROBE_ENUM(kSimStreamBroken, "sim.stream-broken", "a stream broke because its link stayed cut past the keepalive timeout")
