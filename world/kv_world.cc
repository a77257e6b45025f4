#include "world/kv_world.h"

namespace dst::world {

namespace {
ClusterOptions cluster_options(const KvWorldOptions& o) {
  ClusterOptions c;
  c.nodes = o.nodes;
  c.server = o.server;
  c.server.state_machine = node::StateMachineKind::kKv;
  c.link = o.link;
  return c;
}
}  // namespace

KvWorld::KvWorld(KvWorldOptions options)
    : options_(std::move(options)),
      sim_(std::make_unique<sim::Simulator>(options_.seed)),
      cluster_(std::make_unique<SimCluster>(*sim_, cluster_options(options_))) {
  client_host_ = sim_->add_host("client");
  client_ = sim_->start_process(client_host_, "client");
  connections_.resize(options_.nodes);
  cluster_->start_all();
}

KvWorld::~KvWorld() {
  // Connections close their streams; do it while the simulator is still alive.
  connections_.clear();
  cluster_.reset();
}

sim::Address KvWorld::member_address(size_t i) const {
  return sim::Address{cluster_->host(i), options_.server.api.port};
}

bool KvWorld::run_client(std::function<void()> body, sim::DurationNs bound) {
  bool done = false;
  sim::Simulator* sim = sim_.get();
  sim::FiberId fiber = sim_->spawn(client_, "client-session", [sim, &done, body = std::move(body)] {
    body();
    done = true;
    sim->stop();
  });
  sim_->run_until(sim_->now() + bound);
  if (done) return true;
  // Cancelled, its blocking calls return at once; it must end before we return, since `body`
  // refers to the caller's frame. Bounded: each step lets it run to its next blocking call.
  sim_->cancel(fiber);
  for (int step = 0; step < 1000 && sim_->fiber_alive(fiber); ++step) sim_->run_until(sim_->now() + sim::milliseconds(1));
  DST_ASSERT_MSG(!sim_->fiber_alive(fiber), "a cancelled client fiber did not end");
  return false;
}

bool KvWorld::await_stable_leader(sim::DurationNs bound) {
  const sim::TimeNs deadline = sim_->now() + bound;
  while (sim_->now() < deadline) {
    sim_->run_for(sim::milliseconds(10));
    std::optional<size_t> l = cluster_->leader();
    if (!l) continue;
    const uint64_t commit = cluster_->server(*l)->raft().log().committed();
    bool caught_up = true;
    for (size_t i = 0; i < cluster_->size(); ++i) {
      const node::Server* s = cluster_->server(i);
      if (s == nullptr) continue;  // down: not waited for
      if (s->raft().log().applied() < commit) caught_up = false;
    }
    if (caught_up && cluster_->server(*l)->raft().log().applied() >= commit) return true;
  }
  return false;
}

rpc::Connection* KvWorld::connection(size_t i) {
  DST_ASSERT_LT(i, cluster_->size());
  if (i >= connections_.size()) connections_.resize(cluster_->size());  // a member added since
  if (connections_[i] && connections_[i]->broken()) connections_[i].reset();
  if (!connections_[i]) {
    auto c = rpc::Connection::open(sim_->current_env(), member_address(i));
    if (!c.is_ok()) return nullptr;
    connections_[i] = std::move(c).value();
  }
  return connections_[i].get();
}

}  // namespace dst::world
