// What a case report names by SHA-256 is what the case ran. The case file is hashed from the bytes
// load_case parsed (it was read again at report time, so an edit after the parse put the new file's
// hash on the old case). The image, the profile and the archives are stamped before they are first
// read and checked when the case is over (the original reads them at other times than the harness
// hashes them): one written, replaced or removed during the case makes it an error naming the file.
// The files the original read are named by the SHA-256 of the file it opened, checked against the
// stamp its descriptor had, and an archive it read must be the bytes the reimplementation was
// given under that name (Windows' case-blind names included).
// Each test seeds the change; the first control shows the check quiet when nothing changed.
#include "run/case_observer.hpp"

#include "refcheck/harness/case.hpp"
#include "refcheck/harness/hash.hpp"
#include "refcheck/harness/input_watch.hpp"
#include "refcheck/harness/run.hpp"

#include "standin_env.hpp"

#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <set>
#include <string>
#include <utility>
#include <vector>

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

// Runs `act` when the original has booted (the harness has read the archives, the guest not yet).
class AtBoot : public CaseObserver {
public:
    explicit AtBoot(std::function<void()> act) : act_(std::move(act)) {}
    void booted(Original&, Comparator&) override { act_(); }
    bool input(std::string_view, bool) override { return true; }
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

CaseResult run_with_observer(const Case& c, const Environment& env, CaseObserver&& observer) {
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
    const CaseResult r = run_case(c, test::small_standin());
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

// Each file the original read is named in the report by the SHA-256 of the file it opened, and the
// archives it read are the bytes the reimplementation was given (the report's inputs.archives).
TEST(InputsAsRun, TheFilesTheOriginalReadAreNamedByTheSHA256OfWhatItOpened) {
    const fs::path dir = scratch("reads");
    const Environment env = copied(dir);
    const Case c = load_case(fs::path(REFCHECK_SOURCE_DIR) / "cases" / "palette.json");
    const CaseResult r = run_with(c, env, [] {});
    ASSERT_EQ(r.status, Status::Equivalent) << error_of(r);
    const ojson archives = r.report.at("inputs").at("archives");
    const ojson files = r.report.at("files");
    std::set<std::string> matched;
    for (const ojson& f : files) {
        ASSERT_EQ(f.at("mode"), "read") << f.dump();
        ASSERT_TRUE(f.contains("sha256")) << f.dump();
        const std::string resolved = f.at("resolved");
        EXPECT_EQ(f.at("sha256"), sha256_file(env.data / resolved)) << resolved;
        ASSERT_TRUE(archives.contains(resolved)) << resolved;
        EXPECT_EQ(f.at("sha256"), archives.at(resolved)) << resolved;
        matched.insert(resolved);
    }
    EXPECT_EQ(matched, (std::set<std::string>{"3DDATA/3DOBJS.BIN", "3DDATA/OBJTEXT.BIN", "3DPAL.RGB"}));
    fs::remove_all(dir);
}

// The palette changed after the harness read it and before the original did (both valid, one
// byte apart): the two sides did not compare the same bytes, and the error names both hashes.
TEST(InputsAsRun, AnArchiveTheOriginalReadOtherwiseThanTheReimplementationIsAnErrorNamingBothHashes) {
    const fs::path dir = scratch("other-bytes");
    const Environment env = copied(dir);
    const Case c = load_case(fs::path(REFCHECK_SOURCE_DIR) / "cases" / "palette.json");
    const fs::path palette = env.data / "3DPAL.RGB";
    const std::string given = sha256_file(palette);
    std::string read;
    const CaseResult r = run_with_observer(c, env, AtBoot([&] {
                                               std::string bytes;
                                               {
                                                   std::ifstream in(palette, std::ios::binary);
                                                   bytes.assign(std::istreambuf_iterator<char>(in), {});
                                               }
                                               bytes[0] = static_cast<char>(bytes[0] ^ 1);
                                               std::ofstream(palette, std::ios::binary | std::ios::trunc)
                                                   << bytes;
                                               read = sha256_file(palette);
                                           }));
    ASSERT_NE(read, given);
    EXPECT_EQ(r.status, Status::Error);
    const std::string error = error_of(r);
    EXPECT_NE(error.find("the original read 3DPAL.RGB (\"3DPAL.RGB\", opened by "), std::string::npos)
        << error;
    EXPECT_NE(error.find("SHA-256 " + read + ", but the reimplementation was given 3DPAL.RGB (" +
                         palette.string() + "), SHA-256 " + given),
              std::string::npos)
        << error;
    fs::remove_all(dir);
}

// Windows names ignore ASCII case, the host's do not: a guest that asks for "pal.rgb" where the data
// root holds both PAL.RGB (given to the reimplementation) and pal.rgb reads another file under the
// archive's name. And a file written after the guest opened it cannot be named by SHA-256.
TEST(InputsAsRun, AGuestReadUnderAnArchivesNameInAnotherCaseMustBeTheSameBytes) {
    const fs::path dir = scratch("case-names");
    std::ofstream(dir / "PAL.RGB", std::ios::binary) << "given";
    std::ofstream(dir / "pal.rgb", std::ios::binary) << "other";
    std::ofstream(dir / "EXTRA.TXT", std::ios::binary) << "extra";
    InputWatch watch;
    watch.watch(dir / "PAL.RGB", "PAL.RGB");
    watch.given(dir / "PAL.RGB", sha256_file(dir / "PAL.RGB"));
    const auto opened = [&](const std::string& name) {
        emu::FileAccess a;
        a.guest_path = name;
        a.resolved = name;
        a.mode = "read";
        a.routine = "load_palette_";
        a.host = dir / name;
        a.opened = emu::stamp_path(a.host);
        return a;
    };
    // The control: the same name and another file, both named by their own hashes, no problem.
    const GuestReads same = watch.guest_reads({opened("PAL.RGB"), opened("EXTRA.TXT")});
    EXPECT_EQ(same.problems, "");
    EXPECT_EQ(same.sha256,
              (std::vector<std::string>{sha256_file(dir / "PAL.RGB"), sha256_file(dir / "EXTRA.TXT")}));

    const GuestReads other = watch.guest_reads({opened("pal.rgb")});
    EXPECT_EQ(other.sha256, std::vector<std::string>{sha256_file(dir / "pal.rgb")});
    EXPECT_NE(
        other.problems.find("the original read pal.rgb (\"pal.rgb\", opened by load_palette_), SHA-256 " +
                            sha256_file(dir / "pal.rgb") + ", but the reimplementation was given PAL.RGB"),
        std::string::npos)
        << other.problems;

    emu::FileAccess late = opened("EXTRA.TXT");
    const timespec past[2] = {{1000, 0}, {1000, 0}};
    ASSERT_EQ(::utimensat(AT_FDCWD, late.host.c_str(), past, 0), 0); // the stamp moves whatever the clock
    const GuestReads written = watch.guest_reads({late});
    EXPECT_EQ(written.sha256, std::vector<std::string>{""});
    EXPECT_NE(
        written.problems.find("the original's file EXTRA.TXT (\"EXTRA.TXT\", opened by load_palette_) was "
                              "written, replaced or removed after the original opened it"),
        std::string::npos)
        << written.problems;
    fs::remove_all(dir);
}

} // namespace
} // namespace refcheck::harness
