// The suite's checks as `dst run` and `dst check` print them: one line per check (the world's,
// the history's), then each failed checker's own report. Determinism and the scenario row are the
// caller's to print (a run prints them where its other run facts are).
#pragma once

#include <string>

#include "checker/suite/check_suite.h"

namespace dst::checker::suite {

// "raft invariants   ok\nliveness          recovered in ...\n...\nlinearizability   etcd model: ...\n"
std::string render_check_lines(const SuiteResult& result);

}  // namespace dst::checker::suite
