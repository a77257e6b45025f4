// The informer against an apiserver that accepts connections and never answers: its history ends
// with finish(), so a LIST still waiting then is not recorded after the informer's final state.
#include "kube/informer.h"

#include <gtest/gtest.h>

#include <memory>

#include "history/recorder.h"
#include "sim/network.h"
#include "sim/simulator.h"

namespace dst::kube {
namespace {

constexpr uint16_t kApiserverPort = 6443;

TEST(Informer, AListUnansweredAtTheEndIsNotRecordedAfterFinish) {
  sim::Simulator sim(5);
  sim::Network& net = sim.net();
  const sim::HostId server_host = sim.add_host("apiserver");
  const sim::HostId client_host = sim.add_host("kubelet");
  const sim::ProcessId server = sim.start_process(server_host, "apiserver");
  const sim::ProcessId client = sim.start_process(client_host, "kubelet");
  sim.spawn(server, "silent", [&] {
    auto listener = net.listen(server, kApiserverPort);
    ASSERT_TRUE(listener.is_ok());
    while (net.accept(*listener).is_ok()) {
    }
  });
  history::MemoryRecorder recorder;
  InformerOptions o;
  o.client = 9;
  o.apiservers = {sim::Address{server_host, kApiserverPort}};
  o.request_timeout = sim::seconds(5);  // far past the run's end
  const sim::TimeNs until = sim::seconds(1);
  std::shared_ptr<Informer> informer;
  sim.spawn(client, "informer", [&] {
    informer = std::make_shared<Informer>(sim, o, recorder, [](const Notification&) {});
    const std::shared_ptr<Informer> running = informer;
    running->run(until);
  });
  // As KubeWorld does: the final state just after the run's end, while the LIST still waits.
  sim.schedule_at(until + sim::milliseconds(1), sim::kNoProcess, [&] { informer->finish(); });
  sim.run_until(sim::seconds(10));
  ASSERT_EQ(recorder.history().informers.size(), 1u);
  const history::Informer& rec = recorder.history().informers[0];
  EXPECT_TRUE(rec.finished);
  EXPECT_TRUE(rec.lists.empty()) << "a LIST answered (timed out) at " << rec.lists.front().return_ns
                                 << " ns was recorded after the final state at " << rec.final_ns << " ns";
}

}  // namespace
}  // namespace dst::kube
