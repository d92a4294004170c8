#include "support/read_all.h"

#include <gtest/gtest.h>

namespace causeway::testing {

ReadAllResult ReadAll(const std::vector<std::string>& dirs, const ctf::ReaderOptions& options) {
  ReadAllResult r;
  auto reader = ctf::EventReader::Open(dirs, options);
  if (!reader.ok()) {
    r.status = reader.status();
    return r;
  }
  while (const ctf::Event* e = (*reader)->Next()) {
    if (e->kind == ctf::Event::Kind::kDiscarded) {
      ++r.discarded_records;
      r.discarded_events += e->discarded;
      continue;
    }
    ReadEvent v;
    v.name = std::string(e->name());
    v.cpu = static_cast<uint32_t>(e->cpu);
    v.ts = e->timestamp;
    const auto& fields = e->plan->fields;
    for (size_t i = 0; i < fields.size(); ++i) {
      const int field = static_cast<int>(i);
      const ctf::PlanNode& node = e->Node(field);
      switch (node.type->kind) {
        case ctf::TypeKind::kString:
        case ctf::TypeKind::kArray:
        case ctf::TypeKind::kSequence:
          v.str[fields[i].name] = std::string(e->GetString(field));
          break;
        case ctf::TypeKind::kFloat:
          v.real[fields[i].name] = e->GetDouble(field);
          break;
        case ctf::TypeKind::kInteger:
        case ctf::TypeKind::kEnum:
          v.u[fields[i].name] = e->GetUnsigned(field);
          v.num[fields[i].name] = e->GetSigned(field);
          break;
        default:
          break;  // structures and variants: no test looks into them
      }
    }
    r.events.push_back(std::move(v));
  }
  r.status = (*reader)->status();
  r.streams = (*reader)->stream_stats();
  return r;
}

ReadAllResult ReadAllExpectOk(const std::string& dir) {
  ReadAllResult r = ReadAll({dir});
  EXPECT_TRUE(r.status.ok()) << dir << ": " << r.status.ToString();
  return r;
}

}  // namespace causeway::testing
