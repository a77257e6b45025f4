// Tests of the deterministic hashes (base/hash.h): golden values of hash_bytes (they feed trace
// hashes, so any change to them changes every recorded trace hash), sensitivity to content, length
// and seed, the two hash_bytes overloads agreeing, mix64 against the splitmix64 reference and its
// bijectivity, hash_combine's order sensitivity, and the little-endian assumption hash_bytes makes.
#include "base/hash.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace dst {
namespace {

using namespace std::string_view_literals;

// --- hash_bytes --------------------------------------------------------------------------------

struct Golden {
  std::string_view input;
  uint64_t seed0;
  uint64_t seed1234;
};

// Computed once from the implementation and pinned: these values are part of every trace hash, so
// a change here must be deliberate (and is a change to every golden trace hash downstream).
const Golden kGoldens[] = {
    {""sv, 0xd38355310d4ed13aULL, 0xcf5462503c4f0fcdULL},
    {"a"sv, 0x98973f6a519f5320ULL, 0xae814572de3ad4d5ULL},
    {"abc"sv, 0x6815fdf81d05adc9ULL, 0x9e0e7c40609e917aULL},
    {"abcdefg"sv, 0xa4de0c0011c3bb39ULL, 0x5bb873bf72afc7ccULL},
    {"abcdefgh"sv, 0x68580318d0306e7eULL, 0xda93f5bdb689f72bULL},
    {"abcdefghi"sv, 0x8320fe05456d5ebbULL, 0xe6a5e22751d38d1aULL},
    {"hello world"sv, 0xe1250f23a469d50aULL, 0xc210c40b9c0775c1ULL},
    {"0123456789abcdef"sv, 0x891d2082afa82a8fULL, 0x440e879fa06f9fe2ULL},
    {"the quick brown fox jumps over the lazy dog"sv, 0xd3aad4c27e67bda6ULL, 0x7685ad35c3db9738ULL},
    {"\0\0\0"sv, 0xaf489cdeaf4a6274ULL, 0x74079872f39b4dc2ULL},
};

TEST(HashBytes, GoldenValues) {
  for (const Golden& g : kGoldens) {
    EXPECT_EQ(hash_bytes(g.input), g.seed0)
        << "input \"" << g.input << "\" size " << g.input.size();
    EXPECT_EQ(hash_bytes(g.input, 0x1234), g.seed1234)
        << "input \"" << g.input << "\" size " << g.input.size();
  }
}

TEST(HashBytes, DeterministicAcrossCallsAndCopies) {
  const std::string a = "some bytes to hash, longer than one word";
  const std::string b = a;  // different storage, same content
  EXPECT_EQ(hash_bytes(a), hash_bytes(a));
  EXPECT_EQ(hash_bytes(a), hash_bytes(b));
  EXPECT_EQ(hash_bytes(a, 99), hash_bytes(b, 99));
}

TEST(HashBytes, DoesNotDependOnAlignment) {
  // memcpy-based word loads: the same bytes at an odd address hash the same.
  const std::string content = "0123456789abcdefghijklmnopqrstuvwxyz";
  std::vector<char> buf(content.size() + 8);
  for (size_t shift = 0; shift < 8; ++shift) {
    std::memcpy(buf.data() + shift, content.data(), content.size());
    EXPECT_EQ(hash_memory(buf.data() + shift, content.size()), hash_bytes(content)) << shift;
  }
}

TEST(HashBytes, DifferentInputsDiffer) {
  std::set<uint64_t> seen;
  const std::string_view inputs[] = {
      "a"sv,        "b"sv,         "ab"sv, "ba"sv,   "abc"sv,  "abd"sv,  "abcdefgh"sv, "abcdefgi"sv,
      "bbcdefgh"sv, "abcdefghi"sv, "\0"sv, "\0\0"sv, "\x01"sv, "\x80"sv, "hello"sv,    "Hello"sv};
  for (std::string_view in : inputs) {
    EXPECT_TRUE(seen.insert(hash_bytes(in)).second) << "collision for \"" << in << "\"";
  }
}

TEST(HashBytes, EverySingleBitFlipChangesTheHash) {
  std::string s = "a 24-byte input string!!";
  ASSERT_EQ(s.size(), 24u);
  const uint64_t base = hash_bytes(s);
  std::set<uint64_t> seen = {base};
  for (size_t byte = 0; byte < s.size(); ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string t = s;
      t[byte] = static_cast<char>(t[byte] ^ (1 << bit));
      EXPECT_TRUE(seen.insert(hash_bytes(t)).second) << "byte " << byte << " bit " << bit;
    }
  }
}

TEST(HashBytes, DifferentSeedsDiffer) {
  std::set<uint64_t> seen;
  for (uint64_t seed = 0; seed < 64; ++seed) {
    EXPECT_TRUE(seen.insert(hash_bytes("same input"sv, seed)).second) << seed;
  }
  // Also for the empty input, where only the seed and the length go in.
  std::set<uint64_t> seen_empty;
  for (uint64_t seed = 0; seed < 64; ++seed) {
    EXPECT_TRUE(seen_empty.insert(hash_bytes(""sv, seed)).second) << seed;
  }
}

TEST(HashBytes, AllTailLengthsDistinct) {
  // Prefixes of a fixed buffer of every length from 0 to 17: covers an empty input, every tail size
  // 1..7 with no full word, one word, one word plus every tail, two words, and two words plus one.
  const std::string_view text = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"sv;
  std::set<uint64_t> prefix_hashes;
  for (size_t len = 0; len <= 17; ++len) {
    EXPECT_TRUE(prefix_hashes.insert(hash_bytes(text.substr(0, len))).second) << len;
  }
  // All-zero inputs: only the length tells them apart, so the length must go into the hash.
  const std::string zeros(17, '\0');
  std::set<uint64_t> zero_hashes;
  for (size_t len = 0; len <= 17; ++len) {
    EXPECT_TRUE(zero_hashes.insert(hash_memory(zeros.data(), len)).second) << len;
  }
}

TEST(HashBytes, TrailingZeroByteChangesTheHash) {
  // "ab" and "ab\0" have the same tail word value; the length must separate them.
  EXPECT_NE(hash_bytes("ab"sv), hash_bytes("ab\0"sv));
  EXPECT_NE(hash_bytes("abcdefgh"sv), hash_bytes("abcdefgh\0"sv));
}

TEST(HashBytes, StringViewOverloadEqualsPointerOverload) {
  const std::string_view inputs[] = {
      ""sv, "x"sv, "abcdefg"sv, "abcdefgh"sv, "abcdefghijklmnopq"sv, "the quick brown fox"sv};
  for (std::string_view in : inputs) {
    EXPECT_EQ(hash_bytes(in), hash_memory(in.data(), in.size())) << in;
    EXPECT_EQ(hash_bytes(in, 7), hash_memory(in.data(), in.size(), 7)) << in;
  }
  const std::string s = "from a std::string";
  EXPECT_EQ(hash_bytes(s), hash_memory(s.data(), s.size()));
}

TEST(HashBytes, EmptyWithNullPointerIsTheEmptyHash) {
  EXPECT_EQ(hash_memory(nullptr, 0), hash_bytes(""sv));
  EXPECT_EQ(hash_memory(nullptr, 0, 5), hash_bytes(""sv, 5));
}

// --- mix64 and hash_combine --------------------------------------------------------------------

TEST(Mix64, MatchesSplitmix64Reference) {
  // The first outputs of the reference splitmix64 generator seeded with 0 and with 1.
  EXPECT_EQ(mix64(0), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(mix64(1), 0x910a2dec89025cc1ULL);
}

TEST(Mix64, IsConstexpr) {
  static_assert(mix64(0) == 0xe220a8397b1dcdafULL);
  static_assert(hash_combine(1, 2) == hash_combine(1, 2));
}

TEST(Mix64, IsNotIdentity) {
  for (uint64_t x :
       {uint64_t{0}, uint64_t{1}, uint64_t{2}, uint64_t{42}, uint64_t{1} << 63, ~uint64_t{0}}) {
    EXPECT_NE(mix64(x), x) << x;
  }
}

// Multiplicative inverse of an odd number modulo 2^64 (Newton's iteration doubles the correct
// bits).
constexpr uint64_t inverse_mod_2_64(uint64_t a) {
  uint64_t x = a;  // correct to 3 bits for odd a
  for (int i = 0; i < 5; ++i) x *= 2 - a * x;
  return x;
}

// Inverse of y = x ^ (x >> shift) for shift > 0.
constexpr uint64_t unxorshift(uint64_t y, int shift) {
  uint64_t x = y;
  for (int done = shift; done < 64; done += shift) x = y ^ (x >> shift);
  return x;
}

// mix64 undone step by step: if this inverts it on every input, it is a bijection.
constexpr uint64_t unmix64(uint64_t y) {
  y = unxorshift(y, 31);
  y *= inverse_mod_2_64(0x94d049bb133111ebULL);
  y = unxorshift(y, 27);
  y *= inverse_mod_2_64(0xbf58476d1ce4e5b9ULL);
  y = unxorshift(y, 30);
  return y - 0x9e3779b97f4a7c15ULL;
}

TEST(Mix64, IsBijectiveOnASample) {
  static_assert(0x94d049bb133111ebULL * inverse_mod_2_64(0x94d049bb133111ebULL) == 1);
  std::set<uint64_t> inputs, outputs;
  uint64_t x = 0x0123456789abcdefULL;
  for (int i = 0; i < 10'000; ++i) {
    // A sample mixing single bits, small numbers and pseudo-random values (an LCG).
    uint64_t in;
    if (i < 64) {
      in = uint64_t{1} << i;
    } else if (i < 1000) {
      in = uint64_t(i);
    } else {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      in = x;
    }
    const uint64_t out = mix64(in);
    EXPECT_EQ(unmix64(out), in) << in;
    inputs.insert(in);
    outputs.insert(out);
  }
  EXPECT_EQ(outputs.size(), inputs.size());  // distinct inputs give distinct outputs
}

TEST(HashCombine, IsOrderSensitive) {
  EXPECT_NE(hash_combine(hash_combine(0, 1), 2), hash_combine(hash_combine(0, 2), 1));
  EXPECT_NE(hash_combine(1, 2), hash_combine(2, 1));
}

TEST(HashCombine, DependsOnSeedAndValue) {
  std::set<uint64_t> seen;
  for (uint64_t seed = 0; seed < 16; ++seed) {
    for (uint64_t value = 0; value < 16; ++value) {
      EXPECT_TRUE(seen.insert(hash_combine(seed, value)).second) << seed << " " << value;
    }
  }
}

// --- platform assumption -----------------------------------------------------------------------

TEST(HashPlatform, MachineIsLittleEndian) {
  // hash_bytes loads 8-byte words with memcpy; on a big-endian machine it would give different
  // values (and different trace hashes) for the same bytes.
  static_assert(std::endian::native == std::endian::little,
                "hash_bytes assumes a little-endian machine");
  const unsigned char bytes[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  uint64_t word;
  std::memcpy(&word, bytes, 8);
  EXPECT_EQ(word, 0x0807060504030201ULL);
}

}  // namespace
}  // namespace dst
