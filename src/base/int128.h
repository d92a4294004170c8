// 128-bit integers (a GCC/Clang extension; __extension__ keeps -Wpedantic quiet).
#pragma once

namespace causeway {
__extension__ using int128 = __int128;
__extension__ using uint128 = unsigned __int128;
}  // namespace causeway
