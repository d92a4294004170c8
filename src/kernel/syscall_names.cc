#include "kernel/syscall_names.h"

#include <vector>

namespace causeway::kernel {

std::span<const ctf::EnumLabel> SyscallNames() {
  static const std::vector<ctf::EnumLabel> names = {
#include "syscall_names.inc"
  };
  return names;
}

}  // namespace causeway::kernel
