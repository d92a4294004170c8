#include "base/status.h"

#include <gtest/gtest.h>

namespace causeway {
namespace {

StatusOr<int> Half(int x) {
  if (x % 2) return InvalidArgument("odd: " + std::to_string(x));
  return x / 2;
}

Status Outer(int x) {
  ASSIGN_OR_RETURN(int h, Half(x));
  if (h > 10) return DataLoss("too big");
  return Status::Ok();
}

TEST(StatusTest, ChainsContextOutermostFirst) {
  Status s = DataLoss("truncated event").WithContext("Cannot decode packet: offset=4096");
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_EQ(s.ToString(), "Cannot decode packet: offset=4096: CAUSED BY truncated event");
  EXPECT_EQ(s.root_message(), "truncated event");
}

TEST(StatusTest, AssignOrReturnPropagates) {
  EXPECT_TRUE(Outer(4).ok());
  EXPECT_EQ(Outer(3).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Outer(40).code(), StatusCode::kDataLoss);
  EXPECT_EQ(Status().WithContext("ignored").ToString(), "OK");
}

}  // namespace
}  // namespace causeway
