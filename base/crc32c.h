// CRC-32C (Castagnoli): the checksum of WAL records and snapshot files, and etcd's HashKV.
//
// Our own table-driven code rather than a library: it must give the same value on every machine
// and build, and it is small. Reflected polynomial 0x82F63B78, initial value and final xor
// 0xFFFFFFFF (the iSCSI / ext4 / etcd parameters), so crc32c("123456789") == 0xE3069283.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace dst {

// Continues a checksum over more bytes: crc32c_extend(crc32c(a), b) == crc32c(a + b).
uint32_t crc32c_extend(uint32_t crc, const void* data, size_t size);

inline uint32_t crc32c(std::string_view data) { return crc32c_extend(0, data.data(), data.size()); }

}  // namespace dst
