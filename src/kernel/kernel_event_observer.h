// A reader of the kernel event stream beside the model (the index's feeds, src/index).
#pragma once

#include <cstdint>

#include "graph/execution_graph.h"
#include "kernel/kernel_event.h"
#include "kernel/kernel_model.h"

namespace causeway::kernel {

// Sees every event the layout converts, system calls included (which the model ignores), in
// time order, each after the model has consumed it, so that it can ask the model which task
// runs on a CPU and name threads from the graph the model is building.
class KernelEventObserver {
 public:
  virtual ~KernelEventObserver() = default;
  // Before the first event; both outlive the pass.
  virtual void Start(const KernelModel& model, const graph::ExecutionGraph& graph) = 0;
  virtual void OnEvent(const KernelEvent& e) = 0;
  // After the last event, once the model is finished at `end` (the last event's time).
  virtual void Finish(int64_t end) = 0;
};

}  // namespace causeway::kernel
