#include "kube/controller.h"

#include <algorithm>
#include <memory>

#include "base/assert.h"
#include "base/probes.h"
#include "kube/kube_client.h"
#include "sim/sync.h"

namespace dst::kube {

namespace {

constexpr char kStatusMark[] = ";status=";

}  // namespace

Controller::Controller(sim::Simulator& sim, const ControllerOptions& options, history::Recorder& recorder)
    : sim_(sim),
      options_(options),
      recorder_(recorder),
      queue_(options.queue),
      wake_(sim),
      rng_(sim.rng("kube-controller-" + std::to_string(options.index))),
      informer_(sim, informer_options(options), recorder, [this](const Notification& n) { on_notification(n); }) {
  DST_ASSERT(!options.apiservers.empty());
  DST_ASSERT_GE(options.index, 1u);
  apiserver_ = options_.index % options_.apiservers.size();  // writes on another apiserver than the informer
}

InformerOptions Controller::informer_options(const ControllerOptions& o) {
  InformerOptions i;
  i.client = o.client;
  i.prefix = o.prefix;
  i.apiservers = o.apiservers;
  i.first_apiserver = o.index - 1;
  i.request_timeout = o.request_timeout;
  i.resync_every = o.resync_every;
  i.bugs = o.bugs;
  return i;
}

void Controller::on_notification(const Notification& n) {
  // A full queue (capacity distinct keys) drops the add: the key is then caught by the next
  // resync, as client-go's bounded queues would.
  if (queue_.add(n.key).is_ok()) wake_.notify_all();
}

std::shared_ptr<Controller> Controller::start(sim::Simulator& sim, const ControllerOptions& options,
                                              history::Recorder& recorder, sim::TimeNs writes_until,
                                              sim::TimeNs until) {
  auto c = std::make_shared<Controller>(sim, options, recorder);
  const sim::ProcessId self = sim.current_process();
  sim.spawn(self, "informer", [c, until] { c->informer_.run(until); });
  for (size_t w = 0; w < options.workers; ++w) sim.spawn(self, "worker", [c, until] { c->worker(until); });
  if (options.writes_per_second > 0) sim.spawn(self, "writer", [c, writes_until] { c->writer(writes_until); });
  return c;
}

ControllerStats Controller::stats() const {
  ControllerStats s = stats_;
  s.informer = informer_.stats();
  return s;
}

Result<kubeapi::KubeResponse> Controller::call(const kubeapi::KubeRequest& req) {
  if (!conn_ || conn_->broken()) {
    auto opened = KubeConnection::open(sim_, options_.apiservers[apiserver_]);
    if (!opened.is_ok()) {
      apiserver_ = (apiserver_ + 1) % options_.apiservers.size();
      return opened.status();
    }
    conn_ = std::move(opened).value();
  }
  // Workers share the connection: this call's copy keeps it alive while another worker's failure
  // replaces it.
  const std::shared_ptr<KubeConnection> conn = conn_;
  auto r = conn->call(req, options_.request_timeout);
  if (!r.is_ok() && conn_ == conn) {
    conn_.reset();
    apiserver_ = (apiserver_ + 1) % options_.apiservers.size();
  }
  return r;
}

void Controller::worker(sim::TimeNs until) {
  // Bounded by `until`: every pass reconciles (which takes time) or waits.
  while (sim_.now() < until) {
    const std::optional<int64_t> due = queue_.promote_due(sim_.now());
    std::optional<std::string> key = queue_.get();
    if (!key) {
      const sim::TimeNs wake = std::min<sim::TimeNs>(until, due.value_or(until));
      if (wake_.wait_until(std::max(wake, sim_.now() + 1)) == sim::WaitResult::kCancelled) return;
      continue;
    }
    reconcile(*key);
    queue_.done(*key);
  }
}

void Controller::reconcile(const std::string& key) {
  // The worker's own work first, then a look at the informer's store, as a controller's
  // reconcile reads its cache.
  if (sim_.sleep(options_.reconcile_time) != sim::WaitResult::kOk) return;
  const InformerStore& store = informer_.store();
  auto it = store.objects().find(key);
  history::KubeProcessed rec;
  rec.at_ns = sim_.now();
  rec.key = key;
  rec.informer_rv = store.resource_version();
  rec.present = it != store.objects().end();
  if (rec.present) rec.object_rv = it->second.resource_version;
  recorder_.informer_processed(informer_.id(), rec);
  ++stats_.reconciled;
  if (!rec.present || it->second.value.find(kStatusMark) != std::string::npos) {
    queue_.forget(key);
    return;  // nothing to do: gone, or its status is set
  }
  kubeapi::KubeRequest req;
  kubeapi::UpdateRequest* u = req.mutable_update();
  u->set_key(key);
  u->set_value(it->second.value + kStatusMark + "c" + std::to_string(options_.index) + "-r" + std::to_string(++statuses_));
  u->set_resource_version(rec.object_rv);
  auto r = call(req);
  ++stats_.updates;
  const int32_t code = r.is_ok() ? r->status().code() : 0;
  if (code == 200 || code == 404) {
    queue_.forget(key);
    return;
  }
  if (code == 409) ++stats_.conflicts;
  else ++stats_.failures;
  DST_PROBE(kKubeWorkqueueRetry);
  if (queue_.add_rate_limited(key, sim_.now()).is_ok()) wake_.notify_all();
}

void Controller::writer(sim::TimeNs until) {
  const double mean_gap_ns = 1e9 / options_.writes_per_second;
  while (sim_.now() < until) {
    const auto gap = static_cast<sim::DurationNs>(rng_.exponential(mean_gap_ns));
    if (sim_.sleep(std::max<sim::DurationNs>(gap, 1)) != sim::WaitResult::kOk) return;
    if (sim_.now() >= until) return;
    const std::string key = options_.prefix + "c" + std::to_string(options_.index) + "-" +
                            std::to_string(rng_.uniform_u64(std::max<size_t>(options_.keys, 1)));
    const std::string value = "c" + std::to_string(options_.index) + "-w" + std::to_string(++writes_);
    kubeapi::KubeRequest req;
    if (!informer_.store().objects().contains(key)) {
      req.mutable_create()->set_key(key);
      req.mutable_create()->set_value(value);
    } else if (rng_.bernoulli(0.5)) {
      req.mutable_update()->set_key(key);
      req.mutable_update()->set_value(value);
    } else {
      req.mutable_delete_()->set_key(key);
    }
    auto r = call(req);
    ++stats_.writes;
    if (!r.is_ok() || r->status().code() >= 300) ++stats_.write_failures;
  }
}

}  // namespace dst::kube
