#include "store_compare/store_backend.h"

#include <unistd.h>

#include <string>
#include <vector>

#include "state/state_store.h"

namespace causeway::bench {
namespace {

class StoreBackend : public Backend {
 public:
  explicit StoreBackend(std::string path) : path_(std::move(path)) {}
  std::string name() const override { return "store"; }

  Status Build(const Dataset& d) override {
    store_.reset();
    unlink(path_.c_str());
    ASSIGN_OR_RETURN(std::unique_ptr<state::StateWriter> w, state::StateWriter::Create(path_));
    std::vector<state::AttributeId> attribute(d.attributes.size());
    for (size_t i = 0; i < d.attributes.size(); ++i) attribute[i] = w->Attribute(d.attributes[i]);
    std::vector<state::StringRef> string(d.strings.size());
    for (size_t i = 0; i < d.strings.size(); ++i) string[i] = w->Intern(d.strings[i]);
    for (const Interval& i : d.intervals) {
      const state::StateValue v = i.kind == ValueKind::kInt ? state::StateValue::Int(i.value)
                                  : i.kind == ValueKind::kString
                                      ? state::StateValue::String(string[i.value])
                                      : state::StateValue::Null();
      w->Add(attribute[i.attribute], i.start, i.end, v);
    }
    RETURN_IF_ERROR(w->Finish(d.end));
    w.reset();
    ASSIGN_OR_RETURN(store_, state::StateStore::Open(path_));
    // The queries answer in the dataset's ids.
    to_store_ = attribute;
    from_store_.assign(store_->num_attributes(), UINT32_MAX);
    for (size_t i = 0; i < attribute.size(); ++i)
      from_store_[attribute[i]] = static_cast<uint32_t>(i);
    for (size_t i = 0; i < string.size(); ++i) {
      if (string[i] >= string_from_store_.size()) string_from_store_.resize(string[i] + 1, -1);
      string_from_store_[string[i]] = static_cast<int64_t>(i);
    }
    return Status::Ok();
  }

  StatusOr<uint64_t> DiskBytes() override { return store_->file_bytes(); }

  Status At(uint32_t attribute, int64_t t, Interval* out) override {
    *out = Convert(store_->At(to_store_[attribute], t));
    return Status::Ok();
  }

  Status AtAll(int64_t t, std::vector<Interval>* out) override {
    out->clear();
    for (const state::StateInterval& i : store_->AtAll(t)) out->push_back(Convert(i));
    return Status::Ok();
  }

  Status Range(std::span<const uint32_t> attributes, int64_t t1, int64_t t2, int64_t step,
               std::vector<Interval>* out) override {
    ids_.clear();
    for (uint32_t a : attributes) ids_.push_back(to_store_[a]);
    out->clear();
    store_->Range(ids_, t1, t2, step,
                  [&](const state::StateInterval& i) { out->push_back(Convert(i)); });
    return Status::Ok();
  }

 private:
  Interval Convert(const state::StateInterval& i) const {
    Interval v;
    v.start = i.start;
    v.end = i.end;
    v.attribute = i.attribute < from_store_.size() ? from_store_[i.attribute] : UINT32_MAX;
    switch (i.value.kind) {
      case state::StateValue::Kind::kNull:
        break;
      case state::StateValue::Kind::kInt:
        v.kind = ValueKind::kInt;
        v.value = i.value.i;
        break;
      case state::StateValue::Kind::kString:
        v.kind = ValueKind::kString;
        v.value = static_cast<uint64_t>(i.value.i) < string_from_store_.size()
                      ? string_from_store_[static_cast<size_t>(i.value.i)]
                      : -1;
        break;
    }
    return v;
  }

  std::string path_;
  std::unique_ptr<state::StateStore> store_;
  std::vector<state::AttributeId> to_store_;
  std::vector<uint32_t> from_store_;
  std::vector<int64_t> string_from_store_;
  std::vector<state::AttributeId> ids_;
};

}  // namespace

std::unique_ptr<Backend> MakeStoreBackend(const std::string& path) {
  return std::make_unique<StoreBackend>(path);
}

}  // namespace causeway::bench
