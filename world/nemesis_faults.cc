#include "world/nemesis_faults.h"

#include <cstdlib>
#include <map>

#include "base/assert.h"

namespace dst::world {

namespace {

bool starts(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// "n2 power-loss torn" -> "n2"
std::string first_word(const std::string& s) { return s.substr(0, s.find(' ')); }

}  // namespace

std::vector<history::Fault> pair_nemesis_log(const std::vector<std::string>& log, int64_t heal_ns) {
  std::vector<history::Fault> out;
  std::map<std::string, size_t> open;  // slot -> index in out
  auto close = [&](const std::string& slot, int64_t at) {
    auto it = open.find(slot);
    if (it == open.end()) return;
    out[it->second].end_ns = at;
    open.erase(it);
  };
  auto close_net = [&](int64_t at) {
    for (auto it = open.begin(); it != open.end();) {
      if (it->first == "net" || starts(it->first, "cut ")) {
        out[it->second].end_ns = at;
        it = open.erase(it);
      } else {
        ++it;
      }
    }
  };
  auto add = [&](const std::string& slot, std::string kind, std::string target, int64_t at, bool instant) {
    if (!slot.empty()) close(slot, at);
    out.push_back(history::Fault{std::move(kind), std::move(target), at, instant ? at : history::kNeverReturned});
    if (!slot.empty() && !instant) open[slot] = out.size() - 1;
  };
  for (const std::string& line : log) {
    // "t=1.234s what"
    DST_ASSERT_MSG(starts(line, "t=") && line.find("s ") != std::string::npos, "nemesis log line: " + line);
    const size_t sp = line.find("s ");
    const auto at = static_cast<int64_t>(std::strtod(line.c_str() + 2, nullptr) * 1e9 + 0.5);
    const std::string what = line.substr(sp + 2);
    if (what == "heal network") {
      close_net(at);
    } else if (what == "heal all") {
      for (auto& [slot, i] : open) out[i].end_ns = at;
      open.clear();
    } else if (starts(what, "partition ")) {
      close_net(at);
      add("net", "partition", what.substr(10), at, false);
    } else if (starts(what, "isolate leader ")) {
      close_net(at);
      add("net", "partition isolate", what.substr(15), at, false);
    } else if (starts(what, "cut ")) {
      add("cut " + what.substr(4), "cut", what.substr(4), at, false);
    } else if (starts(what, "crash ")) {
      const bool leader = starts(what, "crash leader ");
      const std::string rest = what.substr(leader ? 13 : 6);
      const std::string node = first_word(rest);
      const std::string kind = rest.find("torn") != std::string::npos         ? "power-loss-torn"
                               : rest.find("power-loss") != std::string::npos ? "power-loss"
                                                                              : "crash";
      add("down " + node, kind, leader ? node + " (leader)" : node, at, false);
    } else if (starts(what, "restart ")) {
      close("down " + what.substr(8), at);
    } else if (starts(what, "pause ")) {
      add("pause " + what.substr(6), "pause", what.substr(6), at, false);
    } else if (starts(what, "resume ")) {
      close("pause " + what.substr(7), at);
    } else if (starts(what, "slow fsync ")) {
      add("fsync " + what.substr(11), "slow-fsync", what.substr(11), at, false);
    } else if (starts(what, "normal fsync ")) {
      close("fsync " + what.substr(13), at);
    } else if (starts(what, "link loss ")) {
      const std::string pct = what.substr(10);
      if (pct == "0%") close("loss", at);
      else add("loss", "drop", pct, at, false);
    } else if (starts(what, "fail next fsync ")) {
      add("", "fsync-error", what.substr(16), at, true);
    } else if (starts(what, "arm ")) {
      add("", "failpoint", what.substr(4), at, true);
    } else {
      add("", what.substr(0, what.find(' ')), what, at, true);  // an action this parser does not know
    }
  }
  for (auto& [slot, i] : open) out[i].end_ns = heal_ns;
  return out;
}

}  // namespace dst::world
