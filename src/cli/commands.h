// Subcommands of the `causeway` CLI: each registers its options on the CLI11 app and
// returns the function that runs it.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace causeway::cli {

using Runner = std::function<int()>;

Runner RegisterEvents(CLI::App& app);
Runner RegisterStats(CLI::App& app);
Runner RegisterThreads(CLI::App& app);
Runner RegisterCritpath(CLI::App& app);
Runner RegisterRecord(CLI::App& app);
Runner RegisterSnapshot(CLI::App& app);
Runner RegisterSync(CLI::App& app);
Runner RegisterRequests(CLI::App& app);
Runner RegisterRequest(CLI::App& app);
Runner RegisterExport(CLI::App& app);
Runner RegisterPivot(CLI::App& app);
Runner RegisterIndex(CLI::App& app);

}  // namespace causeway::cli
