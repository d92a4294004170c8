#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "causeway/tracepoint.h"

namespace causeway::client {
namespace {

Tracepoint<std::string_view, int64_t, double, bool, uint32_t> tp_request("tptest", "request",
                                                                         {"client", "bytes",
                                                                          "ratio", "hit", "port"});
Tracepoint<int64_t> tp_other("tptest", "other", {"n"});

int g_evaluations = 0;
int64_t Counted(int64_t v) {
  ++g_evaluations;
  return v;
}

struct Capture : TracepointProbe {
  std::vector<std::string> names;
  std::vector<std::vector<TracepointValue>> values;
  std::vector<std::string> strings;  // copies: the views die with the call
  void OnFire(const TracepointBase& tp, std::span<const TracepointValue> v) override {
    names.push_back(tp.full_name());
    values.emplace_back(v.begin(), v.end());
    for (const auto& x : v)
      if (x.type == FieldType::kString) strings.emplace_back(x.s);
  }
};

TEST(Tracepoint, DeclaresTypedFieldsAndRegisters) {
  ASSERT_EQ(tp_request.fields().size(), 5u);
  EXPECT_EQ(tp_request.fields()[0].name, "client");
  EXPECT_EQ(tp_request.fields()[0].type, FieldType::kString);
  EXPECT_EQ(tp_request.fields()[1].type, FieldType::kInt64);
  EXPECT_EQ(tp_request.fields()[2].type, FieldType::kDouble);
  EXPECT_EQ(tp_request.fields()[3].type, FieldType::kBool);
  EXPECT_EQ(tp_request.fields()[4].type, FieldType::kUint64);
  EXPECT_EQ(TracepointRegistry::Get().Find("tptest:request"), &tp_request);
  EXPECT_EQ(TracepointRegistry::Get().ById(tp_request.id()), &tp_request);
  EXPECT_EQ(TracepointRegistry::Get().Find("tptest:nope"), nullptr);
}

TEST(Tracepoint, DisabledEvaluatesNothing) {
  g_evaluations = 0;
  EXPECT_FALSE(tp_other.enabled());
  for (int i = 0; i < 10; ++i) CAUSEWAY_TRACEPOINT(tp_other, Counted(i));
  EXPECT_EQ(g_evaluations, 0);
}

TEST(Tracepoint, ProbesAttachAndDetachAtRunTime) {
  auto probe = std::make_shared<Capture>();
  EXPECT_EQ(TracepointRegistry::Get().Attach("tptest:req*", probe), 1u);
  EXPECT_TRUE(tp_request.enabled());
  EXPECT_FALSE(tp_other.enabled());
  std::string client = "alice";
  CAUSEWAY_TRACEPOINT(tp_request, client, int64_t{-42}, 0.5, true, 8080u);
  ASSERT_EQ(probe->values.size(), 1u);
  EXPECT_EQ(probe->names[0], "tptest:request");
  EXPECT_EQ(probe->strings[0], "alice");
  EXPECT_EQ(probe->values[0][1].i, -42);
  EXPECT_DOUBLE_EQ(probe->values[0][2].d, 0.5);
  EXPECT_EQ(probe->values[0][3].i, 1);
  EXPECT_EQ(probe->values[0][4].u, 8080u);

  EXPECT_EQ(TracepointRegistry::Get().Detach(probe.get()), 1u);
  EXPECT_FALSE(tp_request.enabled());
  CAUSEWAY_TRACEPOINT(tp_request, client, int64_t{1}, 0.0, false, 1u);
  EXPECT_EQ(probe->values.size(), 1u);
}

TEST(Tracepoint, TwoProbesBothSeeAFiring) {
  auto a = std::make_shared<Capture>();
  auto b = std::make_shared<Capture>();
  EXPECT_EQ(TracepointRegistry::Get().Attach("tptest:*", a), 2u);
  EXPECT_EQ(TracepointRegistry::Get().Attach("tptest:other", b), 1u);
  CAUSEWAY_TRACEPOINT(tp_other, int64_t{7});
  EXPECT_EQ(a->values.size(), 1u);
  EXPECT_EQ(b->values.size(), 1u);
  TracepointRegistry::Get().Detach(a.get());
  EXPECT_TRUE(tp_other.enabled());  // b is still attached
  CAUSEWAY_TRACEPOINT(tp_other, int64_t{8});
  EXPECT_EQ(a->values.size(), 1u);
  ASSERT_EQ(b->values.size(), 2u);
  EXPECT_EQ(b->values[1][0].i, 8);
  TracepointRegistry::Get().Detach(b.get());
  EXPECT_FALSE(tp_other.enabled());
}

TEST(Tracepoint, RecordingNeedsAnOpenTrace) {
  TracepointRegistry::Get().SetRecorded("tptest:*");
  EXPECT_FALSE(tp_request.enabled());  // no tracer, no user-space trace
  TracepointRegistry::Get().SetRecorded("");
}

TEST(Glob, MatchesStarAndQuestionMark) {
  EXPECT_TRUE(GlobMatch("*", "a:b"));
  EXPECT_TRUE(GlobMatch("demo:*", "demo:request_entry"));
  EXPECT_TRUE(GlobMatch("d?mo:*entry", "demo:request_entry"));
  EXPECT_TRUE(GlobMatch("*:*", "x:y"));
  EXPECT_FALSE(GlobMatch("demo:*", "other:request"));
  EXPECT_FALSE(GlobMatch("demo", "demo:x"));
  EXPECT_TRUE(GlobMatch("a*b*c", "axxbyyc"));
  EXPECT_FALSE(GlobMatch("a*b*c", "axxbyy"));
}

}  // namespace
}  // namespace causeway::client
