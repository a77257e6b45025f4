// Fuzz target: etcdctl 3.4 command lines, as `dst shell` reads them: each line of the input is
// parsed as a command and as a line of a txn body. Promises: no crash or hang; an error says
// something (it is printed as "Error: <message>").
#include <string>
#include <string_view>

#include "client/etcdctl/etcdctl_parse.h"
#include "fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dst;
  if (size > 64 * 1024) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  size_t start = 0;
  for (int lines = 0; start <= text.size() && lines < 256; ++lines) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view line = text.substr(start, end - start);
    Result<std::optional<etcdctl::Invocation>> inv = etcdctl::parse_line(line);
    fuzz::require(inv.is_ok() || !inv.status().message().empty(), "a command error says something", line);
    Result<etcdserverpb::RequestOp> op = etcdctl::parse_txn_op(line);
    fuzz::require(op.is_ok() || !op.status().message().empty(), "a txn error says something", line);
    (void)etcdctl::prefix_range_end(line);
    start = end + 1;
  }
  return 0;
}
