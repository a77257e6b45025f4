// The process exit codes every dst command uses (DESIGN.md).
#pragma once

namespace dst {
inline constexpr int kExitPass = 0;       // all checks passed
inline constexpr int kExitViolation = 1;  // a guarantee was violated
inline constexpr int kExitUsage = 2;      // usage or input error
inline constexpr int kExitGaveUp = 3;     // a checker gave up without a verdict
}  // namespace dst
