// causeway snapshot: asks a running `causeway record --snapshot` to write what it holds.
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "record/control_socket.h"

namespace causeway::cli {

Runner RegisterSnapshot(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "snapshot",
      "Ask a running `causeway record --snapshot -o DIR` to write what it holds in memory; "
      "prints the snapshot's directory.");
  auto dir = std::make_shared<std::string>();
  cmd->add_option("DIR", *dir, "The recording directory given to causeway record -o")->required();
  return [dir]() -> int {
    auto reply = record::SendControl(*dir + "/control.sock", "snapshot manual", 60'000);
    if (!reply.ok()) {
      std::fprintf(stderr, "causeway snapshot: %s\n", reply.status().ToString().c_str());
      return 1;
    }
    if (reply->rfind("ok ", 0) == 0) {
      std::printf("%s\n", reply->substr(3).c_str());
      return 0;
    }
    std::fprintf(stderr, "causeway snapshot: %s\n", reply->c_str());
    return 1;
  };
}

}  // namespace causeway::cli
