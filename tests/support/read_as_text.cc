#include "support/read_as_text.h"

#include "report/event_format.h"

namespace causeway::testing {

ReadResult ReadAsText(const std::vector<std::string>& dirs, int decode_threads) {
  ReadResult r;
  ctf::ReaderOptions options;
  if (decode_threads >= 0) options.decode_threads = static_cast<unsigned>(decode_threads);
  auto reader = ctf::EventReader::Open(dirs, options);
  if (!reader.ok()) {
    r.status = reader.status();
    return r;
  }
  report::EventFormatter f(
      {.time = report::TimeFormat::kSeconds, .delta = false, .hostname = true});
  std::string line;
  while (const ctf::Event* e = (*reader)->Next()) {
    if (e->kind == ctf::Event::Kind::kDiscarded) {
      ++r.discarded_records;
      continue;
    }
    line.clear();
    f.AppendText(*e, &line);
    r.lines.push_back(line);
  }
  r.status = (*reader)->status();
  r.streams = (*reader)->stream_stats();
  return r;
}

}  // namespace causeway::testing
