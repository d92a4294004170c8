#include "server/outputs.h"

#include "server/cpu_usage_xy.h"
#include "server/critpath_timegraph.h"
#include "server/data_trees.h"
#include "server/events_table.h"
#include "server/thread_timegraph.h"

namespace causeway::server {
namespace {

Status NotThisOutput(const Output& o, const char* endpoint) {
  return NotFound("output " + o.id() + " (" + o.type() + ") has no " + endpoint + " endpoint");
}

}  // namespace

StatusOr<nlohmann::json> Output::Tree(const ExperimentData&, const nlohmann::json&) const {
  return NotThisOutput(*this, "tree");
}
StatusOr<nlohmann::json> Output::States(const ExperimentData&, const nlohmann::json&) const {
  return NotThisOutput(*this, "states");
}
StatusOr<nlohmann::json> Output::Arrows(const ExperimentData&, const nlohmann::json&) const {
  return NotThisOutput(*this, "arrows");
}
StatusOr<std::string> Output::TreeText(const ExperimentData& d, const nlohmann::json& p) const {
  ASSIGN_OR_RETURN(nlohmann::json model, Tree(d, p));
  return model.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}
StatusOr<std::string> Output::StatesText(const ExperimentData& d, const nlohmann::json& p) const {
  ASSIGN_OR_RETURN(nlohmann::json model, States(d, p));
  return model.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}
StatusOr<std::string> Output::ArrowsText(const ExperimentData& d, const nlohmann::json& p) const {
  ASSIGN_OR_RETURN(nlohmann::json model, Arrows(d, p));
  return model.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}
StatusOr<nlohmann::json> Output::Tooltip(const ExperimentData&, const nlohmann::json&) const {
  return NotThisOutput(*this, "tooltip");
}
StatusOr<nlohmann::json> Output::Xy(const ExperimentData&, const nlohmann::json&) const {
  return NotThisOutput(*this, "xy");
}
StatusOr<nlohmann::json> Output::Columns(const ExperimentData&, const nlohmann::json&) const {
  return NotThisOutput(*this, "columns");
}
StatusOr<nlohmann::json> Output::Lines(const ExperimentData&, const nlohmann::json&) const {
  return NotThisOutput(*this, "lines");
}
nlohmann::json Output::Styles() const { return {{"styles", nlohmann::json::object()}}; }

nlohmann::json Output::Descriptor() const {
  return {{"id", id()}, {"name", name()}, {"description", description()}, {"type", type()}};
}

const std::vector<std::unique_ptr<Output>>& AllOutputs() {
  static const std::vector<std::unique_ptr<Output>> outputs = [] {
    std::vector<std::unique_ptr<Output>> v;
    v.push_back(MakeThreadTimeGraph());
    v.push_back(MakeCriticalPathTimeGraph());
    v.push_back(MakeCpuUsageXy());
    v.push_back(MakeRequestsTree());
    v.push_back(MakeThreadTimesTree());
    v.push_back(MakeEventsTable());
    return v;
  }();
  return outputs;
}

const Output* FindOutput(const std::string& id) {
  for (const auto& o : AllOutputs())
    if (o->id() == id) return o.get();
  return nullptr;
}

}  // namespace causeway::server
