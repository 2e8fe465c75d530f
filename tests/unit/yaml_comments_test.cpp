// config::shorten_comments: yaml-cpp must read the shortened text as the same document, with
// every node where it was (error messages give line and column), on every YAML file the
// repository ships and on the cases the scan must not touch.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/yaml_comments.hpp"
#include "yaml_same.hpp"

namespace podsim::config {
namespace {

namespace fs = std::filesystem;

TEST(ShortenComments, CutsCommentsToTheirHashAndNothingElse) {
  EXPECT_EQ(shorten_comments("a: 1  # one\n# whole line\n  # indented\nb: 'x # y'  # z\n"),
            "a: 1  #\n#\n  #\nb: 'x # y'  #\n");
  EXPECT_EQ(shorten_comments("c: \"p \\\" # q\" # r\nd: it's # s\ne: a#b # t\n"),
            "c: \"p \\\" # q\" #\nd: it's #\ne: a#b #\n");
  EXPECT_EQ(shorten_comments("f: 'it''s # u' # v\ng: [1, '#', \"#\"] # w\n"),
            "f: 'it''s # u' #\ng: [1, '#', \"#\"] #\n");
  EXPECT_EQ(shorten_comments("a: 1 # x\r\nb: 2\r\n"), "a: 1 #\r\nb: 2\r\n");
  // Without a final line break the last line stays: yaml-cpp puts an empty value at the end
  // of the text, i.e. the end of that comment.
  EXPECT_EQ(shorten_comments("k: # a\nno newline # at the end"), "k: #\nno newline # at the end");
  // A lone carriage return breaks no line for yaml-cpp: the "#" after it is content.
  EXPECT_EQ(shorten_comments("a: b\r# c # d\n"), "a: b\r# c #\n");
}

TEST(ShortenComments, LeavesWhatItCannotFollow) {
  // A block scalar: its lines are content, "#" or not; the rest stays as it is.
  EXPECT_EQ(shorten_comments("a: 1 # x\nb: |\n  # kept\n# kept too\n"), "a: 1 #\nb: |\n  # kept\n# kept too\n");
  EXPECT_EQ(shorten_comments("b: >-\n  text # kept\n"), "b: >-\n  text # kept\n");
  // A quoted scalar over several lines.
  EXPECT_EQ(shorten_comments("# x\na: 'one\n  # two'\n# y\n"), "#\na: 'one\n  # two'\n# y\n");
  EXPECT_EQ(shorten_comments("a: \"one \\\n # two\"\n"), "a: \"one \\\n # two\"\n");
  // yaml-cpp continues a plain scalar onto a more indented line, "#" or not (its content).
  EXPECT_EQ(shorten_comments("a:\n  b: 1\n  # c\nd: 2 # e\n"), "a:\n  b: 1\n  #\nd: 2 #\n");
  EXPECT_EQ(shorten_comments("key: a\n  # c\n  b\n"), "key: a\n  # c\n  b\n");
  EXPECT_EQ(shorten_comments("!t x\n# c\n"), "!t x\n# c\n");  // a scalar document: any line continues it
  EXPECT_EQ(shorten_comments("k: [1,\n  # c\n  2]\n"), "k: [1,\n  # c\n  2]\n");  // in a flow collection
  // yaml-cpp ends a tag at a quote, which then opens a scalar: tags, anchors, aliases and
  // directives stop the scan.
  EXPECT_EQ(shorten_comments("!t\"a\n# b\"\n# c\n"), "!t\"a\n# b\"\n# c\n");
  EXPECT_EQ(shorten_comments("# a\nk: &x 1 # b\n"), "#\nk: &x 1 # b\n");
  // After a plain scalar's content and blanks a quote is more of that scalar, and the next
  // quotes may open one that hides a "#" (a fuzz finding): the scan stops there.
  EXPECT_EQ(shorten_comments("# a\nk: [true  'h: ''''' #''''''''''7''''' x'}\n# b\n"),
            "#\nk: [true  'h: ''''' #''''''''''7''''' x'}\n# b\n");
  EXPECT_EQ(shorten_comments("k: v 'w' # c\n"), "k: v 'w' # c\n");
  // Where a token starts, a quote after blanks opens a scalar as before.
  EXPECT_EQ(shorten_comments("- 'a # b' # c\nk:  \"d\" # e\nl: [1,  'f'] # g\n"),
            "- 'a # b' #\nk:  \"d\" #\nl: [1,  'f'] #\n");
  // A quote right after a closing one opens another scalar (yaml-cpp needs no blank between).
  EXPECT_EQ(shorten_comments("a: \"x\"\"y # z\"\n"), "a: \"x\"\"y # z\"\n");
  // So does a tag: its quote opens a scalar that runs over the next lines and holds their "#"
  // (a fuzz finding, 2026-12-07).
  EXPECT_EQ(shorten_comments("\"\"!\"\"\"\ne #\n#\".\nk: \n"), "\"\"!\"\"\"\ne #\n#\".\nk: \n");
  // In a block, `a:"x b: "c` is the plain key `a:"x b` and a quoted value that runs over the
  // next line and holds its "#" (a fuzz finding, 2026-12-08): a quote right after ":" stops
  // the scan.
  EXPECT_EQ(shorten_comments("# a\nk:\"x b: \"c,\n# d\"\ne: 1 # f\n"), "#\nk:\"x b: \"c,\n# d\"\ne: 1 # f\n");
  // So does one right after "," (`s,'''o: '''''z,` is the key `s,'''o` and a quoted value).
  EXPECT_EQ(shorten_comments("# a\ns,'''o: '''''z,\n# d'\ne: 1 # f\n"), "#\ns,'''o: '''''z,\n# d'\ne: 1 # f\n");
  // UTF-16 (a NUL byte, a byte-order mark), malformed UTF-8 (yaml-cpp's decoder swallows the
  // bytes after a bad lead byte) and YAML 1.1's other line breaks are left alone.
  const std::string wide("a\0:\0 \0#\0x\0", 10);
  EXPECT_EQ(shorten_comments(wide), wide);
  EXPECT_EQ(shorten_comments("\xFF\xFE# x"), "\xFF\xFE# x");
  EXPECT_EQ(shorten_comments("# a \xF2 c\nb: 1 # x\n"), "# a \xF2 c\nb: 1 # x\n");
  EXPECT_EQ(shorten_comments("# a \xE2\x80\xA8 c\n"), "# a \xE2\x80\xA8 c\n");
  EXPECT_EQ(shorten_comments("# \xC2\xA7 1, 12 \xC3\x97 8\n"), "#\n");  // well-formed: § and ×
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(ShortenComments, EveryShippedYamlFileReadsTheSame) {
  const fs::path root(PODSIM_SOURCE_DIR);
  std::size_t files = 0;
  std::size_t before = 0;
  std::size_t after = 0;
  for (const char* dir : {"configs", "topologies", "experiments", "tools", "tests"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / dir)) {
      const auto ext = entry.path().extension();
      if (!entry.is_regular_file() || (ext != ".yaml" && ext != ".yml")) continue;
      const std::string text = read(entry.path());
      const std::string shorter = shorten_comments(text);
      YAML::Node a;
      try {
        a = YAML::Load(text);
      } catch (const YAML::Exception& e) {
        // A deliberately malformed test input: the shortened text fails at the same place.
        try {
          (void)YAML::Load(shorter);
          ADD_FAILURE() << entry.path() << ": parses only once shortened";
        } catch (const YAML::Exception& f) {
          EXPECT_EQ(e.what(), std::string(f.what())) << entry.path();
        }
        continue;
      }
      EXPECT_EQ(test::yaml_difference(a, YAML::Load(shorter)), "") << entry.path();
      ++files;
      before += text.size();
      after += shorter.size();
    }
  }
  EXPECT_GT(files, 100u);
  EXPECT_LT(after, before / 2) << "the shipped files are mostly comment";
}

}  // namespace
}  // namespace podsim::config
