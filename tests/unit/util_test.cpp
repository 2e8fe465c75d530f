#include <gtest/gtest.h>

#include "fuzz.hpp"

#include <limits>
#include <string>
#include <vector>

#include <filesystem>
#include <fstream>

#include <sys/stat.h>
#include <unistd.h>

#include "util/byte_buffer.hpp"
#include "util/checked.hpp"
#include "util/input_file.hpp"
#include "util/printable.hpp"
#include "util/sha256.hpp"
#include "util/error.hpp"
#include "util/expression.hpp"
#include "util/suggest.hpp"
#include "util/units.hpp"

namespace podsim {
namespace {

TEST(Units, BandwidthDecimalBinaryAndBits) {
  EXPECT_DOUBLE_EQ(units::parse_bandwidth("45 GB/s"), 45e9);
  EXPECT_DOUBLE_EQ(units::parse_bandwidth("1.2 TB/s"), 1.2e12);
  EXPECT_DOUBLE_EQ(units::parse_bandwidth("12 GiB/s"), 12.0 * 1073741824.0);
  // 400 Gbps is 400e9 bits, i.e. 50e9 bytes, per second.
  EXPECT_DOUBLE_EQ(units::parse_bandwidth("400 Gbps"), 50e9);
  EXPECT_DOUBLE_EQ(units::parse_bandwidth("200 Gb/s"), 25e9);
  EXPECT_DOUBLE_EQ(units::parse_bandwidth("4.5e10 B/s"), 4.5e10);
  EXPECT_DOUBLE_EQ(units::parse_bandwidth("45GB/s"), 45e9);
}

TEST(Units, DurationsArePicoseconds) {
  EXPECT_EQ(units::parse_duration("1 us"), 1'000'000);
  EXPECT_EQ(units::parse_duration("1 \xC2\xB5s"), 1'000'000);
  EXPECT_EQ(units::parse_duration("250 ns"), 250'000);
  EXPECT_EQ(units::parse_duration("2 ms"), 2'000'000'000);
  EXPECT_EQ(units::parse_duration("1.5 s"), 1'500'000'000'000);
  EXPECT_EQ(units::parse_duration("0 s"), 0);
  EXPECT_EQ(units::parse_duration("7 ps"), 7);
}

TEST(Units, SizesDecimalAndBinary) {
  EXPECT_EQ(units::parse_bytes("32 GiB"), 32ull << 30);
  EXPECT_EQ(units::parse_bytes("1KiB"), 1024u);
  EXPECT_EQ(units::parse_bytes("16 GB"), 16'000'000'000ull);
  EXPECT_EQ(units::parse_bytes("4096"), 4096u);
  EXPECT_EQ(units::parse_bytes("512 B"), 512u);
}

TEST(Units, FlopRates) {
  EXPECT_DOUBLE_EQ(units::parse_flop_rate("275 TFLOP/s"), 275e12);
  EXPECT_DOUBLE_EQ(units::parse_flop_rate("1.97e14 FLOP/s"), 1.97e14);
  EXPECT_DOUBLE_EQ(units::parse_flop_rate("989 TFLOPS"), 989e12);
}

TEST(Units, BadValuesSayWhatWasExpected) {
  try {
    units::parse_bandwidth("fast");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "expected a bandwidth like \"45 GB/s\", got \"fast\"");
  }
  EXPECT_THROW(units::parse_bandwidth("45 GB"), InputError);      // a size, not a rate
  EXPECT_THROW(units::parse_bandwidth("0 GB/s"), InputError);     // must be positive
  EXPECT_THROW(units::parse_bandwidth("-3 GB/s"), InputError);
  EXPECT_THROW(units::parse_duration("1 us/s"), InputError);
  EXPECT_THROW(units::parse_duration("-1 us"), InputError);
  EXPECT_THROW(units::parse_bytes("-4 KiB"), InputError);
  EXPECT_THROW(units::parse_bytes("0.5 B"), InputError);
  EXPECT_THROW(units::parse_bytes("3 GB/s"), InputError);
  EXPECT_THROW(units::parse_bytes("nan B"), InputError);
  EXPECT_THROW(units::parse_bytes("inf"), InputError);
  EXPECT_THROW(units::parse_flop_rate("275 TB/s"), InputError);
  EXPECT_THROW(units::parse_bytes(""), InputError);
  EXPECT_THROW(units::parse_duration("us"), InputError);
}

TEST(Units, Formatting) {
  EXPECT_EQ(units::format_bytes(1024.0 * 1024 * 1024), "1.00 GiB");
  EXPECT_EQ(units::format_bytes(1000.0), "1000 B");
  EXPECT_EQ(units::format_bandwidth(45e9), "45.0 GB/s");
  EXPECT_EQ(units::format_seconds(1.5e-6), "1.500 us");
}

TEST(Suggest, FindsPlausibleTypos) {
  const std::vector<std::string> keys{"bandwidth", "latency", "dims", "wraparound"};
  EXPECT_EQ(closest_match("bandwith", keys), "bandwidth");
  EXPECT_EQ(closest_match("wrap_around", keys), "wraparound");
  EXPECT_EQ(closest_match("colour", keys), "");
  EXPECT_EQ(did_you_mean("latncy", keys), " (did you mean \"latency\"?)");
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(join_choices(keys), "bandwidth, latency, dims or wraparound");
}

TEST(Expression, PrecedenceParenthesesAndUnaryMinus) {
  const std::map<std::string, std::int64_t> vars{{"chips", 4096}, {"tp", 8}, {"pp", 16}};
  std::string why;
  EXPECT_EQ(Expression("chips / (tp * pp)").evaluate(vars, &why), 32);
  EXPECT_EQ(Expression("chips / tp * pp").evaluate(vars, &why), 8192);  // left to right
  EXPECT_EQ(Expression("1 + 2 * 3").evaluate(vars, &why), 7);
  EXPECT_EQ(Expression("(1 + 2) * 3").evaluate(vars, &why), 9);
  EXPECT_EQ(Expression("-tp + 10").evaluate(vars, &why), 2);
  EXPECT_EQ(Expression("  pp-tp ").evaluate(vars, &why), 8);
  EXPECT_EQ(Expression("chips / (tp * pp)").names(), (std::vector<std::string>{"chips", "tp", "pp"}));
}

TEST(Expression, InexactOrByZeroDivisionIsNoValueWithAReason) {
  const std::map<std::string, std::int64_t> vars{{"chips", 256}, {"tp", 3}, {"zero", 0}};
  std::string why;
  EXPECT_EQ(Expression("chips / tp").evaluate(vars, &why), std::nullopt);
  EXPECT_NE(why.find("256 / 3"), std::string::npos) << why;
  why.clear();
  EXPECT_EQ(Expression("chips / zero").evaluate(vars, &why), std::nullopt);
  EXPECT_FALSE(why.empty());
}

TEST(Expression, SyntaxErrorsAndUnknownNamesAreInputErrors) {
  for (const char* bad : {"", "chips /", "(tp * pp", "tp pp", "3 $ 4", "tp * )"}) {
    EXPECT_THROW(Expression{bad}, InputError) << bad;
  }
  std::string why;
  EXPECT_THROW((void)Expression("chips / dp").evaluate({{"chips", 8}}, &why), InputError);
}

TEST(Expression, OverflowAndDeepNestingAreHandled) {
  std::string why;
  EXPECT_EQ(Expression("9223372036854775807 + 1").evaluate({}, &why), std::nullopt);
  EXPECT_NE(why.find("too large"), std::string::npos) << why;
  EXPECT_EQ(Expression("-9223372036854775807 - 1").evaluate({}, &why), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(Expression("(-9223372036854775807 - 1) / -1").evaluate({}, &why), std::nullopt);
  EXPECT_EQ(Expression("4294967296 * 4294967296").evaluate({}, &why), std::nullopt);
  EXPECT_THROW(Expression("99999999999999999999"), InputError);
  EXPECT_THROW(Expression(std::string(100000, '(') + "1" + std::string(100000, ')')), InputError);
  EXPECT_THROW(Expression(std::string(100000, '-') + "1"), InputError);
  EXPECT_EQ(Expression(std::string(100, '(') + "7" + std::string(100, ')')).evaluate({}, &why), 7);
}

TEST(Expression, FuzzedTextsParseOrFailCleanly) {
  const std::map<std::string, std::int64_t> vars{{"chips", 4096}, {"tp", 8}, {"pp", 16}, {"zero", 0}};
  std::mt19937 rng(2024);
  int parsed = 0;
  int rejected = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::string text = testing::mutate("chips / (tp * pp) - 2 * (pp + 1)", rng);
    try {
      const Expression e(text);
      std::string why;
      try {
        (void)e.evaluate(vars, &why);
      } catch (const InputError&) {  // a name not in vars
      }
      ++parsed;
    } catch (const InputError& e) {
      ++rejected;
      EXPECT_NE(std::string(e.what()).find("character"), std::string::npos) << e.what();
    }
  }
  EXPECT_GT(parsed, 0);
  EXPECT_GT(rejected, 0);
}

TEST(ByteBuffer, RoundTripsAndRefusesToReadPastTheEnd) {
  ByteWriter w;
  w.u64(42);
  w.f64(-0.1);
  w.text("µ and \0 bytes");
  w.text("");
  const std::vector<char> bytes = w.take();
  ByteReader r(bytes);
  EXPECT_EQ(r.u64(), 42U);
  EXPECT_EQ(r.f64(), -0.1);
  EXPECT_EQ(r.text(), "µ and \0 bytes");
  EXPECT_EQ(r.text(), "");
  EXPECT_ANY_THROW(r.u64());
}

TEST(Sha256, MatchesTheStandardsTestVectors) {
  // FIPS 180-4 examples (NIST CSRC), and sha256sum of a one-block-plus-tail message: 56 bytes
  // need a second padding block, 55 do not.
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  EXPECT_EQ(sha256_hex(std::string(55, 'x')).size(), 64u);
  EXPECT_NE(sha256_hex(std::string(55, 'x')), sha256_hex(std::string(56, 'x')));
}

TEST(Checked, ProductsAndSumsReportOverflow) {
  EXPECT_EQ(checked_mul(std::int64_t{65536}, std::int64_t{65536}), std::int64_t{4294967296});
  EXPECT_FALSE(checked_mul(std::int64_t{1} << 32, std::int64_t{1} << 31));
  EXPECT_FALSE(checked_add(std::numeric_limits<std::int64_t>::max(), std::int64_t{1}));
  EXPECT_FALSE(checked_mul(std::uint64_t{1} << 32, std::uint64_t{1} << 32));  // 16 axes of 16 values
  EXPECT_EQ(checked_mul(std::uint64_t{1} << 31, std::uint64_t{1} << 32), std::uint64_t{1} << 63);
}

TEST(Units, ImplausibleValuesSuggestTheMissingPrefix) {
  const units::PlausibleRange peak{1e9, 1e18, 3e14, "FLOP/s", "accelerator"};
  EXPECT_FALSE(units::implausible("275 TFLOP/s", 275e12, peak));
  EXPECT_EQ(*units::implausible("275 FLOP/s", 275, peak),
            "\"275 FLOP/s\" is below 1 GFLOP/s, less than any plausible accelerator; did you mean \"275 TFLOP/s\"?");
  const units::PlausibleRange link{1e6, 1e14, 1e11, "B/s", "link"};
  // Bits stay bits: 200 Gb/s is 25 GB/s, nearest the typical 100 GB/s.
  EXPECT_NE(units::implausible("200 b/s", 25, link)->find("did you mean \"200 Gb/s\"?"), std::string::npos);
  const units::PlausibleRange hbm{1048576.0, 1125899906842624.0, 68719476736.0, "B", "memory", true};
  EXPECT_NE(units::implausible("80", 80, hbm)->find("did you mean \"80 GiB\"?"), std::string::npos);
  // Too large to represent, or no prefix that lands in range: no suggestion.
  EXPECT_EQ(units::implausible("1e300 FLOP/s", 1e300, peak)->find("did you mean"), std::string::npos);
  EXPECT_THROW(units::parse_bandwidth("1e308 TB/s"), InputError);
  EXPECT_THROW(units::parse_duration("1e300 s"), InputError);
}

class InputFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) / ("podsim_input_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string refusal(const std::filesystem::path& file, std::uintmax_t max = kMaxInputFileBytes) {
    try {
      (void)read_input_file(file, "f", max);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }
  std::filesystem::path dir_;
};

TEST_F(InputFiles, OnlyBoundedRegularTextFilesAreRead) {
  std::ofstream(dir_ / "ok.yaml") << "a: 1\n";
  EXPECT_EQ(read_input_file(dir_ / "ok.yaml", "f"), "a: 1\n");
  EXPECT_EQ(refusal(dir_ / "missing"), "f: cannot open: no such file");
  EXPECT_EQ(refusal(dir_), "f: cannot open: it is a directory");
  EXPECT_EQ(refusal("/dev/zero"), "f: cannot open: it is not a regular file (a device, pipe or socket); podsim reads only files");
  EXPECT_EQ(refusal(dir_ / "ok.yaml", 4), "f: cannot open: it is 5.00 B; podsim reads input files of up to 4.00 B");
  std::ofstream(dir_ / "nul.yaml", std::ios::binary) << std::string("ab\0c", 4);
  EXPECT_EQ(refusal(dir_ / "nul.yaml"), "f: not a text file (a NUL byte at offset 2)");
  std::ofstream(dir_ / "r.h5", std::ios::binary) << std::string(kHdf5Signature, 8) << "rest";
  EXPECT_TRUE(is_hdf5_file(dir_ / "r.h5"));
  EXPECT_NE(refusal(dir_ / "r.h5").find("f: this is an HDF5 file (a podsim result?)"), std::string::npos);
}

TEST_F(InputFiles, EveryReasonAPathCannotBeOpenedIsNamed) {
  namespace fs = std::filesystem;
  fs::create_symlink(dir_ / "loop-b", dir_ / "loop-a");
  fs::create_symlink(dir_ / "loop-a", dir_ / "loop-b");
  EXPECT_EQ(refusal(dir_ / "loop-a"),
            "f: cannot open: it is a symbolic link that loops (too many levels of symbolic links)");
  fs::create_symlink(dir_ / "gone", dir_ / "dangling");
  EXPECT_EQ(refusal(dir_ / "dangling"), "f: cannot open: it is a symbolic link to a file that does not exist");
  EXPECT_EQ(refusal(dir_ / (std::string(300, 'x') + ".yaml")), "f: cannot open: the path is too long for the file system");
  std::ofstream(dir_ / "file") << "a: 1\n";
  EXPECT_EQ(refusal(dir_ / "file" / "under.yaml"), "f: cannot open: a part of its path is not a directory");
  EXPECT_EQ(refusal(""), "cannot open a file with an empty name: give a path");
  // A FIFO is refused without being opened: opening it would block until a writer came.
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  EXPECT_EQ(refusal(dir_ / "fifo"), "f: cannot open: it is not a regular file (a device, pipe or socket); podsim reads only files");
  EXPECT_FALSE(is_hdf5_file(dir_ / "fifo"));
}

TEST(Printable, LeavesTextAloneAndShowsWhatATerminalWouldActOn) {
  EXPECT_EQ(printable("gpt3-175b · tpu-v4 (4096 chips) × µ\ttab\nline"), "gpt3-175b · tpu-v4 (4096 chips) × µ\ttab\nline");
  // ESC [ 2 J clears the screen; BEL rings; DEL; a carriage return overwrites the line.
  EXPECT_EQ(printable("\x1b[2Jname\x07\x7f\r"), "\\x1b[2Jname\\x07\\x7f\\x0d");
  // C1 controls (CSI as U+009B) and the right-to-left override are valid UTF-8 but act or reorder.
  EXPECT_EQ(printable("a\xc2\x9b" "2Jb\xe2\x80\xae" "c"), "a\\u009b2Jb\\u202ec");
  // Invalid UTF-8: a stray continuation byte, a truncated sequence, an overlong '/', a
  // surrogate, and a code point beyond U+10FFFF, each byte shown.
  EXPECT_EQ(printable("\x80"), "\\x80");
  EXPECT_EQ(printable("ok\xe2\x82"), "ok\\xe2\\x82");
  EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");
  EXPECT_EQ(printable("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");
  EXPECT_EQ(printable(std::string("a\0b", 3)), "a\\x00b");
  // Four-byte UTF-8 is fine.
  EXPECT_EQ(printable("\xf0\x9f\x9a\x80"), "\xf0\x9f\x9a\x80");
}

}  // namespace
}  // namespace podsim
