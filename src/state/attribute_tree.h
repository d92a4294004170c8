// The writer's attribute tree: paths ("hosts/h0/threads/812/state") to dense ids, every
// prefix of a path being an attribute too, and each attribute's children in name order
// (format::NameLess) for the file's children section.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "state/state_store.h"

namespace causeway::state {

class AttributeTree {
 public:
  // The id of `path`, added with its missing prefixes when new.
  AttributeId Intern(std::string_view path);

  size_t size() const { return parents_.size(); }
  std::string_view path(AttributeId id) const { return *paths_[id]; }
  uint32_t parent(AttributeId id) const { return parents_[id]; }
  // Its last component (the whole path for a root).
  std::string_view name(AttributeId id) const;

  // Every attribute grouped by parent, each group in name order; the roots last.
  // `first_child[id]` and `num_children[id]` locate an attribute's group, `*roots_first`
  // the roots'.
  std::vector<AttributeId> ChildrenInOrder(std::vector<uint32_t>* first_child,
                                           std::vector<uint32_t>* num_children,
                                           uint32_t* roots_first) const;

 private:
  std::deque<std::string> storage_;  // stable addresses for the map's keys
  std::vector<const std::string*> paths_;
  std::vector<uint32_t> parents_;
  absl::flat_hash_map<std::string_view, AttributeId> ids_;
};

}  // namespace causeway::state
