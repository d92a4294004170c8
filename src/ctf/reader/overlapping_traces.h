// Traces that hold the same events twice: two traces of one host whose streams of one CPU
// cover the same time (a folder of several snapshots of one flight recorder, each holding
// the ring's last seconds). Read together, every event in both would count twice. Chunks of
// one recording (LTTng's rotations) follow each other and are not reported.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ctf/reader/event_reader.h"
#include "ctf/reader/stream_cursor.h"

namespace causeway::ctf {

// The first such pair, described for the user (both folders, the host, the CPU, and the
// advice to give one snapshot's folder); nullopt when there is none. `streams` are the
// reader's stream_stats() once read.
std::optional<std::string> OverlappingTraces(const EventReader& reader,
                                             const std::vector<StreamStats>& streams);

}  // namespace causeway::ctf
