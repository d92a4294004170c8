// The names of this architecture's system calls, as the labels of the `id` field of
// syscall_entry / syscall_exit, so that babeltrace2 and `causeway events` print
// `id = ( "read" : container = 0 )`. Generated at build time from the kernel's UAPI header
// (asm/unistd_64.h, Debian's linux-libc-dev; see syscall_names.cmake): a syscall newer
// than those headers has no label and shows its number alone.
#pragma once

#include <span>

#include "ctf/writer/ctf_writer.h"

namespace causeway::kernel {

// x86-64 numbers, in increasing order; empty on another architecture. Static storage.
std::span<const ctf::EnumLabel> SyscallNames();

}  // namespace causeway::kernel
