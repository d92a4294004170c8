#include "state/attribute_tree.h"

#include <algorithm>

#include "state/state_format.h"

namespace causeway::state {

AttributeId AttributeTree::Intern(std::string_view path) {
  if (auto it = ids_.find(path); it != ids_.end()) return it->second;
  const size_t slash = path.rfind('/');
  const uint32_t parent =
      slash == std::string_view::npos ? format::kNoParent : Intern(path.substr(0, slash));
  const AttributeId id = static_cast<AttributeId>(parents_.size());
  const std::string& stored = storage_.emplace_back(path);
  paths_.push_back(&stored);
  parents_.push_back(parent);
  ids_.emplace(std::string_view(stored), id);
  return id;
}

std::string_view AttributeTree::name(AttributeId id) const {
  const uint32_t p = parents_[id];
  if (p == format::kNoParent) return *paths_[id];
  return std::string_view(*paths_[id]).substr(paths_[p]->size() + 1);
}

std::vector<AttributeId> AttributeTree::ChildrenInOrder(std::vector<uint32_t>* first_child,
                                                        std::vector<uint32_t>* num_children,
                                                        uint32_t* roots_first) const {
  const size_t n = size();
  // Counting sort by parent (the roots as parent n), then each group by name.
  std::vector<uint32_t> begin(n + 2, 0);
  for (AttributeId id = 0; id < n; ++id) {
    const uint32_t p = parents_[id] == format::kNoParent ? n : parents_[id];
    ++begin[p + 1];
  }
  for (size_t i = 1; i < begin.size(); ++i) begin[i] += begin[i - 1];
  std::vector<AttributeId> order(n);
  std::vector<uint32_t> fill(begin.begin(), begin.end() - 1);
  for (AttributeId id = 0; id < n; ++id) {
    const uint32_t p = parents_[id] == format::kNoParent ? n : parents_[id];
    order[fill[p]++] = id;
  }
  first_child->assign(n, 0);
  num_children->assign(n, 0);
  for (size_t p = 0; p <= n; ++p) {
    std::sort(order.begin() + begin[p], order.begin() + begin[p + 1],
              [&](AttributeId a, AttributeId b) { return format::NameLess(name(a), name(b)); });
    if (p < n) {
      (*first_child)[p] = begin[p];
      (*num_children)[p] = begin[p + 1] - begin[p];
    }
  }
  *roots_first = begin[n];
  return order;
}

}  // namespace causeway::state
