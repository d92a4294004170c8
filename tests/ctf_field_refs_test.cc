// ScalarRef and TextRef (field_ref.h) read what the PlanNode reads, for every field of every
// event of the bundled traces, with the streams decoded inline and on a decoding thread
// (whose events of static layout carry their slots relative to the event's start).
#include <gtest/gtest.h>

#include <map>
#include <string>

#include <fmt/format.h>

#include "ctf/reader/event_reader.h"
#include "ctf/reader/field_ref.h"
#include "support/test_util.h"

namespace causeway::testing {
namespace {

using ctf::Event;
using ctf::TextRef;

struct Seen {
  uint64_t scalars = 0, absent = 0;
  std::map<TextRef::Kind, uint64_t> texts;
};

void ExpectRefsReadLikeNodes(const std::string& dir, unsigned threads, Seen* seen) {
  SCOPED_TRACE(fmt::format("{} with {} decoding threads", dir, threads));
  ctf::ReaderOptions options;
  options.decode_threads = threads;
  auto reader = ctf::EventReader::Open({dir}, options);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  uint64_t events = 0;
  while (const Event* e = (*reader)->Next()) {
    if (e->kind != Event::Kind::kEvent) continue;
    ++events;
    for (const auto& f : e->plan->fields) {
      const ctf::PlanNode& n = *f.node;
      if (auto r = ctf::ScalarRefOf(n)) {
        ++seen->scalars;
        if (e->Position(n) == ctf::kAbsent) ++seen->absent;
        ASSERT_EQ(e->GetUnsigned(*r), e->GetUnsigned(n)) << e->name() << "." << f.name;
        ASSERT_EQ(e->GetSigned(*r), e->GetSigned(n)) << e->name() << "." << f.name;
        ASSERT_FALSE(ctf::TextRefOf(n).has_value()) << e->name() << "." << f.name;
      } else if (auto t = ctf::TextRefOf(n)) {
        ++seen->texts[t->kind];
        ASSERT_EQ(e->GetString(*t), e->GetString(n)) << e->name() << "." << f.name;
      } else {
        // Neither: a struct, a variant, or an array of anything but bytes, which
        // GetString(node) does not read as text either.
        ASSERT_EQ(e->GetString(n), std::string_view()) << e->name() << "." << f.name;
      }
    }
  }
  ASSERT_TRUE((*reader)->status().ok()) << (*reader)->status().ToString();
  EXPECT_GT(events, 0u);
}

TEST(CtfFieldRefsTest, ReadWhatThePlanNodesReadOnEveryBundledTrace) {
  Seen seen;
  for (const char* name : {"lttng/bug446190", "lttng/hello-lost", "lttng/many-threads",
                           "lttng/memory", "perf-sched"}) {
    for (unsigned threads : {0u, 1u}) ExpectRefsReadLikeNodes(TestTrace(name), threads, &seen);
  }
  std::printf("scalars %lu (absent %lu), strings %lu, byte arrays %lu, byte sequences %lu\n",
              (unsigned long)seen.scalars, (unsigned long)seen.absent,
              (unsigned long)seen.texts[TextRef::Kind::kString],
              (unsigned long)seen.texts[TextRef::Kind::kArray],
              (unsigned long)seen.texts[TextRef::Kind::kSequence]);
}

}  // namespace
}  // namespace causeway::testing
