#include "node/mvcc/revision.h"

#include "base/big_endian.h"

namespace dst::mvcc {

std::string encode_revision(Revision rev, bool tombstone) {
  DST_ASSERT_GE(rev.main, 0);
  DST_ASSERT_GE(rev.sub, 0);
  std::string out;
  out.reserve(kRevisionBytes + 1);
  append_be(out, static_cast<uint64_t>(rev.main));
  out.push_back('_');
  append_be(out, static_cast<uint64_t>(rev.sub));
  if (tombstone) out.push_back('t');
  return out;
}

Result<DecodedRevision> decode_revision(std::string_view bytes) {
  bool tombstone = bytes.size() == kRevisionBytes + 1 && bytes.back() == 't';
  if ((bytes.size() != kRevisionBytes && !tombstone) || bytes[8] != '_') {
    return Status(StatusCode::kCorruption, "not an mvcc revision key (" + std::to_string(bytes.size()) + " bytes)");
  }
  DecodedRevision d;
  d.rev.main = static_cast<int64_t>(read_be(bytes.substr(0, 8)));
  d.rev.sub = static_cast<int64_t>(read_be(bytes.substr(9, 8)));
  d.tombstone = tombstone;
  if (d.rev.main < 0 || d.rev.sub < 0) return Status(StatusCode::kCorruption, "negative mvcc revision");
  return d;
}

}  // namespace dst::mvcc
