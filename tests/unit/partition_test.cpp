// How independent items are dealt to processes (partition/contiguous_dealer.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "partition/contiguous_dealer.hpp"

namespace podsim::partition {
namespace {

TEST(ContiguousDealer, EachProcessWorksForwardThroughItsOwnRunFirst) {
  ContiguousDealer d(10, 3);  // runs [0, 4), [4, 7), [7, 10)
  EXPECT_EQ(d.next(1), 4u);
  EXPECT_EQ(d.next(0), 0u);
  EXPECT_EQ(d.next(2), 7u);
  EXPECT_EQ(d.next(1), 5u);
  EXPECT_EQ(d.next(1), 6u);
  EXPECT_EQ(d.left(), 5u);
}

TEST(ContiguousDealer, AProcessWhoseRunIsDoneTakesTheLastItemOfTheFullestRun) {
  ContiguousDealer d(8, 2);  // runs [0, 4), [4, 8)
  for (std::size_t i = 4; i < 8; ++i) EXPECT_EQ(d.next(1), i);
  // Process 0 has taken nothing: process 1 works backwards from its end, process 0 forwards.
  EXPECT_EQ(d.next(1), 3u);
  EXPECT_EQ(d.next(0), 0u);
  EXPECT_EQ(d.next(1), 2u);
  EXPECT_EQ(d.next(0), 1u);
  EXPECT_EQ(d.next(0), std::nullopt);
  EXPECT_EQ(d.next(1), std::nullopt);
}

TEST(ContiguousDealer, DealsEveryItemOnceWhateverTheOrderOfAsking) {
  for (int processes : {1, 2, 3, 7, 20}) {
    for (std::size_t items : {0u, 1u, 5u, 19u, 100u}) {
      ContiguousDealer d(items, processes);
      std::vector<int> dealt(items, 0);
      for (unsigned step = 0; d.left() > 0; ++step) {
        const int p = static_cast<int>((step * 7 + step / 3) % static_cast<unsigned>(processes));
        const auto item = d.next(p);
        ASSERT_TRUE(item.has_value());
        ASSERT_LT(*item, items);
        ++dealt[*item];
      }
      EXPECT_EQ(d.next(0), std::nullopt);
      EXPECT_TRUE(std::all_of(dealt.begin(), dealt.end(), [](int n) { return n == 1; }))
          << processes << " processes, " << items << " items";
    }
  }
}

}  // namespace
}  // namespace podsim::partition
