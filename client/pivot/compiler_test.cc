#include <string>

#include <gtest/gtest.h>

#include "pivot/advice.h"
#include "pivot/parser.h"

namespace causeway::pivot {
namespace {

std::string CompileText(std::string_view text) {
  auto q = Parse(text);
  EXPECT_TRUE(q.ok()) << q.status().ToString();
  if (!q.ok()) return "";
  auto c = Compile(*q, "q1");
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? c->ToString() : "";
}

std::string CompileError(std::string_view text) {
  auto q = Parse(text);
  EXPECT_TRUE(q.ok()) << q.status().ToString();
  if (!q.ok()) return "";
  auto c = Compile(*q, "q1");
  EXPECT_FALSE(c.ok());
  return c.ok() ? "" : c.status().ToString();
}

TEST(PivotCompiler, Q2Shape) {
  EXPECT_EQ(CompileText("From incr In DataNodeMetrics.incrBytesRead "
                        "Join cl In First(ClientProtocols) On cl -> incr "
                        "GroupBy cl.procName Select cl.procName, SUM(incr.delta)"),
            R"(at ClientProtocols:
  OBSERVE cl cl.procName
  PACK q1.cl FIRST cl.procName
at DataNodeMetrics.incrBytesRead:
  OBSERVE incr incr.delta
  UNPACK q1.cl cl.procName
  EMIT q1 GROUPBY cl.procName AGG SUM(incr.delta)
)");
}

TEST(PivotCompiler, Q7Shape) {
  EXPECT_EQ(CompileText("From DNop In DN.DataTransferProtocol "
                        "Join getloc In NN.GetBlockLocations On getloc -> DNop "
                        "Join st In StressTest.DoNextOp On st -> getloc "
                        "Where st.host != DNop.host "
                        "GroupBy DNop.host, getloc.replicas "
                        "Select DNop.host, getloc.replicas, COUNT"),
            R"(at StressTest.DoNextOp:
  OBSERVE st st.host
  PACK q1.st ALL st.host
at NN.GetBlockLocations:
  OBSERVE getloc getloc.replicas
  UNPACK q1.st st.host
  PACK q1.getloc ALL getloc.replicas st.host
at DN.DataTransferProtocol:
  OBSERVE DNop DNop.host
  UNPACK q1.getloc getloc.replicas st.host
  FILTER (st.host != DNop.host)
  EMIT q1 GROUPBY DNop.host getloc.replicas AGG COUNT
)");
}

TEST(PivotCompiler, SelectionPushedToSource) {
  EXPECT_EQ(CompileText("From x In A Join y In B On y -> x "
                        "Where y.n > 3 and x.m < 2 and x.m != y.n "
                        "GroupBy y.name Select y.name, MAX(x.m)"),
            R"(at B:
  OBSERVE y y.name y.n
  FILTER (y.n > 3)
  PACK q1.y ALL y.name y.n
at A:
  OBSERVE x x.m
  UNPACK q1.y y.name y.n
  FILTER (x.m < 2)
  FILTER (x.m != y.n)
  EMIT q1 GROUPBY y.name AGG MAX(x.m)
)");
}

TEST(PivotCompiler, SelectionNotPushedBelowFirstOrMostRecent) {
  EXPECT_EQ(CompileText("From x In A Join y In MostRecentN(2)(B) On y -> x "
                        "Join z In C On z -> y Where y.n > 3 and z.k == 1 "
                        "GroupBy y.name Select y.name, COUNT"),
            R"(at C:
  OBSERVE z z.k
  PACK q1.z ALL z.k
at B:
  OBSERVE y y.name y.n
  UNPACK q1.z z.k
  PACK q1.y RECENTN(2) y.name y.n z.k
at A:
  OBSERVE x
  UNPACK q1.y y.name y.n z.k
  FILTER (y.n > 3)
  FILTER (z.k == 1)
  EMIT q1 GROUPBY y.name AGG COUNT
)");
}

TEST(PivotCompiler, AggregationPushedToSource) {
  EXPECT_EQ(CompileText("From x In A Join y In B On y -> x "
                        "GroupBy y.host Select y.host, SUM(y.bytes), AVERAGE(y.ms), COUNT"),
            R"(at B:
  OBSERVE y y.host y.bytes y.ms
  PACK q1.y AGGREGATE GROUPBY y.host AGG SUM(y.bytes) AVERAGE(y.ms) COUNT
at A:
  OBSERVE x
  UNPACK q1.y PARTIAL GROUPBY y.host AGG SUM(y.bytes) AVERAGE(y.ms) COUNT
  EMIT q1 GROUPBY y.host COMBINE SUM(y.bytes) AVERAGE(y.ms) COUNT
)");
}

TEST(PivotCompiler, NestedQuery) {
  EXPECT_EQ(CompileText("From x In A Join y In First((From z In B Join w In C On w -> z "
                        "Select z.host, w.user)) On y -> x GroupBy y.user Select y.user, COUNT"),
            R"(at C:
  OBSERVE w w.user
  PACK q1.w ALL w.user
at B:
  OBSERVE z z.host
  UNPACK q1.w w.user
  PACK q1.y FIRST z.host w.user AS y.host y.user
at A:
  OBSERVE x
  UNPACK q1.y y.host y.user
  EMIT q1 GROUPBY y.user AGG COUNT
)");
}

TEST(PivotCompiler, NoAggregationEmitsTuples) {
  EXPECT_EQ(CompileText("From x In A, B Where x.n > 1 Select x.n, x.host"), R"(at A, B:
  OBSERVE x x.n x.host
  FILTER (x.n > 1)
  EMIT q1 x.n x.host
)");
}

TEST(PivotCompiler, Errors) {
  EXPECT_EQ(CompileError("From x In A Select y.n"),
            "Cannot compile query: CAUSED BY line 1, column 20: unknown variable 'y'");
  EXPECT_EQ(CompileError("From x In A Join y In B On y -> z Select COUNT"),
            "Cannot compile query: CAUSED BY line 1, column 13: 'On y -> z': 'z' is not bound");
  EXPECT_EQ(CompileError("From x In A GroupBy x.a Select x.b, COUNT"),
            "Cannot compile query: CAUSED BY line 1, column 32: 'x.b' is selected but neither "
            "grouped nor aggregated");
  EXPECT_EQ(CompileError("From x In A"),
            "Cannot compile query: CAUSED BY a query needs a Select clause");
  EXPECT_EQ(CompileError("From x In A Join y In (From z In B Select z.a) On y -> x Select y.b"),
            "Cannot compile query: CAUSED BY line 1, column 65: the query bound to 'y' has no "
            "column 'b'");
}

}  // namespace
}  // namespace causeway::pivot
