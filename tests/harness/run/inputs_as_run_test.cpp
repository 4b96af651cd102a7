// What a case report names by SHA-256 is what the case ran. The case file is hashed from the bytes
// load_case parsed (it was read again at report time, so an edit after the parse put the new file's
// hash on the old case). The image, the profile and the archives are stamped before they are first
// read and checked when the case is over (the original reads them at other times than the harness
// hashes them): one written, replaced or removed during the case makes it an error naming the file.
// Each test seeds the change; the first control shows the check quiet when nothing changed.
#include "run/case_observer.hpp"

#include "refcheck/harness/case.hpp"
#include "refcheck/harness/hash.hpp"
#include "refcheck/harness/input_watch.hpp"
#include "refcheck/harness/run.hpp"

#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <utility>

namespace refcheck::harness {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
    const fs::path dir =
        fs::temp_directory_path() / ("refcheck-inputs-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

void append(const fs::path& file, const std::string& bytes) {
    std::ofstream(file, std::ios::binary | std::ios::app) << bytes;
}

// Runs `act` once, when the first input begins: after the boot, so both sides have read the archives.
class AtFirstInput : public CaseObserver {
public:
    explicit AtFirstInput(std::function<void()> act) : act_(std::move(act)) {}
    void booted(Original&, Comparator&) override {}
    bool input(std::string_view, bool) override {
        if (act_) std::exchange(act_, nullptr)();
        return true;
    }
    void finished(Original&, const ojson&) override {}

private:
    std::function<void()> act_;
};

CaseResult run_with(const Case& c, const Environment& env, std::function<void()> act) {
    AtFirstInput observer(std::move(act));
    set_case_observer(&observer);
    CaseResult r = run_case(c, env);
    set_case_observer(nullptr);
    return r;
}

// The small archives, the stand-in and its profile copied where a test may change them.
Environment copied(const fs::path& dir) {
    fs::copy(REFCHECK_SMALL_DATA, dir / "data", fs::copy_options::recursive);
    fs::copy_file(REFCHECK_STANDIN_EXE, dir / "standin.exe");
    fs::copy_file(REFCHECK_STANDIN_PROFILE, dir / "standin.profile.json");
    Environment env;
    env.image = dir / "standin.exe";
    env.profile = dir / "standin.profile.json";
    env.data = dir / "data";
    return env;
}

std::string error_of(const CaseResult& r) { return r.report.value("error", std::string()); }

TEST(InputsAsRun, TheCaseFileHashIsOfTheBytesParsedNotOfTheFileLater) {
    const fs::path dir = scratch("case");
    const fs::path file = dir / "palette.json";
    fs::copy_file(fs::path(REFCHECK_SOURCE_DIR) / "cases" / "palette.json", file);
    const std::string parsed = sha256_file(file);
    const Case c = load_case(file);
    EXPECT_EQ(c.sha256, parsed);
    append(file, "\n"); // edited after the parse: the case that runs is still the parsed one
    ASSERT_NE(sha256_file(file), parsed);
    Environment env;
    env.image = REFCHECK_STANDIN_EXE;
    env.profile = REFCHECK_STANDIN_PROFILE;
    env.data = REFCHECK_SMALL_DATA;
    const CaseResult r = run_case(c, env);
    EXPECT_EQ(r.status, Status::Equivalent) << error_of(r);
    EXPECT_EQ(r.report.at("case_sha256"), parsed);
    fs::remove_all(dir);
}

TEST(InputsAsRun, AnArchiveWrittenDuringTheCaseMakesItAnErrorNamingTheArchive) {
    const fs::path dir = scratch("archive");
    const Environment env = copied(dir);
    const Case c = load_case(fs::path(REFCHECK_SOURCE_DIR) / "cases" / "palette.json");
    // The control: nothing changes, the check is quiet.
    const CaseResult clean = run_with(c, env, [] {});
    EXPECT_EQ(clean.status, Status::Equivalent) << error_of(clean);

    const CaseResult r = run_with(c, env, [&] { append(env.data / "3DDATA" / "3DOBJS.BIN", "x"); });
    EXPECT_EQ(r.status, Status::Error);
    const std::string error = error_of(r);
    EXPECT_NE(error.find("an input file changed while the case ran"), std::string::npos) << error;
    EXPECT_NE(error.find("3DDATA/3DOBJS.BIN (" + (env.data / "3DDATA" / "3DOBJS.BIN").string() +
                         ") was written or its status changed while the case ran"),
              std::string::npos)
        << error;
    EXPECT_EQ(error.find("the image"), std::string::npos) << error;
    fs::remove_all(dir);
}

TEST(InputsAsRun, AnImageReplacedOrAProfileRemovedDuringTheCaseIsNamed) {
    const fs::path dir = scratch("image");
    const Environment env = copied(dir);
    const Case c = load_case(fs::path(REFCHECK_SOURCE_DIR) / "cases" / "palette.json");
    const CaseResult replaced = run_with(c, env, [&] {
        fs::copy_file(env.image, dir / "other.exe");
        fs::rename(dir / "other.exe", env.image); // the same bytes in another file
    });
    EXPECT_EQ(replaced.status, Status::Error);
    EXPECT_NE(error_of(replaced).find("the image (" + env.image.string() +
                                      ") was replaced by another file while the case ran"),
              std::string::npos)
        << error_of(replaced);

    const fs::path kept = dir / "kept.profile.json";
    const CaseResult removed = run_with(c, env, [&] { fs::rename(env.profile, kept); });
    EXPECT_EQ(removed.status, Status::Error);
    EXPECT_NE(
        error_of(removed).find("the profile (" + env.profile.string() + ") was removed while the case ran"),
        std::string::npos)
        << error_of(removed);
    fs::remove_all(dir);
}

// The same bytes written back over a file: its modification time moves (the file's was set in the
// past first, so the two stamps differ whatever the clock's grain), and so does the stamp.
TEST(InputsAsRun, AStampSeesTheSameBytesWrittenBack) {
    const fs::path dir = scratch("stamp");
    const fs::path file = dir / "f.bin";
    std::ofstream(file, std::ios::binary) << "abc";
    const timespec past[2] = {{1000, 0}, {1000, 0}};
    ASSERT_EQ(::utimensat(AT_FDCWD, file.c_str(), past, 0), 0);
    InputWatch watch;
    watch.watch(file, "f");
    watch.watch(dir / "absent.bin", "absent");
    EXPECT_EQ(watch.changed(), "");
    std::ofstream(file, std::ios::binary | std::ios::trunc) << "abc";
    EXPECT_EQ(watch.changed(),
              "f (" + file.string() + ") was written or its status changed while the case ran");
    std::ofstream(dir / "absent.bin") << "";
    EXPECT_NE(watch.changed().find("absent (" + (dir / "absent.bin").string() + ") appeared"),
              std::string::npos);
    fs::remove_all(dir);
}

} // namespace
} // namespace refcheck::harness
