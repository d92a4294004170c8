#include "report/json_writer.h"

#include <cstdint>
#include <limits>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace causeway::report {
namespace {

std::string Str(std::string_view s) {
  std::string out;
  AppendJsonString(&out, s);
  return out;
}

// The same bytes as nlohmann::json::dump() for every valid string, escapes included.
TEST(JsonWriter, StringsAreWrittenAsNlohmannDumpsThem) {
  std::string all_bytes_below_0x80;
  for (int c = 0; c < 0x80; ++c) all_bytes_below_0x80.push_back(static_cast<char>(c));
  for (const std::string& s :
       {std::string(), std::string("plain"), std::string("quote \" backslash \\ slash /"),
        std::string("tab\tnewline\nreturn\rbs\bff\f"), std::string("nul\0x", 5),
        std::string("\x01\x1f\x7f"), std::string("blocked by request 53e902eb (44%) \xE2\x80\xA6"),
        std::string("\xC3\xA9t\xC3\xA9 \xF0\x9F\x98\x80 \xEF\xBF\xBF"), all_bytes_below_0x80})
    EXPECT_EQ(Str(s), nlohmann::json(s).dump()) << s;
}

// Invalid UTF-8 (which dump() refuses with an exception) becomes U+FFFD per bad byte: the
// text stays valid JSON and valid UTF-8, and the good characters around it are kept.
TEST(JsonWriter, InvalidUtf8BecomesReplacementCharacters) {
  const struct {
    std::string in, want;
  } cases[] = {
      {"a\xFF"
       "b",
       "a\xEF\xBF\xBD"
       "b"},
      {"\xC3", "\xEF\xBF\xBD"},                                                  // cut short
      {"\xC0\xAF", "\xEF\xBF\xBD\xEF\xBF\xBD"},                                  // overlong
      {"\xED\xA0\x80", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"},                  // surrogate
      {"\xF4\x90\x80\x80", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"},  // > U+10FFFF
      {"\xE2\x80\xA6\x80", "\xE2\x80\xA6\xEF\xBF\xBD"},
  };
  for (const auto& c : cases) {
    const std::string text = Str(c.in);
    EXPECT_EQ(text, "\"" + c.want + "\"");
    const nlohmann::json back = nlohmann::json::parse(text);  // throws on invalid UTF-8
    EXPECT_EQ(back.get<std::string>(), c.want);
  }
}

TEST(JsonWriter, IntegersAreWrittenAsNlohmannDumpsThem) {
  for (const int64_t v :
       {int64_t{0}, int64_t{-1}, int64_t{1795368148088943346}, std::numeric_limits<int64_t>::min(),
        std::numeric_limits<int64_t>::max()}) {
    std::string out;
    AppendJsonInt(&out, v);
    EXPECT_EQ(out, nlohmann::json(v).dump());
  }
}

}  // namespace
}  // namespace causeway::report
