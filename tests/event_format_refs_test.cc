// Sequence lengths and variant tags that live in a scope the formatter does not print (the
// event header) are read from the event, in text and in JSON; arrays of empty elements that
// the metadata makes huge are cut short.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "report/event_format.h"
#include "support/test_util.h"

namespace causeway::testing {
namespace {

constexpr char kMetadata[] = R"(/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
trace { major = 1; minor = 8; byte_order = le; };
stream {
	event.header := struct {
		uint8_t id;
		enum : uint8_t { small, big } kind;
		uint8_t len;
	};
};
event {
	name = "refs";
	id = 0;
	fields := struct {
		variant <stream.event.header.kind> { uint8_t small; uint32_t big; } _v;
		uint8_t _data[stream.event.header.len];
	};
};
)";

void WriteFile(const std::string& path, const std::string& bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr) << path;
  ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
  ASSERT_EQ(std::fclose(f), 0);
}

TEST(EventFormatRefs, ReadsLengthsAndTagsFromTheEventHeader) {
  TempDir dir;
  WriteFile(dir.path() + "/metadata", kMetadata);
  // id 0, kind big, len 2; v.big = 0x12345678; data = { 1, 2 }. Then id 0, kind small, len 0;
  // v.small = 7.
  WriteFile(dir.path() + "/stream",
            std::string("\x00\x01\x02\x78\x56\x34\x12\x01\x02\x00\x00\x00\x07", 13));
  auto reader = ctf::EventReader::Open({dir.path()});
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  report::EventFormatter text({.time = report::TimeFormat::kCycles, .delta = false});
  report::EventFormatter json;
  std::vector<std::string> texts, jsons;
  while (const ctf::Event* e = (*reader)->Next()) {
    std::string t, j;
    text.AppendText(*e, &t);
    json.AppendJson(*e, &j);
    texts.push_back(t.substr(t.find("refs:")));
    jsons.push_back(j.substr(j.find("\"fields\"")));
  }
  ASSERT_TRUE((*reader)->status().ok()) << (*reader)->status().ToString();
  ASSERT_EQ(texts.size(), 2u);
  EXPECT_EQ(texts[0], "refs: { v = { 305419896 }, data = [ [0] = 1, [1] = 2 ] }");
  EXPECT_EQ(texts[1], "refs: { v = { 7 }, data = [ ] }");
  EXPECT_EQ(jsons[0], R"("fields":{"v":{"big":305419896},"data":[1,2]}})");
  EXPECT_EQ(jsons[1], R"("fields":{"v":{"small":7},"data":[]}})");
}

// An array of empty structs takes no bits, whatever its length: the walker stops after as
// many elements as the event has bits (plus 4096) instead of printing 10^15 of them.
TEST(EventFormatRefs, CutsHugeArraysOfEmptyElements) {
  TempDir dir;
  WriteFile(dir.path() + "/metadata", R"(/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
trace { major = 1; minor = 8; byte_order = le; };
stream { event.header := struct { uint8_t id; }; };
event { name = "empties"; id = 0; fields := struct { struct { } e[1000000000000000]; uint8_t x; }; };
)");
  WriteFile(dir.path() + "/stream", std::string("\x00\x2a", 2));
  auto reader = ctf::EventReader::Open({dir.path()});
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  const ctf::Event* e = (*reader)->Next();
  ASSERT_NE(e, nullptr) << (*reader)->status().ToString();
  report::EventFormatter text({.time = report::TimeFormat::kCycles, .delta = false});
  std::string t, j;
  text.AppendText(*e, &t);
  report::EventFormatter().AppendJson(*e, &j);
  const uint64_t limit = 16 + 4096;  // the event's bits + 4096
  EXPECT_NE(t.find(fmt::format("[{}] = {{ }}, ...", limit - 1)), std::string::npos);
  EXPECT_EQ(t.find(fmt::format("[{}] =", limit)), std::string::npos);
  EXPECT_NE(t.find("x = 42"), std::string::npos) << t.substr(t.size() - 100);
  EXPECT_NE(j.find("{}]"), std::string::npos);
  EXPECT_NE(j.find("\"x\":42"), std::string::npos);
  EXPECT_EQ((*reader)->Next(), nullptr);
  EXPECT_TRUE((*reader)->status().ok()) << (*reader)->status().ToString();
}

}  // namespace
}  // namespace causeway::testing
