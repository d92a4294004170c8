#include "server/events_table.h"

#include <memory>
#include <mutex>

#include "ctf/reader/event_reader.h"
#include "report/event_format.h"
#include "server/query_params.h"

namespace causeway::server {
namespace {

using nlohmann::json;

enum Column : int64_t { kTimestamp, kHost, kCpu, kName, kContents, kNumColumns };

class EventsTable : public Output {
 public:
  std::string id() const override { return "causeway.events"; }
  std::string type() const override { return "TABLE"; }
  std::string name() const override { return "Events"; }
  std::string description() const override {
    return "The kernel events in time order (clocks synchronized across hosts)";
  }

  StatusOr<json> Columns(const ExperimentData&, const json&) const override {
    auto col = [](Column id, const char* name, const char* type, const char* what) {
      return json{{"id", id}, {"name", name}, {"description", what}, {"type", type}};
    };
    return json::array({col(kTimestamp, "Timestamp", "TIMESTAMP", "ns since the Epoch"),
                        col(kHost, "Host", "STRING", "the trace's hostname"),
                        col(kCpu, "CPU", "NUMBER", "the CPU the event was recorded on"),
                        col(kName, "Event", "STRING", "event name"),
                        col(kContents, "Contents", "STRING", "context and payload fields")});
  }

  StatusOr<json> Lines(const ExperimentData& d, const json& p) const override {
    ASSIGN_OR_RETURN(std::optional<int64_t> index, ParseInt(p, "requested_table_index"));
    ASSIGN_OR_RETURN(std::optional<int64_t> count, ParseInt(p, "requested_table_count"));
    if (!count) return InvalidArgument("missing requested_table_count");
    if (*count < 0) return InvalidArgument("requested_table_count must not be negative");
    if (index && *index < 0) return InvalidArgument("requested_table_index must not be negative");
    const uint32_t n = static_cast<uint32_t>(std::min<int64_t>(*count, kMaxTableLines));
    std::optional<int64_t> at_time;
    if (!index) {
      ASSIGN_OR_RETURN(TimeQuery q, ParseTimeQuery(p, {d.begin, d.end, 1}, false));
      if (p.contains("requested_times")) at_time = q.start;
    }
    std::vector<int64_t> column_ids;
    if (auto c = p.find("requested_table_column_ids"); c != p.end() && c->is_array()) {
      for (const json& v : *c)
        if (v.is_number_integer() && v.get<int64_t>() >= 0 && v.get<int64_t>() < kNumColumns)
          column_ids.push_back(v.get<int64_t>());
    }
    if (column_ids.empty())
      for (int64_t c = 0; c < kNumColumns; ++c) column_ids.push_back(c);

    std::lock_guard lock(mu_);
    uint64_t first = index ? static_cast<uint64_t>(*index) : 0;
    if (!cursor_ || cursor_->data != &d || cursor_->next > first || at_time) {
      RETURN_IF_ERROR(Reopen(d));
    }
    // Skip to the first line asked for.
    const ctf::Event* e = nullptr;
    for (;;) {
      e = cursor_->reader->Next();
      if (!e) break;
      if (at_time ? static_cast<int64_t>(e->timestamp) >= *at_time : cursor_->next >= first) break;
      ++cursor_->next;
    }
    if (at_time) first = cursor_->next;
    json lines = json::array();
    std::string text;
    for (uint32_t i = 0; i < n && e; ++i) {
      text.clear();
      formatter_.AppendJson(*e, &text);
      const json ev = json::parse(text, nullptr, false);
      json cells = json::array();
      for (int64_t c : column_ids) {
        std::string content;
        if (ev.is_object()) switch (c) {
            case kTimestamp:
              content = std::to_string(e->timestamp);
              break;
            case kHost:
              content = ev.value("host", "");
              break;
            case kCpu:
              content = ev.contains("cpu") ? ev["cpu"].dump() : "";
              break;
            case kName:
              content = ev.value("name", "");
              break;
            case kContents: {
              json rest = ev.value("fields", json::object());
              if (ev.contains("context")) rest["context"] = ev["context"];
              content = rest.dump(-1, ' ', false, json::error_handler_t::replace);
              break;
            }
          }
        cells.push_back({{"content", std::move(content)}});
      }
      lines.push_back({{"index", cursor_->next}, {"cells", std::move(cells)}});
      ++cursor_->next;
      if (i + 1 < n) e = cursor_->reader->Next();
    }
    if (!cursor_->reader->status().ok()) {
      const Status s = cursor_->reader->status();
      cursor_.reset();
      return s;
    }
    return json{{"columnIds", column_ids},
                {"lowIndex", first},
                {"size", d.events},
                {"lines", std::move(lines)}};
  }

 private:
  Status Reopen(const ExperimentData& d) const {
    cursor_.reset();
    ctf::ReaderOptions options =
        ctf::ReaderOptions::ByHost(d.recording.kernel->clocks.Transforms());
    options.decode_threads = 0;
    ASSIGN_OR_RETURN(std::unique_ptr<ctf::EventReader> reader,
                     ctf::EventReader::Open(d.recording.kernel->trace_dirs, options));
    cursor_ = std::make_unique<Cursor>(Cursor{&d, std::move(reader), 0});
    return Status::Ok();
  }

  // Where the last page ended. One for the server: paging is sequential per client in
  // practice, and another experiment's page reopens its own trace.
  struct Cursor {
    const ExperimentData* data;
    std::unique_ptr<ctf::EventReader> reader;
    uint64_t next;  // index of the event Next() returns after the current one
  };
  mutable std::mutex mu_;
  mutable std::unique_ptr<Cursor> cursor_;
  mutable report::EventFormatter formatter_{report::EventFormatOptions{
      .time = report::TimeFormat::kSeconds, .delta = false, .hostname = true}};
};

}  // namespace

std::unique_ptr<Output> MakeEventsTable() { return std::make_unique<EventsTable>(); }

}  // namespace causeway::server
