#include "kube/kube_world.h"

#include <algorithm>
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
  DST_ASSERT_LE(options_.informers, kKubeInformersMax);
  // Never grown after this: the running processes hold pointers to their stats.
  apiservers_.resize(options_.apiservers);
  controllers_.resize(options_.controllers);
  informers_.resize(options_.informers);
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
  launch_controllers(endpoints, writes_until);
  launch_informers(endpoints);
  // World code, not a controller's fiber: a paused controller's timers shift, this does not.
  sim_.schedule_at(until + sim::milliseconds(1), sim::kNoProcess, [this] { finish_informers(); });
}

void KubeWorld::launch_controllers(const std::vector<sim::Address>& endpoints, sim::TimeNs writes_until) {
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
}

void KubeWorld::launch_informers(const std::vector<sim::Address>& endpoints) {
  for (size_t i = 0; i < informers_.size(); ++i) {
    InformerHost& h = informers_[i];
    h.host = sim_.add_host("kubelet" + std::to_string(i + 1));
    h.process = sim_.start_process(h.host, "kubelet" + std::to_string(i + 1));
    InformerOptions o;
    o.client = history::kInformerWithoutWorkqueueClientIdBase + static_cast<uint32_t>(i + 1);
    o.prefix = options_.prefix;
    o.apiservers = endpoints;
    o.first_apiserver = i % endpoints.size();
    // Its "node's pods": the objects under one controller key's name taken as a prefix (c2-7 also
    // selects c2-70..c2-79), dealt out in turn over the controllers' keys, so that every write
    // reaches a few kubelets rather than all of them, as a pod reaches its node's kubelet.
    if (!controllers_.empty()) {
      const size_t c = i % controllers_.size(), k = (i / controllers_.size()) % std::max<size_t>(1, options_.keys);
      o.selector = options_.prefix + "c" + std::to_string(c + 1) + "-" + std::to_string(k);
    }
    o.resync_every = options_.resync_every;
    o.bugs = options_.bugs;
    // A kubelet acts on what it is told elsewhere; here it only holds the store the checks read.
    sim_.spawn(h.process, "informer", [this, o, &h] {
      h.informer = std::make_shared<Informer>(sim_, o, recorder_, [](const Notification&) {});
      const std::shared_ptr<Informer> running = h.informer;
      running->run(until_);
    });
  }
}

void KubeWorld::finish_informers() {
  for (ControllerHost& c : controllers_) {
    if (!c.controller) continue;
    c.controller->finish();
    c.stats = c.controller->stats();
    c.controller.reset();
  }
  for (InformerHost& h : informers_) {
    if (!h.informer) continue;
    h.informer->finish();
    h.stats = h.informer->stats();
    h.informer.reset();
  }
}

size_t KubeWorld::index(size_t n, size_t count, const char* what) {
  DST_ASSERT_MSG(n >= 1 && n <= count, std::string(what) + " " + std::to_string(n) + " does not exist");
  return n - 1;
}

bool KubeWorld::apiserver_crashed(size_t n) const { return apiservers_[index(n, apiservers_.size(), "apiserver")].crashed; }
bool KubeWorld::apiserver_cut(size_t n) const { return apiservers_[index(n, apiservers_.size(), "apiserver")].cut; }
bool KubeWorld::controller_paused(size_t n) const {
  return controllers_[index(n, controllers_.size(), "controller")].paused;
}

void KubeWorld::crash_apiserver(size_t n) {
  ApiserverHost& a = apiservers_[index(n, apiservers_.size(), "apiserver")];
  if (a.crashed) return;
  if (sim_.alive(a.process)) sim_.kill(a.process);
  a.crashed = true;
}

void KubeWorld::restart_apiserver(size_t n) {
  ApiserverHost& a = apiservers_[index(n, apiservers_.size(), "apiserver")];
  if (!a.crashed) return;
  a.crashed = false;
  ++a.restarts;
  launch_apiserver(n - 1);
}

void KubeWorld::set_apiserver_reachable(size_t n, bool reachable) {
  ApiserverHost& a = apiservers_[index(n, apiservers_.size(), "apiserver")];
  if (a.cut == !reachable) return;
  for (const sim::Address& m : members_) {
    sim_.net().set_reachable(a.host, m.host, reachable);
    sim_.net().set_reachable(m.host, a.host, reachable);
  }
  a.cut = !reachable;
}

void KubeWorld::cut_apiserver(size_t n) { set_apiserver_reachable(n, false); }
void KubeWorld::reconnect_apiserver(size_t n) { set_apiserver_reachable(n, true); }

void KubeWorld::pause_controller(size_t n) {
  ControllerHost& c = controllers_[index(n, controllers_.size(), "controller")];
  if (c.paused || !sim_.alive(c.process)) return;
  sim_.pause(c.process);
  c.paused = true;
}

void KubeWorld::resume_controller(size_t n) {
  ControllerHost& c = controllers_[index(n, controllers_.size(), "controller")];
  if (!c.paused) return;
  if (sim_.alive(c.process)) sim_.resume(c.process);
  c.paused = false;
}

void KubeWorld::heal() {
  for (size_t n = 1; n <= apiservers_.size(); ++n) {
    reconnect_apiserver(n);
    restart_apiserver(n);
  }
  for (size_t n = 1; n <= controllers_.size(); ++n) resume_controller(n);
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
  if (!informers_.empty()) out.push_back(informers_summary());
  return out;
}

std::string KubeWorld::informers_summary() const {
  InformerStats t;
  for (const InformerHost& h : informers_) {
    const InformerStats& f = h.informer ? h.informer->stats() : h.stats;
    t.lists += f.lists;
    t.list_failures += f.list_failures;
    t.watches += f.watches;
    t.gone += f.gone;
    t.events += f.events;
    t.refused += f.refused;
  }
  char line[512];
  std::snprintf(line, sizeof line,
                "%zu kubelet informers: %llu lists (%llu failed), %llu watches (%llu ended 410), %llu events, %llu refused",
                informers_.size(), static_cast<unsigned long long>(t.lists),
                static_cast<unsigned long long>(t.list_failures), static_cast<unsigned long long>(t.watches),
                static_cast<unsigned long long>(t.gone), static_cast<unsigned long long>(t.events),
                static_cast<unsigned long long>(t.refused));
  return line;
}

}  // namespace dst::kube
