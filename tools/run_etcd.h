// `dst run etcd`: real clients (a workload profile and watchers) against a simulated etcd-style
// cluster under random faults, then the checkers over what the clients saw.
#pragma once

#include <string>
#include <vector>

namespace dst {

int run_etcd_command(const std::string& self, const std::vector<std::string>& argv);

}  // namespace dst
