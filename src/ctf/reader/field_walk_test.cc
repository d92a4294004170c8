// FieldWalker hands every kind of value to its visitor decoded, in declaration order, and
// the same through the FieldVisitor interface as through a visitor class of its own.
#include "ctf/reader/field_walk.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "ctf/reader/event_reader.h"
#include "support/test_util.h"

namespace causeway::ctf {
namespace {

constexpr char kMetadata[] = R"(/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 8; align = 8; signed = true; } := int8_t;
typealias integer { size = 16; align = 8; signed = false; base = 16; } := hex16_t;
typealias integer { size = 8; align = 8; signed = false; encoding = UTF8; } := char_t;
trace { major = 1; minor = 8; byte_order = le; };
stream { event.header := struct { uint8_t id; }; };
event {
	name = "all";
	id = 0;
	fields := struct {
		int8_t _neg;
		enum : uint8_t { zero, one, also_one = 1 } _e;
		floating_point { exp_dig = 8; mant_dig = 24; align = 8; } _f;
		string _s;
		hex16_t _h[2];
		uint8_t _n;
		char_t _text[_n];
		enum : uint8_t { a, b } _tag;
		variant <_tag> { uint8_t a; struct { uint8_t x; } b; } _v;
		struct { } _empty;
	};
};
)";

// id 0; neg -2; e 1; f 1.5; s "hi"; h { 0x0102, 0xABCD }; n 3; text "abc"; tag b; v.b.x 7.
const std::string kStream(
    "\x00\xfe\x01\x00\x00\xc0\x3fhi\x00\x02\x01\xcd\xab\x03"
    "abc\x01\x07",
    20);

// Writes what it is handed as a line of tokens.
class Recorder final : public FieldVisitor {
 public:
  std::string out;
  void BeginStruct(size_t n) override { out += fmt::format("{{{}", n); }
  void Member(size_t i, std::string_view name) override { out += fmt::format(" {}:{}=", i, name); }
  void EndStruct(size_t) override { out += "}"; }
  void BeginVariant(std::string_view option) override { out += fmt::format("<{}>", option); }
  void EndVariant() override { out += "</>"; }
  void UnknownOption() override { out += "?"; }
  void BeginArray(uint64_t n) override { out += fmt::format("[{}", n); }
  void Element(uint64_t i) override { out += fmt::format(" #{}=", i); }
  void ElementsCut(uint64_t i) override { out += fmt::format(" cut@{}", i); }
  void EndArray(uint64_t) override { out += "]"; }
  void Integer(const IntegerValue& v) override { out += Int(v); }
  void Enum(const IntegerValue& v, std::span<const std::string* const> labels) override {
    out += "enum(" + Int(v);
    for (const std::string* l : labels) out += " " + *l;
    out += ")";
  }
  void Float(double v) override { out += fmt::format("f{}", v); }
  void Text(std::string_view text) override { out += fmt::format("'{}'", text); }
  void Absent() override { out += "absent"; }

 private:
  static std::string Int(const IntegerValue& v) {
    return fmt::format("i{}/{}/{}{}b{}", v.bits, v.value, v.size_bits, v.is_signed ? "s" : "u",
                       v.base);
  }
};

class FieldWalkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const auto& [name, bytes] :
         {std::pair{"/metadata", std::string(kMetadata)}, std::pair{"/stream", kStream}}) {
      std::FILE* f = std::fopen((dir_.path() + name).c_str(), "wb");
      ASSERT_NE(f, nullptr);
      ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
      ASSERT_EQ(std::fclose(f), 0);
    }
    auto reader = EventReader::Open({dir_.path()});
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    reader_ = std::move(*reader);
    event_ = reader_->Next();
    ASSERT_NE(event_, nullptr) << reader_->status().ToString();
  }

  testing::TempDir dir_;
  std::unique_ptr<EventReader> reader_;
  const Event* event_ = nullptr;
};

constexpr char kPayload[] =
    "{10 0:neg=i254/-2/8sb10 1:e=enum(i1/1/8ub10 one also_one) 2:f=f1.5 3:s='hi' "
    "4:h=[2 #0=i258/258/16ub16 #1=i43981/43981/16ub16] 5:n=i3/3/8ub10 6:text='abc' "
    "7:tag=enum(i1/1/8ub10 b) 8:v=<b>{1 0:x=i7/7/8ub10}</> 9:empty={0}}";

TEST_F(FieldWalkTest, VisitsEveryKindOfValueDecoded) {
  FieldWalker walker;
  walker.Start(*event_);
  EXPECT_TRUE(FieldWalker::HasScope(*event_, Scope::kEventPayload));
  EXPECT_FALSE(FieldWalker::HasScope(*event_, Scope::kEventContext));
  Recorder direct;
  walker.WalkScope(Scope::kEventPayload, direct);
  EXPECT_EQ(direct.out, kPayload);
  // Through the interface, the same calls.
  Recorder recorder;
  FieldVisitor& through_base = recorder;
  walker.Start(*event_);
  walker.WalkScope(Scope::kEventPayload, through_base);
  EXPECT_EQ(recorder.out, kPayload);
  // A scope the event does not have: nothing.
  Recorder none;
  walker.WalkScope(Scope::kEventContext, none);
  EXPECT_EQ(none.out, "");
}

TEST_F(FieldWalkTest, WalksMembersNumberedFromTheIndexGiven) {
  FieldWalker walker;
  walker.Start(*event_);
  Recorder r;
  EXPECT_EQ(walker.WalkMembers(Scope::kEventPayload, r, 5), 15u);
  EXPECT_EQ(r.out.substr(0, 22), " 5:neg=i254/-2/8sb10 6");
  EXPECT_EQ(walker.WalkMembers(Scope::kEventContext, r, 15), 15u);
}

}  // namespace
}  // namespace causeway::ctf
