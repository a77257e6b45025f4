#include "node/watch/watcher.h"

#include "base/probes.h"
#include "node/mvcc/tree_index.h"

namespace dst::watch {

bool Watcher::wants(const mvccpb::Event& event) const {
  if ((event.type() == mvccpb::Event::PUT && filter_put) || (event.type() == mvccpb::Event::DELETE && filter_delete)) {
    DST_PROBE(kWatchFilteredEvent);
    return false;
  }
  return mvcc::in_range(event.kv().key(), key, end);
}

}  // namespace dst::watch
