// The outputs (TSP "data providers") an experiment offers. Each answers the endpoints of its
// type from the experiment's analysis, read-only and at the resolution asked: a view never
// receives more states per row than it has samples (query_params.h, resolution.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "server/experiments.h"

namespace causeway::server {

class Output {
 public:
  virtual ~Output() = default;
  virtual std::string id() const = 0;
  // "TIME_GRAPH", "TREE_TIME_XY", "DATA_TREE" or "TABLE".
  virtual std::string type() const = 0;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;

  // Each takes the body's "parameters" object and returns the "model" of the answer;
  // InvalidArgument for parameters that cannot be answered (400). The default: the
  // endpoint does not apply to this output (404).
  virtual StatusOr<nlohmann::json> Tree(const ExperimentData& data,
                                        const nlohmann::json& parameters) const;
  virtual StatusOr<nlohmann::json> States(const ExperimentData& data,
                                          const nlohmann::json& parameters) const;
  virtual StatusOr<nlohmann::json> Arrows(const ExperimentData& data,
                                          const nlohmann::json& parameters) const;
  virtual StatusOr<nlohmann::json> Tooltip(const ExperimentData& data,
                                           const nlohmann::json& parameters) const;
  virtual StatusOr<nlohmann::json> Xy(const ExperimentData& data,
                                      const nlohmann::json& parameters) const;
  virtual StatusOr<nlohmann::json> Columns(const ExperimentData& data,
                                           const nlohmann::json& parameters) const;
  virtual StatusOr<nlohmann::json> Lines(const ExperimentData& data,
                                         const nlohmann::json& parameters) const;
  // Tree, States and Arrows as the model's JSON text, which the routes send. By default the
  // json above, dumped; the thread time graph, whose tree and views hold tens of
  // thousands of entries, writes the text directly (the same bytes, several times faster:
  // bench/README.md).
  virtual StatusOr<std::string> TreeText(const ExperimentData& data,
                                         const nlohmann::json& parameters) const;
  virtual StatusOr<std::string> StatesText(const ExperimentData& data,
                                           const nlohmann::json& parameters) const;
  virtual StatusOr<std::string> ArrowsText(const ExperimentData& data,
                                           const nlohmann::json& parameters) const;
  // The styles its states and arrows name (OutputStyleModel).
  virtual nlohmann::json Styles() const;

  nlohmann::json Descriptor() const;
};

// Every output, in the order the descriptors are listed.
const std::vector<std::unique_ptr<Output>>& AllOutputs();
const Output* FindOutput(const std::string& id);

}  // namespace causeway::server
