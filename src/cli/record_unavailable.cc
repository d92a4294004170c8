// `record` and `snapshot` in a build without the recorder (CMake -DCAUSEWAY_RECORD=OFF: no
// BTF, bpftool, clang or libbpf needed). The subcommands stay listed, so that someone who
// reads the README and types them learns why they do nothing here instead of "unknown
// command"; any arguments are accepted, and the answer is the same usage error.
#include <cstdio>
#include <string>

#include "cli/commands.h"

namespace causeway::cli {
namespace {

Runner Unavailable(CLI::App& app, const char* name) {
  auto* cmd =
      app.add_subcommand(name, "(not in this build: causeway was built without the recorder)");
  // Every argument, options, positionals and a command after `--`, is left unparsed.
  cmd->prefix_command();
  cmd->set_help_flag();  // `--help` too gets the explanation below
  return [name]() -> int {
    std::fprintf(stderr,
                 "causeway %s: this causeway was built without the recorder "
                 "(CMake -DCAUSEWAY_RECORD=OFF); rebuild with -DCAUSEWAY_RECORD=ON, which "
                 "needs BTF, bpftool, clang and libbpf\n",
                 name);
    return 2;
  };
}

}  // namespace

Runner RegisterRecord(CLI::App& app) { return Unavailable(app, "record"); }
Runner RegisterSnapshot(CLI::App& app) { return Unavailable(app, "snapshot"); }

}  // namespace causeway::cli
