#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "output/hdf5_handle.hpp"
#include "output/hdf5_reader.hpp"
#include "output/hdf5_writer.hpp"
#include "output/html_report.hpp"
#include "output/json_writer.hpp"
#include "output/lock_file.hpp"
#include "output/prediction_band.hpp"
#include "output/output_claim.hpp"
#include "output/table.hpp"
#include "output/text_table.hpp"
#include "util/error.hpp"

// The HDF5 tests write real files (the writer's job is the file) into a fresh directory
// per test, removed afterwards; they read them back with the HDF5 C API.

namespace podsim::output {
namespace {

namespace fs = std::filesystem;

class Hdf5Writer : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("podsim_output_test." + std::to_string(::getpid()) + "." + test->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::vector<std::string> dir_entries() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename());
    return names;
  }

  fs::path dir_;
};

/// What every command does to write an HDF5 file: claim the path, then write the bytes.
void write_hdf5(const fs::path& path, const FileInfo& file_info, const std::vector<Table>& tables) {
  OutputClaim(path, {}).write(hdf5_bytes(file_info, tables));
}

FileInfo info() { return {"0.2.0", "podsim collective --op all-reduce", "network: {}\n", 1}; }

std::vector<Table> sample_tables() {
  Table coll{"collectives", "one row per message size", {}};
  coll.add_text("op");
  coll.add_int("bytes", "B");
  coll.add_real("time_s", "s");
  coll.texts("op") = {"all-reduce", "all-gather \xC2\xB5"};  // "µ": UTF-8 must pass through
  coll.ints("bytes") = {1024, std::int64_t{1} << 40};
  coll.reals("time_s") = {1.5e-6, 0.1};
  Table links{"links", "no contention model: no rows", {}};
  links.add_int("link", "1");
  links.add_text("axis");
  links.add_real("utilization", "1");
  return {coll, links};
}

Hdf5Handle open_file(const fs::path& path) {
  return {H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
}

std::vector<std::string> read_strings(hid_t attr) {
  const Hdf5Handle type(H5Aget_type(attr), H5Tclose);
  EXPECT_TRUE(H5Tis_variable_str(type.get()) > 0);
  EXPECT_EQ(H5Tget_cset(type.get()), H5T_CSET_UTF8);
  const Hdf5Handle space(H5Aget_space(attr), H5Sclose);
  std::vector<char*> raw(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get())));
  EXPECT_GE(H5Aread(attr, type.get(), raw.data()), 0);
  std::vector<std::string> out(raw.begin(), raw.end());
  H5Dvlen_reclaim(type.get(), space.get(), H5P_DEFAULT, raw.data());
  return out;
}

std::vector<std::string> string_attribute(hid_t loc, const char* name) {
  const Hdf5Handle attr(H5Aopen(loc, name, H5P_DEFAULT), H5Aclose);
  if (attr.get() < 0) return {"<missing>"};
  return read_strings(attr.get());
}

/// Field `name` of every row of dataset `dset`, read as `mem_type` (HDF5 picks fields by name).
template <typename T>
std::vector<T> read_field(hid_t dset, const char* name, hid_t mem_type) {
  const Hdf5Handle space(H5Dget_space(dset), H5Sclose);
  std::vector<T> out(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.get())));
  const Hdf5Handle one(H5Tcreate(H5T_COMPOUND, sizeof(T)), H5Tclose);
  H5Tinsert(one.get(), name, 0, mem_type);
  if (!out.empty()) {
    EXPECT_GE(H5Dread(dset, one.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), 0);
  }
  return out;
}

TEST_F(Hdf5Writer, WritesRootAttributesTablesTypesUnitsAndValues) {
  const fs::path path = dir_ / "out.h5";
  write_hdf5(path, info(), sample_tables());
  const Hdf5Handle file = open_file(path);
  ASSERT_GE(file.get(), 0);

  EXPECT_EQ(string_attribute(file.get(), "podsim_version"), std::vector<std::string>{"0.2.0"});
  EXPECT_EQ(string_attribute(file.get(), "command_line")[0], "podsim collective --op all-reduce");
  EXPECT_EQ(string_attribute(file.get(), "config_yaml")[0], "network: {}\n");
  std::int64_t schema = 0;
  const Hdf5Handle schema_attr(H5Aopen(file.get(), "schema_version", H5P_DEFAULT), H5Aclose);
  ASSERT_GE(H5Aread(schema_attr.get(), H5T_NATIVE_INT64, &schema), 0);
  EXPECT_EQ(schema, 1);

  const Hdf5Handle coll(H5Dopen2(file.get(), "collectives", H5P_DEFAULT), H5Dclose);
  ASSERT_GE(coll.get(), 0);
  const Hdf5Handle type(H5Dget_type(coll.get()), H5Tclose);
  ASSERT_EQ(H5Tget_class(type.get()), H5T_COMPOUND);
  ASSERT_EQ(H5Tget_nmembers(type.get()), 3);
  const char* names[] = {"op", "bytes", "time_s"};
  for (unsigned i = 0; i < 3; ++i) {
    char* name = H5Tget_member_name(type.get(), i);
    EXPECT_STREQ(name, names[i]);
    H5free_memory(name);
  }
  const Hdf5Handle op_type(H5Tget_member_type(type.get(), 0), H5Tclose);
  EXPECT_GT(H5Tis_variable_str(op_type.get()), 0);
  EXPECT_EQ(H5Tget_cset(op_type.get()), H5T_CSET_UTF8);
  const Hdf5Handle bytes_type(H5Tget_member_type(type.get(), 1), H5Tclose);
  EXPECT_GT(H5Tequal(bytes_type.get(), H5T_STD_I64LE), 0);
  const Hdf5Handle time_type(H5Tget_member_type(type.get(), 2), H5Tclose);
  EXPECT_GT(H5Tequal(time_type.get(), H5T_IEEE_F64LE), 0);

  EXPECT_EQ(read_field<std::int64_t>(coll.get(), "bytes", H5T_NATIVE_INT64),
            (std::vector<std::int64_t>{1024, std::int64_t{1} << 40}));
  EXPECT_EQ(read_field<double>(coll.get(), "time_s", H5T_NATIVE_DOUBLE),
            (std::vector<double>{1.5e-6, 0.1}));
  const Hdf5Handle str_type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(str_type.get(), H5T_VARIABLE);
  H5Tset_cset(str_type.get(), H5T_CSET_UTF8);
  auto ops = read_field<char*>(coll.get(), "op", str_type.get());
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_STREQ(ops[0], "all-reduce");
  EXPECT_STREQ(ops[1], "all-gather \xC2\xB5");
  for (char* s : ops) H5free_memory(s);
  EXPECT_EQ(string_attribute(coll.get(), "units"), (std::vector<std::string>{"", "B", "s"}));
  EXPECT_EQ(string_attribute(coll.get(), "description")[0], "one row per message size");

  // The empty table is there, with its columns and units.
  const Hdf5Handle links(H5Dopen2(file.get(), "links", H5P_DEFAULT), H5Dclose);
  ASSERT_GE(links.get(), 0);
  const Hdf5Handle links_space(H5Dget_space(links.get()), H5Sclose);
  EXPECT_EQ(H5Sget_simple_extent_npoints(links_space.get()), 0);
  const Hdf5Handle links_type(H5Dget_type(links.get()), H5Tclose);
  EXPECT_EQ(H5Tget_nmembers(links_type.get()), 3);
  EXPECT_GE(H5Tget_member_index(links_type.get(), "utilization"), 0);
  EXPECT_EQ(string_attribute(links.get(), "units"), (std::vector<std::string>{"1", "", "1"}));

  // No object carries a time stamp (they would make files differ from run to run).
  for (const char* object : {"/", "collectives", "links"}) {
    H5O_info_t oinfo;
    ASSERT_GE(H5Oget_info_by_name2(file.get(), object, &oinfo, H5O_INFO_TIME, H5P_DEFAULT), 0);
    EXPECT_EQ(oinfo.ctime, 0) << object;
    EXPECT_EQ(oinfo.mtime, 0) << object;
  }
}

std::string file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST_F(Hdf5Writer, SameInputGivesByteIdenticalFiles) {
  write_hdf5(dir_ / "a.h5", info(), sample_tables());
  // Disturb the heap so that uninitialised bytes, if HDF5 wrote any, would differ.
  std::vector<std::string> noise(1000, std::string(100, '\x5a'));
  write_hdf5(dir_ / "b.h5", info(), sample_tables());
  const std::string a = file_bytes(dir_ / "a.h5");
  ASSERT_GT(a.size(), 1000u);
  EXPECT_TRUE(a == file_bytes(dir_ / "b.h5"));
  // Overwriting an existing file replaces it with the same bytes.
  write_hdf5(dir_ / "a.h5", info(), sample_tables());
  EXPECT_TRUE(a == file_bytes(dir_ / "a.h5"));
}

TEST_F(Hdf5Writer, MissingDirectoryIsAnInputErrorAndCreatesNothing) {
  const fs::path path = dir_ / "nope" / "out.h5";
  try {
    write_hdf5(path, info(), sample_tables());
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write " + path.string() + ": directory " +
                                         (dir_ / "nope").string() + " does not exist");
  }
  EXPECT_TRUE(dir_entries().empty());
  EXPECT_THROW(write_hdf5(dir_, info(), sample_tables()), InputError);  // a directory
}

TEST_F(Hdf5Writer, FailedWriteLeavesNoFileAndNoTemporary) {
  const fs::path path = dir_ / "out.h5";
  auto tables = sample_tables();
  // The second table fails after the first is in the file's image.
  tables[1].reals("utilization").push_back(0.5);
  try {
    write_hdf5(path, info(), tables);
    FAIL() << "no error";
  } catch (const SimulationError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("column 'utilization' has 1"), std::string::npos) << message;
  }
  EXPECT_TRUE(dir_entries().empty());

  // A failure never touches an existing file either.
  write_hdf5(path, info(), sample_tables());
  const std::string before = file_bytes(path);
  EXPECT_THROW(write_hdf5(path, info(), tables), SimulationError);
  EXPECT_TRUE(before == file_bytes(path));
  EXPECT_EQ(dir_entries(), std::vector<std::string>{"out.h5"});
}

TEST_F(Hdf5Writer, RejectsNamesHdf5OrReadersWouldMangle) {
  const fs::path path = dir_ / "out.h5";
  auto twice = sample_tables();
  twice.push_back(twice[0]);
  EXPECT_THROW(write_hdf5(path, info(), twice), SimulationError);
  auto slash = sample_tables();
  slash[0].name = "a/b";
  EXPECT_THROW(write_hdf5(path, info(), slash), SimulationError);
  auto unitless = sample_tables();
  unitless[0].columns[1].unit = "";
  EXPECT_THROW(write_hdf5(path, info(), unitless), SimulationError);
  auto nul = sample_tables();
  nul[0].texts("op")[0] = std::string("a\0b", 3);
  EXPECT_THROW(write_hdf5(path, info(), nul), SimulationError);
  EXPECT_THROW(write_hdf5(path, info(), {Table{"empty", "", {}}}), SimulationError);
  EXPECT_TRUE(dir_entries().empty());
}

TEST_F(Hdf5Writer, ReaderGetsBackConfigAndEveryValueOfATable) {
  const fs::path path = dir_ / "out.h5";
  write_hdf5(path, info(), sample_tables());
  const StoredFile stored = read_hdf5(path, "collectives");
  EXPECT_EQ(stored.config_yaml, "network: {}\n");
  ASSERT_TRUE(stored.table.has_value());
  const Table& t = *stored.table;
  EXPECT_EQ(t.texts("op"), (std::vector<std::string>{"all-reduce", "all-gather \xC2\xB5"}));
  EXPECT_EQ(t.ints("bytes"), (std::vector<std::int64_t>{1024, std::int64_t{1} << 40}));
  EXPECT_EQ(t.reals("time_s"), (std::vector<double>{1.5e-6, 0.1}));  // bit for bit
  EXPECT_FALSE(read_hdf5(path, "sweep").table.has_value());
  // Written again from what was read: the same bytes (a resumed sweep rewrites its rows).
  write_hdf5(dir_ / "again.h5", info(), {t, sample_tables()[1]});
  std::ifstream a(path, std::ios::binary), b(dir_ / "again.h5", std::ios::binary);
  EXPECT_TRUE(std::equal(std::istreambuf_iterator<char>(a), {}, std::istreambuf_iterator<char>(b)));
}

TEST_F(Hdf5Writer, ReaderRefusesWhatIsNotAPodsimFile) {
  std::ofstream(dir_ / "junk.h5") << "not hdf5";
  EXPECT_THROW(read_hdf5(dir_ / "junk.h5", "sweep"), InputError);
  EXPECT_THROW(read_hdf5(dir_ / "missing.h5", "sweep"), InputError);
}

/// The InputError message of reading table `name` of `path` ("" if it is read).
std::string read_refusal(const fs::path& path, const std::string& name) {
  try {
    (void)read_hdf5(path, name);
    (void)table_names(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST_F(Hdf5Writer, ReaderChecksTheSchemaVersionAndWhatATableDeclares) {
  FileInfo newer = info();
  newer.schema_version = 2;
  write_hdf5(dir_ / "newer.h5", newer, sample_tables());
  EXPECT_EQ(read_refusal(dir_ / "newer.h5", "collectives"),
            (dir_ / "newer.h5").string() +
                ": schema_version 2 (podsim 0.2.0); this podsim reads version 1: it was written by a newer podsim");
  // A dataset that declares 2^40 rows it never stored (HDF5 allocates nothing until written):
  // reading them would allocate 64 TiB.
  write_hdf5(dir_ / "huge.h5", info(), sample_tables());
  {
    const Hdf5Handle file(H5Fopen((dir_ / "huge.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
    const Hdf5Handle old(H5Dopen2(file.get(), "links", H5P_DEFAULT), H5Dclose);
    const Hdf5Handle type(H5Dget_type(old.get()), H5Tclose);
    const hsize_t rows = hsize_t{1} << 40;
    const Hdf5Handle space(H5Screate_simple(1, &rows, nullptr), H5Sclose);
    const Hdf5Handle dataset(
        H5Dcreate2(file.get(), "huge", type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
    ASSERT_GE(dataset.get(), 0);
    // Not a table: a group, and a soft link to a table (table_names lists neither).
    const Hdf5Handle group(H5Gcreate2(file.get(), "group", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    ASSERT_GE(H5Lcreate_soft("/links", file.get(), "alias", H5P_DEFAULT, H5P_DEFAULT), 0);
  }
  EXPECT_NE(read_refusal(dir_ / "huge.h5", "huge").find("/huge declares 1099511627776 rows but stores 0 bytes"),
            std::string::npos)
      << read_refusal(dir_ / "huge.h5", "huge");
  EXPECT_NE(read_refusal(dir_ / "huge.h5", "alias").find("/alias is a link, not a table podsim wrote"), std::string::npos);
  EXPECT_EQ(table_names(dir_ / "huge.h5"), (std::vector<std::string>{"collectives", "huge", "links"}));
}

TEST(HtmlReport, ATableWithoutTheRowsOrColumnsAFigureReadsIsALocatedInputError) {
  const auto refusal = [](const Table& t) {
    try {
      (void)html_report(ReportInput{"run.h5", "0.2.0", "podsim run", "", {t}});
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("a page");
  };
  Table summary{"summary", "", {}};
  summary.add_real("step_time_s", "s");
  EXPECT_EQ(refusal(summary), "run.h5: /summary has 0 rows; podsim writes at least 1 (was the file edited?)");
  summary.reals("step_time_s").push_back(1.5);
  EXPECT_EQ(refusal(summary).substr(0, 7), "a page");
  summary.add_text("mfu").texts().push_back("high");
  EXPECT_EQ(refusal(summary), "run.h5: /summary column mfu holds text values; podsim writes real values there");
  Table breakdown{"breakdown", "", {}};
  breakdown.add_int("stage", "1").ints().push_back(0);
  EXPECT_NE(refusal(breakdown).find("run.h5: /breakdown has no column compute_forward_s, which podsim writes"),
            std::string::npos)
      << refusal(breakdown);
  Table memory{"memory", "", {}};
  for (const char* c : {"weights_bytes", "gradients_bytes", "optimizer_bytes", "activations_bytes", "temporary_bytes",
                        "total_bytes", "capacity_bytes"}) {
    memory.add_real(c, "B");
  }
  memory.add_int("stage", "1");
  EXPECT_EQ(refusal(memory), "run.h5: /memory has 0 rows; podsim writes at least 1 (was the file edited?)");
}

TEST_F(Hdf5Writer, AClaimRemovesOnlyTheTemporaryAKilledWritersLockRecorded) {
  // A killed podsim leaves its lock (nobody holds it now) and the temporary it recorded. The
  // next claim takes the lock over and removes that temporary, and nothing else: not another
  // output's temporary, not a name the lock does not record.
  const std::string killed = "out.h5.tmp.1.abcdefgh", unrecorded = "out.h5.tmp.2.abcdefgh",
                    other = "other.h5.tmp.4194305.abcdefgh";
  for (const auto& name : {killed, unrecorded, other}) std::ofstream(dir_ / name) << "x";
  std::ofstream(dir_ / "out.h5.lock") << kLockHeader << "\npid 1\ntemporary " << killed << "\n";
  OutputClaim claim(dir_ / "out.h5", {});
  auto names = dir_entries();
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"other.h5.tmp.4194305.abcdefgh", "out.h5.lock", unrecorded}));
  // The lock is this process's now.
  std::ifstream lock(dir_ / "out.h5.lock");
  const std::string held{std::istreambuf_iterator<char>(lock), {}};
  EXPECT_EQ(held, std::string(kLockHeader) + "\npid " + std::to_string(::getpid()) + "\n");
}

TEST_F(Hdf5Writer, ARecordedTemporaryOutsideTheOutputsNamesIsLeftAlone) {
  // A lock file is data anyone could have written: the temporary it names is removed only if
  // it is one of this output's names, and a regular file (never what a link points to).
  std::ofstream(dir_ / "victim.txt") << "precious";
  fs::create_symlink(dir_ / "victim.txt", dir_ / "out.h5.tmp.1.abcdefgh");
  std::ofstream(dir_ / "out.h5.lock") << kLockHeader << "\npid 1\ntemporary victim.txt\n";
  { OutputClaim claim(dir_ / "out.h5", {}); }
  std::ofstream(dir_ / "out.h5.lock") << kLockHeader << "\npid 1\ntemporary out.h5.tmp.1.abcdefgh\n";
  { OutputClaim claim(dir_ / "out.h5", {}); }
  EXPECT_EQ(file_bytes(dir_ / "victim.txt"), "precious");
  EXPECT_TRUE(fs::is_symlink(dir_ / "out.h5.tmp.1.abcdefgh"));
  EXPECT_FALSE(fs::exists(dir_ / "out.h5.lock"));
}

TEST_F(Hdf5Writer, AClaimNeverWritesThroughOrDeletesAFileItDidNotCreate) {
  std::ofstream(dir_ / "victim.txt") << "precious";
  const auto refusal = [&](const char* what) {
    try {
      OutputClaim claim(dir_ / "out.h5", {});
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("claimed, with ") + what;
  };
  // A symbolic link at the lock name, to a file or to nothing.
  fs::create_symlink(dir_ / "victim.txt", dir_ / "out.h5.lock");
  EXPECT_NE(refusal("a link").find("out.h5.lock is a symbolic link"), std::string::npos) << refusal("a link");
  fs::remove(dir_ / "out.h5.lock");
  fs::create_symlink(dir_ / "nowhere", dir_ / "out.h5.lock");
  EXPECT_NE(refusal("a dangling link").find("is a symbolic link"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir_ / "nowhere"));
  fs::remove(dir_ / "out.h5.lock");
  // The user's own file of that name, even one holding nothing but a number.
  std::ofstream(dir_ / "out.h5.lock") << "12345\n";
  EXPECT_NE(refusal("a user's file").find("is not a podsim lock file"), std::string::npos);
  EXPECT_EQ(file_bytes(dir_ / "out.h5.lock"), "12345\n");
  fs::remove(dir_ / "out.h5.lock");
  fs::create_directory(dir_ / "out.h5.lock");
  EXPECT_NE(refusal("a directory").find("is not a regular file"), std::string::npos);
  fs::remove(dir_ / "out.h5.lock");
  EXPECT_EQ(file_bytes(dir_ / "victim.txt"), "precious");

  // Links planted at every temporary name a pid-only scheme would use next: the write goes to
  // a name of its own, and the links stay links.
  for (int pid = ::getpid(); pid < ::getpid() + 4; ++pid) {
    fs::create_symlink(dir_ / "victim.txt", dir_ / ("out.h5.tmp." + std::to_string(pid)));
  }
  write_hdf5(dir_ / "out.h5", info(), sample_tables());
  EXPECT_EQ(file_bytes(dir_ / "victim.txt"), "precious");
  EXPECT_FALSE(fs::is_symlink(dir_ / "out.h5"));
  EXPECT_EQ(file_bytes(dir_ / "out.h5").substr(1, 3), "HDF");
}

TEST_F(Hdf5Writer, AnOutputThatBecomesALinkWhileClaimedIsNotReplaced) {
  std::ofstream(dir_ / "victim.txt") << "precious";
  OutputClaim claim(dir_ / "out.h5", {});
  fs::create_symlink(dir_ / "victim.txt", dir_ / "out.h5");
  try {
    claim.write(hdf5_bytes(info(), sample_tables()));
    FAIL() << "written through a planted link";
  } catch (const SimulationError& e) {
    EXPECT_NE(std::string(e.what()).find("it became a symbolic link while podsim ran"), std::string::npos) << e.what();
  }
  EXPECT_EQ(file_bytes(dir_ / "victim.txt"), "precious");
  EXPECT_TRUE(fs::is_symlink(dir_ / "out.h5"));
  auto names = dir_entries();
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"out.h5", "out.h5.lock", "victim.txt"}));  // no temporary left
}

/// The InputError message of claiming `path` with `inputs` ("" if it is claimed).
std::string claim_refusal(const fs::path& path, std::vector<fs::path> inputs = {}) {
  try {
    OutputClaim claim(path, inputs);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST_F(Hdf5Writer, ClaimRefusesInputsDevicesDirectoriesAndMissingFolders) {
  const fs::path input = dir_ / "s.yaml";
  std::ofstream(input) << "x: 1\n";
  EXPECT_NE(claim_refusal(input, {input}).find("it is the input file"), std::string::npos);
  // The same file under another name: a symbolic link or a hard link.
  fs::create_symlink(input, dir_ / "soft.h5");
  fs::create_hard_link(input, dir_ / "hard.h5");
  EXPECT_NE(claim_refusal(dir_ / "soft.h5", {input}).find("it is the input file"), std::string::npos);
  EXPECT_NE(claim_refusal(dir_ / "hard.h5", {input}).find("it is the input file"), std::string::npos);
  EXPECT_NE(claim_refusal("/dev/null").find("it is not a regular file"), std::string::npos);
  EXPECT_NE(claim_refusal(dir_).find("it is a directory"), std::string::npos);
  EXPECT_NE(claim_refusal(dir_ / "no" / "out.h5").find("does not exist"), std::string::npos);
  fs::create_symlink(dir_ / "nowhere", dir_ / "dangling.h5");
  EXPECT_NE(claim_refusal(dir_ / "dangling.h5").find("symbolic link to a file that does not exist"), std::string::npos);
  fs::create_symlink(dir_ / "loop.h5", dir_ / "loop.h5");
  EXPECT_NE(claim_refusal(dir_ / "loop.h5").find("a symbolic link that loops"), std::string::npos);
  EXPECT_NE(claim_refusal(dir_ / (std::string(300, 'x') + ".h5")).find("too long"), std::string::npos);
  EXPECT_NE(claim_refusal("").find("empty file name"), std::string::npos);
  std::ofstream(input) << "unchanged\n";
  EXPECT_EQ(claim_refusal(dir_ / "new.h5", {input}), "");
}

TEST_F(Hdf5Writer, ClaimIsExclusiveWhileHeldAndReleasedAfter) {
  const fs::path out = dir_ / "out.h5";
  {
    OutputClaim first(out, {});
    EXPECT_TRUE(fs::exists(dir_ / "out.h5.lock"));
    const std::string second = claim_refusal(out);
    // (Another process holding it is named by its process id: corpus/output_safety.py.)
    EXPECT_NE(second.find("this command writes it already, as another of its outputs"), std::string::npos) << second;
  }
  EXPECT_FALSE(fs::exists(dir_ / "out.h5.lock"));
  EXPECT_EQ(claim_refusal(out), "");
  // Writing through a symbolic link replaces its target, not the link.
  std::ofstream(dir_ / "target.h5") << "old";
  fs::create_symlink(dir_ / "target.h5", dir_ / "link.h5");
  OutputClaim via_link(dir_ / "link.h5", {});
  EXPECT_EQ(via_link.path(), fs::canonical(dir_ / "target.h5"));
}

TEST(Table, BuildersCheckNamesTypesAndLengths) {
  Table t{"t", "", {}};
  t.add_real("x", "s").reals().push_back(1.0);
  t.add_int("n", "1").ints().push_back(2);
  EXPECT_EQ(t.rows(), 1u);
  EXPECT_THROW(t.add_text("x"), SimulationError);
  EXPECT_THROW(t.reals("n"), SimulationError);
  EXPECT_THROW(t.column("missing"), SimulationError);
  t.ints("n").push_back(3);
  EXPECT_THROW(t.rows(), SimulationError);
  EXPECT_EQ(t.column("n").type_name(), "int");
}

TEST(Json, EscapesStringsAndKeepsUtf8) {
  JsonWriter j;
  j.value(
      std::string_view("q\" b\\ n\n t\t r\r \b\f c\x01 d\x7f \xC2\xB5s \xE2\x86\x92 bad\xFF end"));
  EXPECT_EQ(j.str(),
            "\"q\\\" b\\\\ n\\n t\\t r\\r \\b\\f c\\u0001 d\x7f \xC2\xB5s \xE2\x86\x92 bad\\ufffd "
            "end\"");
  EXPECT_EQ(json_quote(std::string("\0\x1f", 2)), "\"\\u0000\\u001f\"");
  EXPECT_EQ(json_quote("\xE0\x80\x80"), "\"\\ufffd\\ufffd\\ufffd\"");  // overlong NUL
}

TEST(Json, NestsObjectsAndArrays) {
  JsonWriter j;
  j.begin_object();
  j.member("name", "ring");
  j.key("results");
  j.begin_array();
  j.begin_object();
  j.member("bytes", std::uint64_t{18446744073709551615u});
  j.member("ok", true);
  j.key("none");
  j.null();
  j.end_object();
  j.begin_array();
  j.end_array();
  j.value(-3);
  j.end_array();
  j.key("empty");
  j.begin_object();
  j.end_object();
  j.end_object();
  EXPECT_EQ(j.str(),
            R"({"name":"ring","results":[{"bytes":18446744073709551615,"ok":true,"none":null},)"
            R"([],-3],"empty":{}})");

  JsonWriter pretty(2);
  pretty.begin_object();
  pretty.member("a", 1);
  pretty.key("b");
  pretty.begin_array();
  pretty.value(2.5);
  pretty.end_array();
  pretty.end_object();
  EXPECT_EQ(pretty.str(), "{\n  \"a\": 1,\n  \"b\": [\n    2.5\n  ]\n}");
}

TEST(Json, DoublesRoundTripInShortestForm) {
  JsonWriter j;
  j.begin_array();
  for (double v : {0.1, 1e-300, 123456789.125, 2.0, -0.0, 5e-324, 1e21}) j.value(v);
  j.value(std::numeric_limits<double>::quiet_NaN());
  j.value(-std::numeric_limits<double>::infinity());
  j.end_array();
  EXPECT_EQ(j.str(), "[0.1,1e-300,123456789.125,2.0,-0.0,5e-324,1e+21,null,null]");

  // Any finite double reads back exactly (strtod of the printed text).
  std::mt19937_64 rng(42);
  for (int i = 0; i < 10000; ++i) {
    const std::uint64_t bits = rng();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    if (!std::isfinite(v)) continue;
    JsonWriter one;
    one.value(v);
    ASSERT_EQ(std::strtod(one.str().c_str(), nullptr), v) << one.str();
  }
}

/// Writes a random document with `w` and builds the same one as `expected`.
void random_value(output::JsonWriter& w, nlohmann::json& expected, std::mt19937_64& rng, int depth) {
  const auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
  const int kind = depth > 3 ? 2 + pick(4) : pick(6);
  if (kind == 0 || kind == 1) {
    const int n = pick(5);
    if (kind == 0) {
      w.begin_object();
      expected = nlohmann::json::object();
      for (int i = 0; i < n; ++i) {
        const std::string key = "k" + std::to_string(i) + (pick(2) != 0 ? "\"\u00e9\t" : "");
        w.key(key);
        random_value(w, expected[key], rng, depth + 1);
      }
      w.end_object();
    } else {
      w.begin_array();
      expected = nlohmann::json::array();
      for (int i = 0; i < n; ++i) random_value(w, expected.emplace_back(), rng, depth + 1);
      w.end_array();
    }
  } else if (kind == 2) {
    std::uint64_t bits = rng();
    double v = 0;
    std::memcpy(&v, &bits, sizeof v);
    if (!std::isfinite(v)) v = static_cast<double>(static_cast<std::int64_t>(bits)) * 1e-300;
    w.value(v);
    expected = v;
  } else if (kind == 3) {
    const auto v = static_cast<std::int64_t>(rng());
    w.value(v);
    expected = v;
  } else if (kind == 4) {
    std::string text;  // valid UTF-8 with control characters, quotes and backslashes
    for (int i = pick(12); i-- > 0;) {
      static constexpr std::array<const char*, 8> kPieces{"a", "\"", "\\", "\n", "\x01", "\u00e9", "\u20ac", "\U0001F600"};
      text += kPieces[static_cast<std::size_t>(pick(8))];
    }
    w.value(text);
    expected = text;
  } else {
    const bool b = pick(2) != 0;
    w.value(b);
    expected = b;
  }
}

TEST(Json, AnIndependentParserReadsBackWhatWasWritten) {
  // nlohmann-json parses every document exactly as built: structure, strings, 64-bit
  // integers, and every double bit for bit (shortest round-trip form).
  std::mt19937_64 rng(20261202);
  for (int doc = 0; doc < 500; ++doc) {
    output::JsonWriter w(doc % 2 == 0 ? 0 : 2);
    nlohmann::json expected;
    random_value(w, expected, rng, 0);
    const nlohmann::json parsed = nlohmann::json::parse(w.str());
    ASSERT_EQ(parsed, expected) << w.str();
  }
  // Invalid UTF-8 still gives valid JSON (the byte becomes U+FFFD).
  output::JsonWriter w;
  w.value(std::string("a\xff\xc0" "b"));
  EXPECT_EQ(nlohmann::json::parse(w.str()).get<std::string>(), "a\uFFFD\uFFFDb");
}

TEST(Json, MisuseThrowsInsteadOfWritingInvalidJson) {
  {
    JsonWriter j;
    EXPECT_THROW(j.key("k"), SimulationError);  // not in an object
    EXPECT_THROW(j.str(), SimulationError);     // nothing written
    j.begin_array();
    EXPECT_THROW(j.key("k"), SimulationError);
    EXPECT_THROW(j.end_object(), SimulationError);
    EXPECT_THROW(j.str(), SimulationError);  // unclosed
    j.end_array();
    EXPECT_THROW(j.end_array(), SimulationError);
    EXPECT_THROW(j.value(1), SimulationError);  // second top-level value
    EXPECT_EQ(j.str(), "[]");
  }
  JsonWriter j;
  j.begin_object();
  EXPECT_THROW(j.value(1), SimulationError);  // value without key
  j.key("a");
  EXPECT_THROW(j.key("b"), SimulationError);
  EXPECT_THROW(j.end_object(), SimulationError);  // key without value
  j.value(1);
  j.end_object();
  EXPECT_EQ(j.str(), R"({"a":1})");
}

TEST(TextTable, RightAlignsNumbersLeftAlignsTextAndSizesByCodePoints) {
  TextTable t({"op", "bytes", "time"});
  t.set_align(0, Align::kLeft);
  t.add_row({"all-reduce", "1024", "1.5 \xC2\xB5s"});
  t.add_row({"a2a", "1073741824", "12 ms"});
  // Widths: op 10, bytes 10, time 6 ("1.5 µs" is 6 code points in 7 bytes).
  EXPECT_EQ(t.render(),
            "op               bytes    time\n"
            "----------  ----------  ------\n"
            "all-reduce        1024  1.5 \xC2\xB5s\n"
            "a2a         1073741824   12 ms\n");
  EXPECT_THROW(t.add_row({"x"}), SimulationError);
  EXPECT_THROW(t.set_align(3, Align::kLeft), SimulationError);
  EXPECT_EQ(t.rows(), 2u);
}

}  // namespace
}  // namespace podsim::output

namespace podsim::output {
namespace {

TEST(PredictionBand, AChipsFamilyWhereItHasPublishedRunsElseEverySource) {
  const auto band = [](const char* name) {
    hardware::ChipSpec chip;
    chip.name = name;
    return prediction_band(chip);
  };
  // Both A100 files are the A100 family; H200's only rows are collectives, TPU v4's none.
  for (const char* name : {"a100-40gb", "a100-80gb"}) {
    EXPECT_NE(band(name).basis.find(" A100 rows of published.csv"), std::string::npos) << name;
  }
  EXPECT_NE(band("h100").basis.find(" H100 rows"), std::string::npos);
  EXPECT_NE(band("tpu-v5e").basis.find(" TPU v5e rows"), std::string::npos);
  EXPECT_NE(band("tpu-v5p").basis.find(" TPU v5p rows"), std::string::npos);
  for (const char* name : {"h200", "tpu-v4", "tpu-v6e", "v100"}) {
    EXPECT_EQ(band(name).basis.rfind(std::string("no published training runs of ") + name + ";", 0), 0U) << name;
    EXPECT_EQ(band(name).mape, band("tpu-v4").mape);
  }
  // Families podsim was not fitted on in their source's absence err more: v5e and v5p (MaxText
  // only) more than every source together.
  EXPECT_GT(band("tpu-v5e").mape, band("tpu-v4").mape);
  for (const char* name : {"a100-80gb", "h100", "tpu-v5e", "tpu-v5p", "tpu-v4"}) {
    EXPECT_GT(band(name).spread, 0.0) << name;
    EXPECT_LE(band(name).spread, band(name).mape) << name;
  }
  EXPECT_EQ(band_text(band("a100-80gb")), "± 5.7 % (leave-one-source-out over 45 A100 rows of published.csv)");
}

}  // namespace
}  // namespace podsim::output
