#include "spans/span_reader.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ctf/reader/event_reader.h"
#include "ctf/writer/ctf_writer.h"

namespace causeway::spans {
namespace {

constexpr char kOtlp[] = R"({"resourceSpans":[{"resource":{"attributes":[
  {"key":"service.name","value":{"stringValue":"frontend"}},
  {"key":"process.pid","value":{"intValue":"4242"}}]},
 "scopeSpans":[{"scope":{"name":"lib","version":"1.0"},"spans":[
  {"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174",
   "parentSpanId":"eee19b7ec3c1b173","name":"GET /api","kind":2,
   "startTimeUnixNano":"1544712660000000000","endTimeUnixNano":"1544712661000000000",
   "attributes":[{"key":"thread.id","value":{"intValue":"77"}}]},
  {"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b173","parentSpanId":"",
   "name":"root","kind":"SPAN_KIND_CLIENT",
   "startTimeUnixNano":1544712659000000000,"endTimeUnixNano":1544712662000000000}]}]}]})";

constexpr char kJaeger[] = R"({"data":[{"traceID":"4bf92f3577b34da6a3ce929d0e0e4736","spans":[
  {"traceID":"4bf92f3577b34da6a3ce929d0e0e4736","spanID":"00f067aa0ba902b7","operationName":"GET /api",
   "references":[],"startTime":1700000000000000,"duration":1500,
   "tags":[{"key":"span.kind","type":"string","value":"server"}],"logs":[],"processID":"p1"},
  {"traceID":"4bf92f3577b34da6a3ce929d0e0e4736","spanID":"b7ad6b7169203331","operationName":"db.query",
   "references":[{"refType":"CHILD_OF","traceID":"4bf92f3577b34da6a3ce929d0e0e4736","spanID":"00f067aa0ba902b7"}],
   "startTime":1700000000000200,"duration":900,"tags":[{"key":"thread.id","type":"int64","value":99}],
   "logs":[],"processID":"p2"}],
  "processes":{"p1":{"serviceName":"frontend","tags":[]},"p2":{"serviceName":"db","tags":[]}}}]})";

// kOtlp on one line (a JSON Lines document), its two spans renamed `prefix` + line + k and
// made roots, so that every line's spans are new.
std::string OtlpLine(const std::string& prefix, int line) {
  nlohmann::json doc = nlohmann::json::parse(kOtlp);
  int k = 0;
  for (auto& sp : doc["resourceSpans"][0]["scopeSpans"][0]["spans"]) {
    sp["spanId"] = prefix + std::to_string(line) + std::to_string(k++);
    sp["parentSpanId"] = "";
  }
  return doc.dump();
}

TEST(SpanReader, ReadsOtlpJson) {
  SpanSet set;
  ASSERT_TRUE(ParseSpanDocument(kOtlp, "a.json", &set).ok());
  ASSERT_EQ(set.spans.size(), 2u);
  const Span& s = set.spans[0];
  EXPECT_EQ(TraceIdHex(s.trace), "5b8efff798038103d269b633813fc60c");
  EXPECT_EQ(s.span_id, 0xeee19b7ec3c1b174u);
  EXPECT_EQ(s.parent_span_id, 0xeee19b7ec3c1b173u);
  EXPECT_EQ(*s.service, "frontend");
  EXPECT_EQ(s.pid, 4242);
  EXPECT_EQ(s.tid, 77);
  EXPECT_EQ(s.kind, SpanKind::kServer);
  EXPECT_EQ(s.start_ns, 1544712660000000000);
  EXPECT_EQ(s.end_ns, 1544712661000000000);
  EXPECT_EQ(set.spans[1].parent_span_id, 0u);  // "" is no parent
  EXPECT_EQ(set.spans[1].kind, SpanKind::kClient);
  EXPECT_EQ(set.spans[1].start_ns, 1544712659000000000);  // numbers accepted too
}

TEST(SpanReader, ReadsJaegerJson) {
  SpanSet set;
  ASSERT_TRUE(ParseSpanDocument(kJaeger, "j.json", &set).ok());
  ASSERT_EQ(set.spans.size(), 2u);
  EXPECT_EQ(*set.spans[0].service, "frontend");
  EXPECT_EQ(set.spans[0].kind, SpanKind::kServer);
  EXPECT_EQ(set.spans[0].start_ns, 1700000000000000000);
  EXPECT_EQ(set.spans[0].end_ns, 1700000000001500000);
  EXPECT_EQ(*set.spans[1].service, "db");
  EXPECT_EQ(set.spans[1].parent_span_id, 0x00f067aa0ba902b7u);
  EXPECT_EQ(set.spans[1].tid, 99);
}

TEST(SpanReader, ReadsJsonLinesAndKeepsDuplicatesOnce) {
  const std::string one = nlohmann::json::parse(kOtlp).dump();  // one document per line
  const std::string lines = one + "\n\n" + one + "\n";
  SpanSet set;
  ASSERT_TRUE(ParseSpanDocument(lines, "l.jsonl", &set).ok());
  EXPECT_EQ(set.spans.size(), 2u);
  EXPECT_EQ(set.duplicates, 2u);
}

// A file of JSON Lines read in place (padded, as span files are read): every line's spans,
// in order, as if they were one document.
TEST(SpanReader, ReadsAJsonLinesFileLineByLine) {
  char dir_template[] = "/tmp/causeway-spans-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::filesystem::path dir(dir_template);
  std::string text;
  for (int line = 0; line < 3; ++line) text += OtlpLine("10000000000000", line) + "\n";
  std::ofstream(dir / "s.otlp.json") << text;
  auto set = ReadSpanFiles({dir.string()});
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  ASSERT_EQ(set->spans.size(), 6u);
  EXPECT_EQ(set->duplicates, 0u);
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(SpanIdHex(set->spans[i].span_id),
              "10000000000000" + std::to_string(i / 2) + std::to_string(i % 2));
}

// A writer that died mid-append leaves a last line without its newline: the whole lines are
// read, the cut one is counted and described; a bad line elsewhere is still an error.
TEST(SpanReader, ACutShortLastLineIsSkippedAndReported) {
  std::string whole;
  for (int line = 0; line < 2; ++line) whole += OtlpLine("20000000000000", line) + "\n";
  const std::string cut = whole + nlohmann::json::parse(kOtlp).dump().substr(0, 40);
  SpanSet set;
  ASSERT_TRUE(ParseSpanDocument(cut, "s.otlp.json", &set).ok());
  EXPECT_EQ(set.spans.size(), 4u);
  EXPECT_EQ(set.truncated_lines, 1u);
  ASSERT_EQ(set.warnings.size(), 1u);
  EXPECT_NE(set.warnings[0].find("span file s.otlp.json: line 3 (40 bytes at offset " +
                                 std::to_string(whole.size()) + ") is cut short"),
            std::string::npos)
      << set.warnings[0];

  // The same bad text with a newline after it was written whole: an error, not a repair.
  SpanSet bad;
  const Status st = ParseSpanDocument(cut + "\n", "s.otlp.json", &bad);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.ToString().find("file=s.otlp.json: line 3"), std::string::npos) << st.ToString();
  EXPECT_EQ(bad.truncated_lines, 0u);
}

// Span files are parsed as they are read, a window at a time: through windows smaller than a
// line, a line, or the file, a file gives what its text parsed in memory gives (spans,
// duplicates, the cut-short repair and its offset, errors) — JSON Lines with blank lines, a
// pretty-printed OTLP or Jaeger document, one line without a newline, broken files.
TEST(SpanReader, SpanFilesReadAWindowAtATimeEqualTheirTextParsedWhole) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("causeway-span-window-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::string lines;
  for (int line = 0; line < 5; ++line)
    lines += OtlpLine("30000000000000", line) + (line == 2 ? "\n\n \r\n" : "\n");
  const std::string one_line = nlohmann::json::parse(kOtlp).dump();
  const std::string texts[] = {
      lines,
      lines + one_line.substr(0, 70),                    // cut short: repaired
      lines + one_line.substr(0, 70) + "\n" + one_line,  // a bad line inside: an error
      kOtlp,                                             // pretty-printed, one document
      std::string("\n\n") + kJaeger + "\n\n",
      one_line,  // one line, no newline
      one_line + "\n \n",
      std::string(kOtlp).substr(0, 200),  // a broken document
      "",
      "\n \n",
  };
  auto summary = [](const SpanSet& set) {
    std::string out = fmt::format("dup={} cut={}", set.duplicates, set.truncated_lines);
    for (const Span& sp : set.spans)
      out += fmt::format(" {}/{}/{}/{}", SpanIdHex(sp.span_id), sp.start_ns, *sp.service, sp.tid);
    for (const std::string& w : set.warnings) out += " | " + w;
    return out;
  };
  int i = 0;
  for (const std::string& text : texts) {
    const std::string path = (dir / ("s" + std::to_string(i++) + ".json")).string();
    std::ofstream(path, std::ios::binary) << text;
    SpanSet whole;
    const Status want = ParseSpanDocument(text, path, &whole);
    for (size_t window : {size_t{1}, size_t{33}, size_t{400}, LineReader::kDefaultWindow}) {
      auto got = ReadSpanFiles({path}, window);
      SCOPED_TRACE(fmt::format("text {} window {}", i - 1, window));
      ASSERT_EQ(got.ok(), want.ok()) << got.status().ToString() << " vs " << want.ToString();
      if (!want.ok()) {
        EXPECT_EQ(got.status().ToString(), want.ToString());
        continue;
      }
      EXPECT_EQ(summary(*got), summary(whole));
      EXPECT_FALSE(got->spans.empty());
    }
  }
  std::filesystem::remove_all(dir);
}

TEST(SpanReader, HexIdsOfAnyCaseAreRead) {
  SpanSet set;
  const Status st = ParseSpanDocument(
      R"({"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0123456789abcdefFEDCBA9876543210",)"
      R"("spanId":"aBcDeF0123456789","startTimeUnixNano":"5","endTimeUnixNano":"6"}]}]}]})",
      "x.json", &set);
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_EQ(set.spans.size(), 1u);
  EXPECT_EQ(set.spans[0].trace.high, 0x0123456789abcdefull);
  EXPECT_EQ(set.spans[0].trace.low, 0xfedcba9876543210ull);
  EXPECT_EQ(set.spans[0].span_id, 0xabcdef0123456789ull);
}

TEST(SpanReader, BadInputNamesTheFileAndThePlace) {
  struct Case {
    std::string text, message;
  } cases[] = {
      {"not json", "file=x.json: line 1"},
      {"[1,2]", "file=x.json: not a JSON object"},
      {R"({"foo":1})", "neither OTLP JSON (resourceSpans) nor Jaeger JSON (data)"},
      {R"({"resourceSpans":3})", "resourceSpans: not an array"},
      {R"({"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"zz","spanId":"01"}]}]}]})",
       "resourceSpans[0].scopeSpans[0].spans[0]: trace id 'zz' is not hex"},
      // A non-digit after 15 good ones, and a 17-digit span id.
      {R"({"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"01","spanId":"0123456789ABCDEg"}]}]}]})",
       "spanId '0123456789ABCDEg' is not 16 hex digits"},
      {R"({"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"01","spanId":"0123456789abcdef0"}]}]}]})",
       "is not 16 hex digits"},
      {R"({"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"01","spanId":"0000000000000000"}]}]}]})",
       "spanId is all zeros"},
      {R"({"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"01","spanId":"02","startTimeUnixNano":"5"}]}]}]})",
       "endTimeUnixNano is missing or not an integer"},
      {R"({"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"01","spanId":"02","startTimeUnixNano":"5","endTimeUnixNano":"4"}]}]}]})",
       "ends before it starts"},
      {R"({"data":[{"spans":[{"traceID":"01","spanID":"02","startTime":5,"duration":-1}]}]})",
       "data[0].spans[0]: duration is missing, negative or not an integer"},
      {R"({"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"000","spanId":"02"}]}]}]})",
       "trace id is all zeros"},
      // Microseconds that overflow 64-bit nanoseconds (found by the fuzzer).
      {R"({"data":[{"spans":[{"traceID":"01","spanID":"02","startTime":9223372036854775,"duration":1}]}]})",
       "data[0].spans[0]: startTime + duration is beyond the range of ns timestamps"},
      {R"({"data":[{"spans":[{"traceID":"01","spanID":"02","startTime":9223372036854775807,"duration":1}]}]})",
       "beyond the range of ns timestamps"},
      // Shapes the library itself rejects (found by the fuzzer): a number beyond double's
      // range, a Jaeger process that is not an object.
      {"9e9020ed473", "file=x.json"},
      {R"({"data":[{"processes":{"p1":7},"spans":[]}]})", "file=x.json"},
  };
  for (const auto& c : cases) {
    SpanSet set;
    const Status st = ParseSpanDocument(c.text, "x.json", &set);
    ASSERT_FALSE(st.ok()) << c.text;
    EXPECT_NE(st.ToString().find(c.message), std::string::npos) << st.ToString();
    EXPECT_NE(st.ToString().find("x.json"), std::string::npos) << st.ToString();
  }
}

TEST(SpanReader, MissingFilesAndEmptyDirectoriesAreReported) {
  auto r = ReadSpanFiles({"/nonexistent/spans"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("/nonexistent/spans"), std::string::npos);
  auto e = ReadSpanFiles({"/proc/self/fdinfo"});
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().ToString().find("No span files"), std::string::npos);
}

// Files are read and parsed a line at a time (one parser for all files): a broken file, a
// broken line after good ones, an empty file each stop the read naming the file, and a good
// file read before them in the same directory changes nothing.
TEST(SpanReader, BrokenSpanFilesAreReportedWithTheirNames) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("causeway-span-files-" + std::to_string(getpid()));
  struct Case {
    std::string text;
    std::string message;
  };
  const Case cases[] = {
      {R"({"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": )", "file="},
      {std::string(kOtlp).substr(0, 40), "file="},
      {"{\"resourceSpans\":[]}\n{\"resourceSpans\": [tru\n", "line 2"},
      {"", "empty"},
      {"\xff\xfe garbage", "file="},
  };
  for (const Case& c : cases) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "a-good.json") << kOtlp;
    std::ofstream(dir / "b-broken.json") << c.text;
    auto r = ReadSpanFiles({dir.string()});
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.status().ToString().find("b-broken.json"), std::string::npos)
        << r.status().ToString();
    EXPECT_NE(r.status().ToString().find(c.message), std::string::npos) << r.status().ToString();
  }
  // The good file alone reads completely.
  fs::remove(dir / "b-broken.json");
  auto ok = ReadSpanFiles({dir.string()});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->spans.size(), 2u);
  fs::remove_all(dir);
}

// A causeway-client user-space trace's options, as the sync-event tests write it.
ctf::TraceOptions UstTraceOptions() {
  ctf::TraceOptions opts;
  opts.hostname = "ust-host";
  opts.domain = "ust";
  opts.tracer_name = "causeway-client";
  opts.event_context_procname_vtid = true;
  return opts;
}

// Events the user-space tracer discarded are counted per trace and summed into the span set:
// a span whose sync events were among them keeps its own times.
TEST(SyncEvents, DiscardedEventsAreCounted) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("causeway-sync-discarded-" + std::to_string(getpid()));
  fs::remove_all(dir);
  ctf::TraceOptions opts = UstTraceOptions();
  {
    auto w = ctf::CtfWriter::Create((dir / "ust").string(), opts);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    using ctf::FieldKind;
    const std::vector<ctf::FieldSpec> span = {{"trace_id_high", FieldKind::kU64},
                                              {"trace_id_low", FieldKind::kU64},
                                              {"span_id", FieldKind::kU64},
                                              {"tid", FieldKind::kS32}};
    const uint32_t start = *(*w)->AddEventClass("jaeger_ust:start_span", span);
    const uint32_t end = *(*w)->AddEventClass("jaeger_ust:end_span", span);
    const ctf::UstContext ctx{"svc", 101};
    (*w)->Begin(0, start, 1000, ctx).U64(1).U64(2).U64(7).S32(101);
    ASSERT_TRUE((*w)->SetDiscarded(0, 4).ok());
    (*w)->Begin(0, start, 2000, ctx).U64(1).U64(2).U64(8).S32(101);
    ASSERT_TRUE((*w)->SetDiscarded(0, 6).ok());  // cumulative: 2 more
    (*w)->Begin(1, end, 3000, ctx).U64(1).U64(2).U64(8).S32(101);
    ASSERT_TRUE((*w)->SetDiscarded(1, 5).ok());
    ASSERT_TRUE((*w)->Close().ok());
  }
  auto events = ReadSyncEvents({dir.string()});
  fs::remove_all(dir);
  ASSERT_TRUE(events.ok()) << events.status().ToString();
  ASSERT_EQ(events->traces.size(), 1u);
  EXPECT_EQ(events->traces[0].events.size(), 3u);
  EXPECT_EQ(events->traces[0].discarded_events, 11u);
  SpanSet set;
  for (uint64_t id : {7, 8}) {
    Span s;
    s.trace = {1, 2};
    s.span_id = id;
    s.start_ns = 1;
    s.end_ns = 5000;
    set.by_id[id] = set.spans.size();
    set.spans.push_back(s);
  }
  ApplySyncEvents(*events, &set);
  EXPECT_EQ(set.sync_events_discarded, 11u);
  EXPECT_EQ(set.synced, 1u);  // span 8; span 7's end is missing
  EXPECT_EQ(set.spans[0].start_ns, 1);
  EXPECT_EQ(set.spans[1].start_ns, 2000);
}

// Sync events read on the host's own clock and transformed afterwards give what reading
// them through the transform gives (the requests command reads them beside the kernel
// trace, before the transforms are known): times, threads, activations.
TEST(SyncEvents, ReadThenTransformedEqualsReadThroughTheTransform) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("causeway-sync-events-" + std::to_string(getpid()));
  fs::remove_all(dir);
  ctf::TraceOptions opts = UstTraceOptions();
  opts.clock_offset_ns = 1'000'000'000;
  {
    auto w = ctf::CtfWriter::Create((dir / "ust").string(), opts);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    using ctf::FieldKind;
    const std::vector<ctf::FieldSpec> span = {
        {"trace_id_high", FieldKind::kU64}, {"trace_id_low", FieldKind::kU64},
        {"span_id", FieldKind::kU64},       {"parent_span_id", FieldKind::kU64},
        {"op_name", FieldKind::kString},    {"tid", FieldKind::kS32}};
    const std::vector<ctf::FieldSpec> act = {{"trace_id_high", FieldKind::kU64},
                                             {"trace_id_low", FieldKind::kU64},
                                             {"span_id", FieldKind::kU64},
                                             {"tid", FieldKind::kS32}};
    const uint32_t start = *(*w)->AddEventClass("jaeger_ust:start_span", span);
    const uint32_t end = *(*w)->AddEventClass("jaeger_ust:end_span", span);
    const uint32_t activate = *(*w)->AddEventClass("causeway_ust:activate", act);
    const uint32_t deactivate = *(*w)->AddEventClass("causeway_ust:deactivate", act);
    const uint32_t other = *(*w)->AddEventClass("app:other", {{"span_id", FieldKind::kU64}});
    const ctf::UstContext ctx{"svc", 101};
    // Span 7 starts on stream 0 and ends on stream 1 (its thread changed CPU); thread 102
    // works for it between 2000 and 3000; an unrelated event is ignored.
    (*w)->Begin(0, start, 1000, ctx).U64(1).U64(2).U64(7).U64(0).String("GET /").S32(101);
    (*w)->Begin(0, activate, 2000, ctx).U64(1).U64(2).U64(7).S32(102);
    (*w)->Begin(1, other, 2500, ctx).U64(7);
    (*w)->Begin(1, deactivate, 3000, ctx).U64(1).U64(2).U64(7).S32(102);
    (*w)->Begin(1, end, 5000, ctx).U64(1).U64(2).U64(7).U64(0).String("GET /").S32(101);
    ASSERT_TRUE((*w)->Close().ok());
  }
  auto events = ReadSyncEvents({dir.string()});
  ASSERT_TRUE(events.ok()) << events.status().ToString();
  ASSERT_EQ(events->traces.size(), 1u);
  const SyncEvents::Trace& t = events->traces[0];
  EXPECT_EQ(t.hostname, "ust-host");
  ASSERT_EQ(t.events.size(), 4u);
  EXPECT_EQ(t.events[0].kind, SyncEvent::kStart);
  EXPECT_EQ(t.events[0].ts, 1'000'001'000);
  EXPECT_EQ(t.events[1].kind, SyncEvent::kActivate);
  EXPECT_EQ(t.events[2].kind, SyncEvent::kDeactivate);
  EXPECT_EQ(t.events[2].tid, 102);
  EXPECT_EQ(t.deactivated, (std::vector<TraceId>{{1, 2}}));
  EXPECT_EQ(t.events[3].kind, SyncEvent::kEnd);

  // A slope other than 1 and an offset, for this host; another host's transform is ignored.
  const std::map<std::string, ClockTransform> transforms = {
      {"ust-host", ClockTransform::FromLine(1.0000003L, 12345, 1'000'000'000)},
      {"other-host", ClockTransform::FromLine(1, -999, 0)}};
  auto make_set = [] {
    SpanSet set;
    Span s;
    s.trace = {1, 2};
    s.span_id = 7;
    s.start_ns = 1;
    s.end_ns = 2;
    set.by_id[7] = 0;
    set.spans.push_back(s);
    return set;
  };
  SpanSet after = make_set(), paths = make_set();
  ApplySyncEvents(*events, &after, transforms);
  ASSERT_TRUE(ApplySyncEvents({dir.string()}, &paths, transforms).ok());
  // The reference: the sync events' times as the reader gives them when it applies the
  // transform itself (how they were read before the split), in its merged order.
  std::vector<std::pair<std::string, int64_t>> through;
  {
    auto reader =
        ctf::EventReader::Open({(dir / "ust").string()}, ctf::ReaderOptions::ByHost(transforms));
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    while (const ctf::Event* e = (*reader)->Next())
      if (e->plan && e->name() != "app:other")
        through.emplace_back(std::string(e->name()), static_cast<int64_t>(e->timestamp));
    ASSERT_TRUE((*reader)->status().ok());
  }
  const std::vector<std::pair<std::string, int64_t>> expected_through = {
      {"jaeger_ust:start_span", after.spans[0].start_ns},
      {"causeway_ust:activate", after.activations.at(0).begin_ns},
      {"causeway_ust:deactivate", after.activations.at(0).end_ns},
      {"jaeger_ust:end_span", after.spans[0].end_ns}};
  EXPECT_EQ(through, expected_through);
  const ClockTransform& host = transforms.at("ust-host");
  for (const SpanSet* set : {&after, &paths}) {
    ASSERT_EQ(set->synced, 1u);
    EXPECT_EQ(set->spans[0].start_ns, host.Apply(1'000'001'000));
    EXPECT_EQ(set->spans[0].end_ns, host.Apply(1'000'005'000));
    EXPECT_EQ(set->spans[0].tid, 101);
    ASSERT_EQ(set->activations.size(), 1u);
    EXPECT_EQ(set->activations[0].tid, 102);
    EXPECT_EQ(set->activations[0].begin_ns, host.Apply(1'000'002'000));
    EXPECT_EQ(set->activations[0].end_ns, host.Apply(1'000'003'000));
  }
  EXPECT_NE(after.spans[0].start_ns, 1'000'001'000) << "the transform was not applied";
  fs::remove_all(dir);
}

// A member given twice: a lookup finds the first, and the second's spans were lost without a
// word. Both paths (the fast path hands such a document to the DOM reader) read every one.
TEST(SpanReader, ReadsEveryResourceSpansMemberOfADocument) {
  const std::string path = std::string(CAUSEWAY_SOURCE_DIR) +
                           "/fuzz/corpus/span_reader/duplicate-resource-spans-key.json";
  std::ifstream f(path);
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(text.empty()) << path;
  for (const bool fast : {true, false}) {
    SpanSet set;
    ASSERT_TRUE(ParseSpanDocument(text, "d.json", &set, fast).ok());
    ASSERT_EQ(set.spans.size(), 2u) << fast;
    EXPECT_EQ(*set.spans[0].operation, "a");
    EXPECT_EQ(*set.spans[1].operation, "b");
  }
}

// A start before 1970 is no time of any recording: the span is dropped and counted (it
// ranked slowest by decades); a span id used again, even in another trace, is counted.
TEST(SpanReader, DropsAndCountsNegativeStartsAndDuplicateIds) {
  const std::string path = std::string(CAUSEWAY_SOURCE_DIR) +
                           "/fuzz/corpus/span_reader/parent-cycle-two-roots-negative.json";
  std::ifstream f(path);
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(text.empty()) << path;
  for (const bool fast : {true, false}) {
    SpanSet set;
    ASSERT_TRUE(ParseSpanDocument(text, "c.json", &set, fast).ok());
    EXPECT_EQ(set.negative_times, 1u) << fast;
    EXPECT_EQ(set.duplicates, 1u) << fast;
    EXPECT_EQ(set.spans.size(), 5u) << fast;
    for (const Span& s : set.spans) EXPECT_GE(s.start_ns, 0) << *s.operation;
  }
}

}  // namespace
}  // namespace causeway::spans
