// ScalarRef and TextRef (field_ref.h) read what the PlanNode reads, for every field of every
// event of the bundled traces, made from the node or for a named field: merged, with and
// without a decoding thread (events of static layout then carry their slots relative to the
// event's start, and their fields' places: Event::static_fields), and each stream read
// alone (StreamCursor's own views, which walk the slots).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "ctf/reader/event_reader.h"
#include "ctf/reader/field_ref.h"
#include "ctf/writer/ctf_writer.h"
#include "support/test_util.h"

namespace causeway::testing {
namespace {

using ctf::Event;
using ctf::TextRef;

struct Seen {
  uint64_t scalars = 0, absent = 0;
  std::map<TextRef::Kind, uint64_t> texts;
  // Named-field reads of events with static_fields: by their table entry (one load from
  // the event's start) or by the general path (the entry's shift is -1).
  uint64_t static_events = 0, by_entry = 0, by_general_path = 0;
};

// Notes how the named-field read of field `i` of `e` goes.
void NoteStaticRead(const Event& e, int i, Seen* seen) {
  if (!e.static_fields) return;
  if (e.static_fields[i + 1].shift >= 0)
    ++seen->by_entry;
  else
    ++seen->by_general_path;
}

// Every named field of `e` read through its refs, against its node.
void ExpectEventRefsReadLikeNodes(const Event& e, Seen* seen) {
  seen->static_events += e.static_fields != nullptr;
  for (int i = 0; i < static_cast<int>(e.plan->fields.size()); ++i) {
    const auto& f = e.plan->fields[i];
    const ctf::PlanNode& n = *f.node;
    if (auto r = ctf::ScalarRefOf(n)) {
      ++seen->scalars;
      if (e.Position(n) == ctf::kAbsent) ++seen->absent;
      ASSERT_EQ(e.GetUnsigned(*r), e.GetUnsigned(n)) << e.name() << "." << f.name;
      ASSERT_EQ(e.GetSigned(*r), e.GetSigned(n)) << e.name() << "." << f.name;
      ASSERT_FALSE(ctf::TextRefOf(n).has_value()) << e.name() << "." << f.name;
      const auto named = ctf::ScalarRefOf(*e.plan, i);
      ASSERT_TRUE(named.has_value()) << e.name() << "." << f.name;
      ASSERT_EQ(named->field, static_cast<uint32_t>(i) + 1);
      ASSERT_EQ(e.GetUnsigned(*named), e.GetUnsigned(n)) << e.name() << "." << f.name;
      ASSERT_EQ(e.GetSigned(*named), e.GetSigned(n)) << e.name() << "." << f.name;
      NoteStaticRead(e, i, seen);
    } else if (auto t = ctf::TextRefOf(n)) {
      ++seen->texts[t->kind];
      ASSERT_EQ(e.GetString(*t), e.GetString(n)) << e.name() << "." << f.name;
      const auto named = ctf::TextRefOf(*e.plan, i);
      ASSERT_TRUE(named.has_value()) << e.name() << "." << f.name;
      ASSERT_EQ(e.GetString(*named), e.GetString(n)) << e.name() << "." << f.name;
      NoteStaticRead(e, i, seen);
    } else {
      // Neither: a struct, a variant, or an array of anything but bytes, which
      // GetString(node) does not read as text either.
      ASSERT_EQ(e.GetString(n), std::string_view()) << e.name() << "." << f.name;
    }
  }
}

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
    ExpectEventRefsReadLikeNodes(*e, seen);
    if (::testing::Test::HasFatalFailure()) return;
  }
  ASSERT_TRUE((*reader)->status().ok()) << (*reader)->status().ToString();
  EXPECT_GT(events, 0u);
}

// Each stream read alone: the cursor's views place no fields, every read walks the slots.
void ExpectRefsReadLikeNodesStreamByStream(const std::string& dir, Seen* seen) {
  SCOPED_TRACE(fmt::format("{}, each stream alone", dir));
  ctf::ReaderOptions options;
  options.decode_threads = 0;
  auto reader = ctf::EventReader::Open({dir}, options);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  uint64_t events = 0;
  const Status status = (*reader)->ScanUnordered(1, [&](unsigned, ctf::StreamCursor& cursor) {
    while (!::testing::Test::HasFatalFailure() && cursor.Next()) {
      const Event& e = cursor.event();
      if (e.kind != Event::Kind::kEvent) continue;
      ++events;
      ASSERT_EQ(e.static_fields, nullptr) << e.name();
      ExpectEventRefsReadLikeNodes(e, seen);
    }
  });
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_GT(events, 0u);
}

TEST(CtfFieldRefsTest, ReadWhatThePlanNodesReadOnEveryBundledTrace) {
  Seen seen;
  for (const char* name : {"lttng/bug446190", "lttng/hello-lost", "lttng/many-threads",
                           "lttng/memory", "perf-sched"}) {
    for (unsigned threads : {0u, 1u}) ExpectRefsReadLikeNodes(TestTrace(name), threads, &seen);
    ExpectRefsReadLikeNodesStreamByStream(TestTrace(name), &seen);
  }
  std::printf("scalars %lu (absent %lu), strings %lu, byte arrays %lu, byte sequences %lu\n",
              (unsigned long)seen.scalars, (unsigned long)seen.absent,
              (unsigned long)seen.texts[TextRef::Kind::kString],
              (unsigned long)seen.texts[TextRef::Kind::kArray],
              (unsigned long)seen.texts[TextRef::Kind::kSequence]);
  std::printf("events of static layout %lu: named fields read by entry %lu, generally %lu\n",
              (unsigned long)seen.static_events, (unsigned long)seen.by_entry,
              (unsigned long)seen.by_general_path);
  // The LTTng traces' events of static layout take the entries.
  EXPECT_GT(seen.static_events, 1000u);
  EXPECT_GT(seen.by_entry, 1000u);
}

// Replaces the line of `text` that declares `field` (" _field;" or " _field[16];").
void ReplaceDeclaration(std::string* text, const std::string& field, const std::string& with) {
  size_t at = text->find(" _" + field + ";");
  if (at == std::string::npos) at = text->find(" _" + field + "[");
  ASSERT_NE(at, std::string::npos) << field;
  const size_t begin = text->rfind('\n', at) + 1;
  const size_t end = text->find('\n', at);
  text->replace(begin, end - begin, with);
}

// An event class of static layout whose fields are where one 8-byte load does not read
// them: a 64-bit field 3 bits into a byte, a big-endian one, bit fields, signed ones; and
// beside them a float, a byte array and the string that ends the event. The trace is
// written with byte-sized fields, then its metadata declares other fields over the same
// bytes.
TEST(CtfFieldRefsTest, NamedFieldsOfStaticLayoutReadWhatTheNodesReadWhereverTheyLie) {
  TempDir dir;
  const std::string path = dir.path() + "/odd";
  ctf::TraceOptions options;
  options.packet_size = 4096;  // many packets: events near a packet's end
  {
    auto w = ctf::CtfWriter::Create(path, options);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    using K = ctf::FieldKind;
    const auto odd = (*w)->AddEventClass("odd", {{"a", K::kU64},
                                                 {"b", K::kU8},
                                                 {"c", K::kU32},
                                                 {"d", K::kU16},
                                                 {"e", K::kDouble},
                                                 {"f", K::kCharArray16},
                                                 {"g", K::kString}});
    const auto plain = (*w)->AddEventClass(
        "plain", {{"u", K::kU32}, {"s", K::kS16}, {"x", K::kHex64}, {"n", K::kString}});
    ASSERT_TRUE(odd.ok() && plain.ok());
    std::mt19937_64 rng(7);
    uint64_t ts = 1000;
    for (int i = 0; i < 3000; ++i) {
      ts += 1 + rng() % 5000;
      const uint32_t stream = static_cast<uint32_t>(rng() % 3);
      const std::string text(rng() % 12, static_cast<char>('a' + i % 26));
      if (i % 3 == 0) {
        (*w)->Begin(stream, *plain, ts)
            .U32(static_cast<uint32_t>(rng()))
            .S16(static_cast<int16_t>(rng()))
            .Hex64(rng())
            .String(text);
      } else {
        (*w)->Begin(stream, *odd, ts)
            .U64(rng())
            .U8(static_cast<uint8_t>(rng()))
            .U32(static_cast<uint32_t>(rng()))
            .U16(static_cast<uint16_t>(rng()))
            .Double(static_cast<double>(rng() % 100000) / 7.0)
            .Chars16(text)
            .String(text + "!");
      }
    }
    ASSERT_TRUE((*w)->Close().ok());
  }
  std::stringstream metadata;
  metadata << std::ifstream(path + "/metadata").rdbuf();
  std::string text = metadata.str();
  ASSERT_TRUE(text.starts_with("/* CTF 1.8 */")) << "the writer's metadata is plain text";
  // a and b, 72 bits: 3 + 64 + 5 bits.
  ReplaceDeclaration(&text, "a",
                     "integer { size = 3; align = 8; signed = false; } _p3;\n"
                     "integer { size = 64; align = 1; signed = false; } _wide;");
  ReplaceDeclaration(&text, "b", "integer { size = 5; align = 1; signed = true; } _s5;");
  ReplaceDeclaration(&text, "c",
                     "integer { size = 32; align = 8; signed = false; byte_order = be; } _be;");
  ReplaceDeclaration(&text, "d",
                     "integer { size = 7; align = 8; signed = false; } _x7;\n"
                     "integer { size = 9; align = 1; signed = true; } _s9;");
  std::ofstream(path + "/metadata", std::ios::trunc) << text;

  Seen seen;
  ExpectRefsReadLikeNodes(path, 0, &seen);
  ExpectRefsReadLikeNodes(path, 1, &seen);
  ExpectRefsReadLikeNodesStreamByStream(path, &seen);
  // Both ways of the named-field read were taken: the wide and the big-endian fields
  // take the general path, the others their entries.
  EXPECT_GT(seen.static_events, 1000u);
  EXPECT_GT(seen.by_entry, 5000u);
  EXPECT_GT(seen.by_general_path, 2000u);
  std::printf("events of static layout %lu: named fields read by entry %lu, generally %lu\n",
              (unsigned long)seen.static_events, (unsigned long)seen.by_entry,
              (unsigned long)seen.by_general_path);

  // A ref used on an event of another class reads the wrong bytes, but never outside the
  // event's buffer: the fields of "odd" past the count of "plain"'s are past the end of
  // plain's table, and take the general read, as the same refs made from the nodes do
  // (memory errors are the sanitizers' to catch).
  ctf::ReaderOptions options1;
  options1.decode_threads = 1;
  auto reader = ctf::EventReader::Open({path}, options1);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  std::vector<std::pair<ctf::ScalarRef, ctf::ScalarRef>> odd_refs;  // (named, from the node)
  uint64_t crossed = 0;
  while (const Event* e = (*reader)->Next()) {
    if (e->kind != Event::Kind::kEvent) continue;
    if (e->name() == "odd" && odd_refs.empty()) {
      for (int i = 4; i < static_cast<int>(e->plan->fields.size()); ++i) {
        auto named = ctf::ScalarRefOf(*e->plan, i);
        auto node = ctf::ScalarRefOf(*e->plan->fields[i].node);
        if (named && node) odd_refs.emplace_back(*named, *node);
      }
      ASSERT_GE(odd_refs.size(), 2u);
    }
    if (e->name() != "plain" || !e->static_fields) continue;
    for (const auto& [named, node] : odd_refs) {
      ASSERT_GE(named.field, e->static_fields[0].byte);
      ASSERT_EQ(e->GetUnsigned(named), e->GetUnsigned(node));
      ++crossed;
    }
  }
  EXPECT_GT(crossed, 100u);
}

}  // namespace
}  // namespace causeway::testing
