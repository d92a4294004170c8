#include "pivot/parser.h"

#include <string>

#include <gtest/gtest.h>

namespace causeway::pivot {
namespace {

Query MustParse(std::string_view text) {
  auto q = Parse(text);
  EXPECT_TRUE(q.ok()) << q.status().ToString();
  if (!q.ok()) return Query();
  // The canonical text parses back to the same canonical text.
  auto again = Parse(q->ToString());
  EXPECT_TRUE(again.ok()) << again.status().ToString();
  if (again.ok()) {
    EXPECT_EQ(again->ToString(), q->ToString());
  }
  return std::move(q).value();
}

std::string ErrorOf(std::string_view text) {
  auto q = Parse(text);
  EXPECT_FALSE(q.ok()) << text;
  return q.ok() ? "" : q.status().root_message();
}

// The paper's queries, as printed there.
constexpr const char* kQ1 = R"(From incr In DataNodeMetrics.incrBytesRead
    GroupBy incr.host
    Select incr.host, SUM(incr.delta))";
constexpr const char* kQ2 = R"(From incr In DataNodeMetrics.incrBytesRead
    Join cl In First(ClientProtocols) On cl -> incr
    GroupBy cl.procName
    Select cl.procName, SUM(incr.delta))";
constexpr const char* kQ3 = R"(From dnop In DN.DataTransferProtocol
     GroupBy dnop.host
     Select dnop.host, COUNT)";
constexpr const char* kQ4 = R"(From getloc In NN.GetBlockLocations
     Join st In StressTest.DoNextOp On st -> getloc
     GroupBy st.host, getloc.src
     Select st.host, getloc.src, COUNT)";
constexpr const char* kQ5 = R"(From getloc In NN.GetBlockLocations
Join st In StressTest.DoNextOp On st -> getloc
GroupBy st.host, getloc.replicas
Select st.host, getloc.replicas, COUNT)";
constexpr const char* kQ6 = R"(From DNop In DN.DataTransferProtocol
Join st In StressTest.DoNextOp On st -> DNop
GroupBy st.host, DNop.host
Select st.host, DNop.host, COUNT)";
constexpr const char* kQ7 = R"(From DNop In DN.DataTransferProtocol
Join getloc In NN.GetBlockLocations
On getloc -> DNop
Join st In StressTest.DoNextOp On st -> getloc
Where st.host != DNop.host
GroupBy DNop.host, getloc.replicas
Select DNop.host, getloc.replicas, COUNT)";

TEST(PivotParser, PaperQueriesParse) {
  for (const char* q : {kQ1, kQ2, kQ3, kQ4, kQ5, kQ6, kQ7}) MustParse(q);
}

TEST(PivotParser, Q1) {
  Query q = MustParse(kQ1);
  EXPECT_EQ(q.var, "incr");
  ASSERT_EQ(q.from.tracepoints.size(), 1u);
  EXPECT_EQ(q.from.tracepoints[0], "DataNodeMetrics.incrBytesRead");
  ASSERT_EQ(q.group_by.size(), 1u);
  EXPECT_EQ(q.group_by[0].ToString(), "incr.host");
  ASSERT_EQ(q.select.size(), 2u);
  EXPECT_EQ(q.select[0].aggregate, Aggregate::kNone);
  EXPECT_EQ(q.select[1].aggregate, Aggregate::kSum);
  EXPECT_EQ(q.select[1].field.ToString(), "incr.delta");
  EXPECT_EQ(q.select[1].ColumnName(), "sum_delta");
  EXPECT_EQ(q.select[1].pos.line, 3);
  EXPECT_EQ(q.select[1].pos.column, 23);
}

TEST(PivotParser, Q2JoinFirst) {
  Query q = MustParse(kQ2);
  ASSERT_EQ(q.joins.size(), 1u);
  const Join& j = q.joins[0];
  EXPECT_EQ(j.var, "cl");
  EXPECT_EQ(j.kind, JoinKind::kFirst);
  EXPECT_EQ(j.source.tracepoints, std::vector<std::string>{"ClientProtocols"});
  EXPECT_EQ(j.before, "cl");
  EXPECT_EQ(j.after, "incr");
  EXPECT_EQ(q.ToString(),
            "From incr In DataNodeMetrics.incrBytesRead Join cl In First(ClientProtocols) On cl "
            "-> incr GroupBy cl.procName Select cl.procName, SUM(incr.delta)");
}

TEST(PivotParser, Q7TwoJoinsAndWhere) {
  Query q = MustParse(kQ7);
  ASSERT_EQ(q.joins.size(), 2u);
  EXPECT_EQ(q.joins[0].after, "DNop");
  EXPECT_EQ(q.joins[1].after, "getloc");
  ASSERT_NE(q.where, nullptr);
  EXPECT_EQ(q.where->ToString(), "(st.host != DNop.host)");
  EXPECT_EQ(q.select[2].aggregate, Aggregate::kCount);
}

TEST(PivotParser, UnionOfTracepoints) {
  Query q = MustParse("From e In DataRPCs, ControlRPCs, demo:request_entry Select COUNT");
  EXPECT_EQ(q.from.tracepoints,
            (std::vector<std::string>{"DataRPCs", "ControlRPCs", "demo:request_entry"}));
}

TEST(PivotParser, JoinKindsAndCounts) {
  Query q = MustParse(
      "From x In A Join a In FirstN(3)(B) On a -> x Join b In MostRecent(C, D) On b -> x "
      "Join c In MostRecentN(2)(E) On c -> x Join d In first(F) On d -> x");
  ASSERT_EQ(q.joins.size(), 4u);
  EXPECT_EQ(q.joins[0].kind, JoinKind::kFirstN);
  EXPECT_EQ(q.joins[0].n, 3u);
  EXPECT_EQ(q.joins[1].kind, JoinKind::kMostRecent);
  EXPECT_EQ(q.joins[1].source.tracepoints.size(), 2u);
  EXPECT_EQ(q.joins[2].kind, JoinKind::kMostRecentN);
  EXPECT_EQ(q.joins[2].n, 2u);
  EXPECT_EQ(q.joins[3].kind, JoinKind::kFirst);
}

TEST(PivotParser, NestedQueryJoin) {
  Query q = MustParse(
      "From x In A Join y In MostRecent((From z In B Join w In C On w -> z "
      "Where w.n > 1 Select z.host, w.n)) On y -> x Select y.host, MAX(x.n)");
  ASSERT_EQ(q.joins.size(), 1u);
  ASSERT_NE(q.joins[0].source.query, nullptr);
  const Query& inner = *q.joins[0].source.query;
  EXPECT_EQ(inner.var, "z");
  EXPECT_EQ(inner.joins.size(), 1u);
  EXPECT_EQ(inner.select.size(), 2u);
  EXPECT_EQ(q.select[1].aggregate, Aggregate::kMax);

  Query plain = MustParse("From x In A Join y In (From z In B) On y -> x");
  ASSERT_NE(plain.joins[0].source.query, nullptr);
  EXPECT_EQ(plain.joins[0].kind, JoinKind::kAll);
}

TEST(PivotParser, WherePrecedence) {
  Query q =
      MustParse("From x In A Where x.a + 2 * x.b > 10 and not x.c == \"bob\" or x.d < -1.5 % 2");
  EXPECT_EQ(q.where->ToString(),
            "((((x.a + (2 * x.b)) > 10) and (not (x.c == \"bob\"))) or (x.d < ((-1.5) % 2)))");
  Query p = MustParse("From x In A Where (x.a - 1) / 2 >= 3 && !(x.ok = true) || x.s != 'a\\'b'");
  EXPECT_EQ(p.where->ToString(),
            "(((((x.a - 1) / 2) >= 3) and (not (x.ok == true))) or (x.s != \"a'b\"))");
}

TEST(PivotParser, ExponentsParseAndPrintBack) {
  // Found by the fuzzer: small doubles print with an exponent, which must parse back.
  Query q = MustParse("From x In A Where x.a > 0.0000106548 and x.b < 2.5E3 and x.c == 1e-2");
  const std::string printed = q.where->ToString();
  EXPECT_NE(printed.find("1.06548e-05"), std::string::npos) << printed;
  Query again = MustParse("From x In A Where " + printed);
  EXPECT_EQ(again.where->ToString(), printed);
}

TEST(PivotParser, NumbersBeyondDoublesAreRefused) {
  auto q = Parse("From x In A Where x.a == 0.0003e106548");  // found by the fuzzer
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.status().ToString().find("number out of range"), std::string::npos)
      << q.status().ToString();
}

TEST(PivotParser, LongChainsThatCouldNotBeReadBackAreRefused) {
  // Found by the fuzzer: 40 && print as 40 nested parentheses, deeper than the limit.
  std::string chain = "x.a > 0";
  for (int i = 0; i < 40; ++i) chain += " && x.a > " + std::to_string(i);
  auto q = Parse("From x In A Where " + chain);
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.status().ToString().find("nests deeper than"), std::string::npos)
      << q.status().ToString();
  // A shorter one parses, prints and reads back.
  std::string shorter = "x.a > 0";
  for (int i = 0; i < 10; ++i) shorter += " && -x.a > " + std::to_string(i);
  Query ok = MustParse("From x In A Where " + shorter);
  EXPECT_EQ(MustParse(ok.ToString()).ToString(), ok.ToString());
}

TEST(PivotParser, SelectAggregates) {
  Query q = MustParse(
      "from x in A groupby x.h select x.h, count, sum(x.b), min(x.b), max(x.b), "
      "average(x.b), AVG(x.c), COUNT()");
  ASSERT_EQ(q.select.size(), 8u);
  EXPECT_EQ(q.select[1].aggregate, Aggregate::kCount);
  EXPECT_EQ(q.select[2].aggregate, Aggregate::kSum);
  EXPECT_EQ(q.select[3].aggregate, Aggregate::kMin);
  EXPECT_EQ(q.select[4].aggregate, Aggregate::kMax);
  EXPECT_EQ(q.select[5].aggregate, Aggregate::kAverage);
  EXPECT_EQ(q.select[6].aggregate, Aggregate::kAverage);
  EXPECT_EQ(q.select[7].aggregate, Aggregate::kCount);
  EXPECT_EQ(q.select[5].ColumnName(), "average_b");
}

TEST(PivotParser, Comments) {
  Query q = MustParse("# bytes per host\nFrom x In A # the source\nSelect COUNT");
  EXPECT_EQ(q.pos.line, 2);
}

TEST(PivotParser, ErrorsCarryLineColumnAndExpectation) {
  EXPECT_EQ(ErrorOf(""), "line 1, column 1: expected 'From', found end of query");
  EXPECT_EQ(ErrorOf("From x Inn A"), "line 1, column 8: expected 'In', found identifier 'Inn'");
  EXPECT_EQ(ErrorOf("From x In A\nJoin y In B On x -> y"),
            "line 2, column 1: the join reads 'On x -> y': its left side must be the joined "
            "variable 'y'");
  EXPECT_EQ(ErrorOf("From x In A Join y In B On y => x"),
            "line 1, column 30: expected '->', found '='");
  EXPECT_EQ(ErrorOf("From x In A\n  Where x.a >"),
            "line 2, column 14: expected a value, a field or '(', found end of query");
  EXPECT_EQ(ErrorOf("From x In A Select SUM(x)"), "line 1, column 25: expected '.', found ')'");
  EXPECT_EQ(ErrorOf("From x In A Select x.a,"),
            "line 1, column 24: expected a field or an aggregate, found end of query");
  EXPECT_EQ(ErrorOf("From x In A GroupBy 3"),
            "line 1, column 21: expected a variable name, found number 3");
  EXPECT_EQ(ErrorOf("From x In A Where x.s == \"abc"), "line 1, column 26: unterminated string");
  EXPECT_EQ(ErrorOf("From x In A Where x.a @ 1"), "line 1, column 23: unexpected character '@'");
  EXPECT_EQ(ErrorOf("From select In A"),
            "line 1, column 6: expected a variable name (not a keyword), found identifier "
            "'select'");
  EXPECT_EQ(ErrorOf("From x In A Join x In B On x -> x"),
            "line 1, column 13: variable 'x' bound twice");
  EXPECT_EQ(ErrorOf("From x In A Join y In Last(B) On y -> x"),
            "line 1, column 23: expected 'First', 'FirstN', 'MostRecent', 'MostRecentN' or a "
            "tracepoint, found identifier 'Last'");
  EXPECT_EQ(ErrorOf("From x In A Join y In FirstN(0)(B) On y -> x"),
            "line 1, column 30: the count must be between 1 and 1024");
  EXPECT_EQ(ErrorOf("From x In A Join y In FirstN(2) On y -> x"),
            "line 1, column 33: expected '(', found identifier 'On'");
  EXPECT_EQ(ErrorOf("From x In A Join y In (From z In B On y -> x"),
            "line 1, column 36: expected ')', found identifier 'On'");
  EXPECT_EQ(ErrorOf("From x In A Select COUNT extra"),
            "line 1, column 26: expected 'Join', 'Where', 'GroupBy', 'Select' or end, found "
            "identifier 'extra'");
  EXPECT_EQ(ErrorOf("From x In A Where x.a > 99999999999999999999"),
            "line 1, column 25: integer out of range");
  // The full message names the stage.
  auto q = Parse("From");
  EXPECT_EQ(q.status().ToString(),
            "Cannot parse query: CAUSED BY line 1, column 5: expected a variable name, found end "
            "of query");
}

TEST(PivotParser, BoundedNestingAndSize) {
  std::string deep = "From x In A Where ";
  for (int i = 0; i < 200; ++i) deep += "(";
  deep += "x.a";
  for (int i = 0; i < 200; ++i) deep += ")";
  EXPECT_NE(ErrorOf(deep).find("nesting deeper than"), std::string::npos);

  std::string chain = "From x In A Where x.a";
  for (int i = 0; i < 2000; ++i) chain += " + 1";
  EXPECT_NE(ErrorOf(chain).find("more than 512 operators"), std::string::npos);

  std::string nots = "From x In A Where ";
  for (int i = 0; i < 2000; ++i) nots += "not ";
  nots += "x.a";
  EXPECT_NE(ErrorOf(nots).find("nesting deeper than"), std::string::npos);

  EXPECT_NE(ErrorOf(std::string(kMaxQueryBytes + 1, ' ')).find("longer than"), std::string::npos);
}

}  // namespace
}  // namespace causeway::pivot
