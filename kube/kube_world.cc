#include "kube/kube_world.h"

#include <cstdio>

#include "base/assert.h"

namespace dst::kube {

KubeWorld::KubeWorld(sim::Simulator& sim, KubeWorldOptions options, std::vector<sim::Address> members,
                     history::Recorder& recorder)
    : sim_(sim), options_(std::move(options)), members_(std::move(members)), recorder_(recorder) {
  DST_ASSERT(!members_.empty());
  DST_ASSERT_GE(options_.apiservers, 1u);
  DST_ASSERT_LE(options_.apiservers, kKubeProcessesMax);
  DST_ASSERT_LE(options_.controllers, kKubeProcessesMax);
  // Never grown after this: the running processes hold pointers to their stats.
  apiservers_.resize(options_.apiservers);
  controllers_.resize(options_.controllers);
}

void KubeWorld::launch_apiserver(size_t i) {
  ApiserverHost& a = apiservers_[i];
  DST_ASSERT(a.process == sim::kNoProcess || !sim_.alive(a.process));
  a.process = sim_.start_process(a.host, "apiserver" + std::to_string(i + 1));
  a.previous += a.stats;
  a.stats = ApiserverStats{};
  ApiserverOptions o;
  o.prefix = options_.prefix;
  o.members = members_;
  o.cache_capacity = options_.cache_capacity;
  o.bugs = options_.bugs;
  o.next_client_id = [this] {
    DST_ASSERT_LT(next_client_id_, kApiserverClientIdsMax);
    return kApiserverClientIdBase + next_client_id_++;
  };
  sim_.spawn(a.process, "apiserver", [this, o, &a] { run_apiserver(sim_, o, recorder_, until_, &a.stats); });
}

void KubeWorld::start(sim::TimeNs writes_until, sim::TimeNs until) {
  DST_ASSERT_LE(writes_until, until);
  until_ = until;
  for (size_t i = 0; i < apiservers_.size(); ++i) {
    apiservers_[i].host = sim_.add_host("apiserver" + std::to_string(i + 1));
    launch_apiserver(i);
  }
  std::vector<sim::Address> endpoints;
  for (const ApiserverHost& a : apiservers_) endpoints.push_back(sim::Address{a.host, kApiserverPort});
  for (size_t i = 0; i < controllers_.size(); ++i) {
    ControllerHost& c = controllers_[i];
    c.host = sim_.add_host("controller" + std::to_string(i + 1));
    c.process = sim_.start_process(c.host, "controller" + std::to_string(i + 1));
    ControllerOptions o;
    o.index = static_cast<uint32_t>(i + 1);
    o.client = kInformerClientIdBase + o.index;
    o.prefix = options_.prefix;
    o.apiservers = endpoints;
    o.writes_per_second = options_.writes_per_second;
    o.keys = options_.keys;
    o.resync_every = options_.resync_every;
    o.bugs = options_.bugs;
    sim_.spawn(c.process, "controller", [this, o, writes_until, &c] {
      c.controller = Controller::start(sim_, o, recorder_, writes_until, until_);
    });
  }
  // World code, not a controller's fiber: a paused controller's timers shift, this does not.
  sim_.schedule_at(until + sim::milliseconds(1), sim::kNoProcess, [this] {
    for (ControllerHost& c : controllers_) {
      if (!c.controller) continue;
      c.controller->finish();
      c.stats = c.controller->stats();
      c.controller.reset();
    }
  });
}

Status KubeWorld::check_number(size_t n, size_t count, const char* what) const {
  if (n >= 1 && n <= count) return Status::ok();
  return Status(StatusCode::kInvalidArgument, std::string(what) + " " + std::to_string(n) + " does not exist (1.." +
                                                  std::to_string(count) + ")");
}

uint64_t KubeWorld::fault(const std::string& kind, const std::string& target) {
  history::Fault f;
  f.kind = kind;
  f.target = target;
  f.start_ns = sim_.now();
  fault_log_.add(sim_.now(), kind + " " + target);
  return recorder_.fault_started(f);
}

void KubeWorld::end_fault(uint64_t& id) {
  if (id == kNoFault) return;
  recorder_.fault_ended(id, sim_.now());
  id = kNoFault;
}

Status KubeWorld::crash_apiserver(size_t n) {
  if (Status s = check_number(n, apiservers_.size(), "apiserver"); !s.is_ok()) return s;
  ApiserverHost& a = apiservers_[n - 1];
  if (a.crash_fault != kNoFault) return Status::ok();
  if (sim_.alive(a.process)) sim_.kill(a.process);
  a.crash_fault = fault("apiserver-crash", "apiserver" + std::to_string(n));
  return Status::ok();
}

Status KubeWorld::restart_apiserver(size_t n) {
  if (Status s = check_number(n, apiservers_.size(), "apiserver"); !s.is_ok()) return s;
  ApiserverHost& a = apiservers_[n - 1];
  if (a.crash_fault == kNoFault) return Status::ok();
  end_fault(a.crash_fault);
  fault_log_.add(sim_.now(), "restart apiserver" + std::to_string(n));
  ++a.restarts;
  launch_apiserver(n - 1);
  return Status::ok();
}

Status KubeWorld::cut_apiserver(size_t n) {
  if (Status s = check_number(n, apiservers_.size(), "apiserver"); !s.is_ok()) return s;
  ApiserverHost& a = apiservers_[n - 1];
  if (a.cut_fault != kNoFault) return Status::ok();
  for (const sim::Address& m : members_) {
    sim_.net().set_reachable(a.host, m.host, false);
    sim_.net().set_reachable(m.host, a.host, false);
  }
  a.cut_fault = fault("partition", "apiserver" + std::to_string(n) + "|etcd");
  return Status::ok();
}

Status KubeWorld::reconnect_apiserver(size_t n) {
  if (Status s = check_number(n, apiservers_.size(), "apiserver"); !s.is_ok()) return s;
  ApiserverHost& a = apiservers_[n - 1];
  if (a.cut_fault == kNoFault) return Status::ok();
  for (const sim::Address& m : members_) {
    sim_.net().set_reachable(a.host, m.host, true);
    sim_.net().set_reachable(m.host, a.host, true);
  }
  end_fault(a.cut_fault);
  return Status::ok();
}

Status KubeWorld::pause_controller(size_t n) {
  if (Status s = check_number(n, controllers_.size(), "controller"); !s.is_ok()) return s;
  ControllerHost& c = controllers_[n - 1];
  if (c.pause_fault != kNoFault || !sim_.alive(c.process)) return Status::ok();
  sim_.pause(c.process);
  c.pause_fault = fault("pause", "controller" + std::to_string(n));
  return Status::ok();
}

Status KubeWorld::resume_controller(size_t n) {
  if (Status s = check_number(n, controllers_.size(), "controller"); !s.is_ok()) return s;
  ControllerHost& c = controllers_[n - 1];
  if (c.pause_fault == kNoFault) return Status::ok();
  if (sim_.alive(c.process)) sim_.resume(c.process);
  end_fault(c.pause_fault);
  return Status::ok();
}

void KubeWorld::heal() {
  for (size_t n = 1; n <= apiservers_.size(); ++n) {
    DST_ASSERT(reconnect_apiserver(n).is_ok());
    DST_ASSERT(restart_apiserver(n).is_ok());
  }
  for (size_t n = 1; n <= controllers_.size(); ++n) DST_ASSERT(resume_controller(n).is_ok());
}

std::vector<std::string> KubeWorld::summary() const {
  std::vector<std::string> out;
  char line[512];
  for (size_t i = 0; i < apiservers_.size(); ++i) {
    ApiserverStats s = apiservers_[i].previous;
    s += apiservers_[i].stats;
    std::snprintf(line, sizeof line,
                  "apiserver%zu: %llu restarts; cache: %llu lists and %llu watches of etcd (%llu canceled by "
                  "compaction), %llu events; served %llu lists from etcd, %llu from the cache, %llu watches (%llu "
                  "ended 410, %llu ended with the cache's etcd watch), %llu events, %llu bookmarks, %llu writes (%llu "
                  "conflicts)",
                  i + 1, static_cast<unsigned long long>(apiservers_[i].restarts),
                  static_cast<unsigned long long>(s.cache.lists), static_cast<unsigned long long>(s.cache.watches),
                  static_cast<unsigned long long>(s.cache.compacted), static_cast<unsigned long long>(s.cache.events),
                  static_cast<unsigned long long>(s.lists_from_etcd), static_cast<unsigned long long>(s.lists_from_cache),
                  static_cast<unsigned long long>(s.watches), static_cast<unsigned long long>(s.gone),
                  static_cast<unsigned long long>(s.terminated), static_cast<unsigned long long>(s.events_sent),
                  static_cast<unsigned long long>(s.bookmarks), static_cast<unsigned long long>(s.writes),
                  static_cast<unsigned long long>(s.conflicts));
    out.push_back(line);
  }
  for (size_t i = 0; i < controllers_.size(); ++i) {
    const ControllerStats s = controllers_[i].controller ? controllers_[i].controller->stats() : controllers_[i].stats;
    const InformerStats& f = s.informer;
    std::snprintf(line, sizeof line,
                  "controller%zu: informer %llu lists (%llu failed), %llu watches (%llu ended 410), %llu events, "
                  "%llu refused; %llu keys reconciled, %llu status updates (%llu conflicts), %llu writes",
                  i + 1, static_cast<unsigned long long>(f.lists), static_cast<unsigned long long>(f.list_failures),
                  static_cast<unsigned long long>(f.watches), static_cast<unsigned long long>(f.gone),
                  static_cast<unsigned long long>(f.events), static_cast<unsigned long long>(f.refused),
                  static_cast<unsigned long long>(s.reconciled), static_cast<unsigned long long>(s.updates),
                  static_cast<unsigned long long>(s.conflicts), static_cast<unsigned long long>(s.writes));
    out.push_back(line);
  }
  return out;
}

}  // namespace dst::kube
