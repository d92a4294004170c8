// Asks causeway record for a snapshot over its control socket (src/record/control_socket.h
// defines the protocol: one line "snapshot <reason>", one line back).
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace causeway::client {

StatusOr<std::string> RequestSnapshot(const std::string& socket_path, std::string_view reason,
                                      int timeout_ms);

}  // namespace causeway::client
