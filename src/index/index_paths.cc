#include "index/index_paths.h"

#include <fmt/format.h>

#include "kernel/kernel_model.h"

namespace causeway::index {

std::string ThreadAttribute(std::string_view host, int32_t tid, std::string_view leaf) {
  return fmt::format("hosts/{}/threads/{}/{}", host, tid, leaf);
}

std::string CpuAttribute(std::string_view host, int32_t cpu, std::string_view leaf) {
  return fmt::format("hosts/{}/cpus/{}/{}", host, cpu, leaf);
}

std::string DiskAttribute(std::string_view host, int64_t dev, std::string_view leaf) {
  return fmt::format("hosts/{}/disks/{}:{}/{}", host, dev >> 20, dev & 0xfffff, leaf);
}

std::string RequestAttribute(std::string_view id, std::string_view leaf) {
  return fmt::format("requests/{}/{}", id, leaf);
}

std::string ThreadStateLabel(graph::State state, std::string_view qualifier) {
  if (qualifier.empty()) return std::string(graph::StateName(state));
  return fmt::format("{}({})", graph::StateName(state), qualifier);
}

std::string IrqLabel(int64_t irq, std::string_view name) {
  return name.empty() ? fmt::format("irq/{}", irq) : fmt::format("irq/{} {}", irq, name);
}

std::string SoftirqLabel(int64_t vector) {
  const std::string_view name = kernel::SoftirqVectorName(vector);
  return name.empty() ? fmt::format("softirq {}", vector) : fmt::format("softirq {}", name);
}

std::string HostThreadLabel(std::string_view host, int32_t tid) {
  return fmt::format("{}/{}", host, tid);
}

}  // namespace causeway::index
