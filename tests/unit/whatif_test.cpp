// A what-if knob's variants as scenario text (whatif/knobs.hpp).
#include <gtest/gtest.h>

#include "util/units.hpp"
#include "whatif/knobs.hpp"

namespace podsim::whatif {
namespace {

TEST(WhatIfKnobs, VariantsAreValuesTheScenarioTakesAndSayTheRatioTried) {
  // A size takes whole bytes: the variant is the largest binary unit that holds the product
  // within 0.01 %, and its ratio is the one actually tried.
  const auto down = scaled("32 GiB", 0.9, false);
  ASSERT_TRUE(down);
  EXPECT_EQ(down->first, "29491 MiB");
  EXPECT_DOUBLE_EQ(down->second, 29491.0 / (32 * 1024));
  EXPECT_NO_THROW((void)units::parse_bytes(down->first));
  EXPECT_EQ(scaled("80 GiB", 0.9, false)->first, "72 GiB");
  EXPECT_EQ(scaled("80 GiB", 0.9, false)->second, 0.9);
  EXPECT_EQ(scaled("1000 B", 1.1, false)->first, "1100 B");
  // A value with another unit keeps it, with six significant digits; a whole number doubles.
  EXPECT_EQ(scaled("275 TFLOP/s", 1.1, false)->first, "302.5 TFLOP/s");
  EXPECT_EQ(scaled("4", 2, true)->first, "8");
  EXPECT_FALSE(scaled("1", 0.5, true));
  EXPECT_FALSE(scaled("auto", 2, false));
}

}  // namespace
}  // namespace podsim::whatif
