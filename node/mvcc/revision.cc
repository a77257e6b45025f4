#include "node/mvcc/revision.h"

namespace dst::mvcc {

namespace {
void put_be64(std::string& out, uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>((v >> shift) & 0xff));
}
uint64_t get_be64(std::string_view in) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<uint8_t>(in[i]);
  return v;
}
}  // namespace

std::string encode_revision(Revision rev, bool tombstone) {
  DST_ASSERT_GE(rev.main, 0);
  DST_ASSERT_GE(rev.sub, 0);
  std::string out;
  out.reserve(kRevisionBytes + 1);
  put_be64(out, static_cast<uint64_t>(rev.main));
  out.push_back('_');
  put_be64(out, static_cast<uint64_t>(rev.sub));
  if (tombstone) out.push_back('t');
  return out;
}

Result<DecodedRevision> decode_revision(std::string_view bytes) {
  bool tombstone = bytes.size() == kRevisionBytes + 1 && bytes.back() == 't';
  if ((bytes.size() != kRevisionBytes && !tombstone) || bytes[8] != '_') {
    return Status(StatusCode::kCorruption, "not an mvcc revision key (" + std::to_string(bytes.size()) + " bytes)");
  }
  DecodedRevision d;
  d.rev.main = static_cast<int64_t>(get_be64(bytes.substr(0, 8)));
  d.rev.sub = static_cast<int64_t>(get_be64(bytes.substr(9, 8)));
  d.tombstone = tombstone;
  if (d.rev.main < 0 || d.rev.sub < 0) return Status(StatusCode::kCorruption, "negative mvcc revision");
  return d;
}

}  // namespace dst::mvcc
