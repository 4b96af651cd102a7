// File access confined to the data root: case-insensitive resolution, refused paths, records.
#include "emu_test_support.hpp"

#include <sys/stat.h>

#include <fstream>
#include <string>

namespace refcheck::emu {
namespace {

using test::describe;
using test::guest_buffer;
using test::guest_string;
using Status = Resolution::Status;

class DataRootTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir.put("3DDATA/3DOBJS.BIN", "objects");
        dir.put("3DDATA/ObjText.bin", "textures");
        dir.put("3dpal.rgb", "palette");
    }
    test::ScratchDir dir{"root"};
};

TEST_F(DataRootTest, ResolvesWindowsPathsCaseInsensitively) {
    DataRoot root(dir.path());
    for (const char* p :
         {"3ddata\\3dobjs.bin", "C:\\3DDATA\\3DOBJS.BIN", "c:/3DData/3DObjs.Bin", "\\3DDATA\\.\\3DOBJS.BIN",
          "3DDATA\\..\\3DDATA\\3dobjs.bin", "C:3ddata\\3dobjs.bin"}) {
        Resolution r = root.resolve(p);
        EXPECT_EQ(r.status, Status::found) << p << ": " << r.reason;
        EXPECT_EQ(r.relative, "3DDATA/3DOBJS.BIN") << p;
    }
    EXPECT_EQ(root.resolve("3ddata\\OBJTEXT.BIN").relative, "3DDATA/ObjText.bin");
    EXPECT_EQ(root.resolve("3DPAL.RGB").relative, "3dpal.rgb");
}

TEST_F(DataRootTest, RefusesEscapesWithAccessDenied) {
    DataRoot root(dir.path());
    for (const char* p : {"C:\\..\\..\\etc\\passwd", "..\\secret", "3DDATA\\..\\..\\x",
                          "D:\\3DDATA\\3DOBJS.BIN", "\\\\server\\share\\file", "\\\\.\\PhysicalDrive0", "CON",
                          "3DDATA\\NUL.txt", "3DDATA\\3DOBJS.BIN:stream"}) {
        Resolution r = root.resolve(p);
        EXPECT_EQ(r.status, Status::refused) << p;
        EXPECT_EQ(r.error, win32_error::access_denied) << p;
    }
}

TEST_F(DataRootTest, AMountedRootRefusesAbsolutePathsOutsideIt) {
    DataRoot root(dir.path(), "C:\\GAMES\\APACHE");
    EXPECT_EQ(root.resolve("C:\\games\\apache\\3ddata\\3dobjs.bin").status, Status::found);
    EXPECT_EQ(root.resolve("3ddata\\3dobjs.bin").status, Status::found); // the current folder is the mount
    EXPECT_EQ(root.resolve("C:\\etc\\passwd").status, Status::refused);
    EXPECT_EQ(root.resolve("/etc/passwd").status, Status::refused);
    EXPECT_EQ(root.resolve("..\\x").status, Status::refused);
}

TEST_F(DataRootTest, MissingFilesAreNotFoundNotRefused) {
    DataRoot root(dir.path());
    EXPECT_EQ(root.resolve("3DDATA\\NOPE.BIN").error, win32_error::file_not_found);
    EXPECT_EQ(root.resolve("NODIR\\NOPE.BIN").error, win32_error::path_not_found);
    // Inside the drive root: an absolute Unix-looking path lands inside the root, never outside.
    EXPECT_EQ(root.resolve("/etc/passwd").status, Status::missing);
    Resolution create = root.resolve("3ddata\\New.bin", true);
    EXPECT_EQ(create.status, Status::found);
    EXPECT_EQ(create.relative, "3DDATA/New.bin");
}

TEST_F(DataRootTest, RefusesSymbolicLinksLeavingTheRoot) {
    test::ScratchDir outside("outside");
    outside.put("secret.txt", "secret");
    std::filesystem::create_directory_symlink(outside.path(), dir.path() / "escape");
    std::filesystem::create_symlink(dir.path() / "3dpal.rgb", dir.path() / "inside.lnk");
    DataRoot root(dir.path());
    EXPECT_EQ(root.resolve("escape\\secret.txt").status, Status::refused);
    EXPECT_EQ(root.resolve("inside.lnk").status, Status::found);
    // A dangling link "resolves inside" by its name, yet a create through it writes where it points.
    std::filesystem::create_symlink(outside.path() / "created.txt", dir.path() / "out.txt");
    EXPECT_EQ(root.resolve("out.txt", true).status, Status::refused);
    EXPECT_EQ(root.resolve("out.txt").status, Status::refused);
    EXPECT_FALSE(std::filesystem::exists(outside.path() / "created.txt"));
}

class GuestFiles : public ::testing::Test {
protected:
    void SetUp() override {
        dir.put("3DDATA/3DOBJS.BIN", "0123456789");
        dir.put("3DDATA/OBJTEXT.BIN", "abc");
        dir.put("3DPAL.RGB", "rgb");
        m.emplace(MachineOptions{dir.path(), "C:\\", true});
        m->load(test::test_image());
    }
    int read_file(const std::string& path, std::string* content = nullptr) {
        Address buf = guest_buffer(*m, 64);
        CallResult r = m->call("read_file", Convention::cdecl, {guest_string(*m, path), buf, 64});
        EXPECT_TRUE(r.ok()) << describe(r);
        int n = static_cast<int>(r.eax);
        if (content && n > 0) *content = m->read_cstring(buf, static_cast<size_t>(n));
        return n;
    }
    int read_into(const std::string& path, Address buf) {
        CallResult r = m->call("read_file", Convention::cdecl, {guest_string(*m, path), buf, 4});
        EXPECT_TRUE(r.ok()) << describe(r);
        return static_cast<int>(r.eax);
    }
    test::ScratchDir dir{"guest"};
    std::optional<Machine> m;
};

TEST_F(GuestFiles, ReadsThroughTheRootCaseInsensitively) {
    std::string content;
    EXPECT_EQ(read_file("c:\\3ddata\\3DObjs.bin", &content), 10);
    EXPECT_EQ(content, "0123456789");
    const auto& access = m->data_root()->accesses().back();
    EXPECT_EQ(access.guest_path, "c:\\3ddata\\3DObjs.bin");
    EXPECT_EQ(access.resolved, "3DDATA/3DOBJS.BIN");
    EXPECT_EQ(access.mode, "read");
    EXPECT_EQ(access.bytes_read, 10u);
    EXPECT_EQ(access.routine, "read_file");
    EXPECT_FALSE(access.refused);
    // The host file the guest opened and its descriptor's stamp then (what a report's SHA-256 of
    // the file is checked against).
    const std::filesystem::path host = std::filesystem::canonical(dir.path()) / "3DDATA" / "3DOBJS.BIN";
    EXPECT_EQ(access.host, host);
    EXPECT_TRUE(access.opened.exists);
    EXPECT_EQ(access.opened.size, 10u);
    EXPECT_EQ(access.opened, stamp_path(host));
}

TEST_F(GuestFiles, RefusedPathsFailWithAccessDeniedAndAreLogged) {
    for (const char* p : {"C:\\..\\..\\etc\\passwd", "..\\..\\..\\etc\\passwd", "D:\\etc\\passwd"}) {
        EXPECT_EQ(read_file(p), -5) << p; // -ERROR_ACCESS_DENIED
        const auto& access = m->data_root()->accesses().back();
        EXPECT_TRUE(access.refused) << p;
        EXPECT_EQ(access.guest_path, p);
        EXPECT_FALSE(access.opened.exists) << p; // nothing was opened
        EXPECT_TRUE(access.host.empty()) << p;
        EXPECT_NE(m->log().lines().back().find("refused"), std::string::npos);
    }
    EXPECT_EQ(read_file("3DDATA\\MISSING.BIN"), -2); // -ERROR_FILE_NOT_FOUND
    EXPECT_FALSE(m->data_root()->accesses().back().refused);
}

TEST_F(GuestFiles, SizeSeekAndLastByte) {
    CallResult r = m->call("size_and_last_byte", Convention::cdecl, {guest_string(*m, "3ddata\\3dobjs.bin")});
    ASSERT_TRUE(r.ok()) << describe(r);
    EXPECT_EQ(r.eax, 10u * 256 + '9');
}

TEST_F(GuestFiles, WritesInsideTheRootAreRecorded) {
    std::string data = "written";
    CallResult r = m->call("write_file", Convention::cdecl,
                           {guest_string(*m, "3ddata\\out.bin"), guest_string(*m, data), 7});
    ASSERT_TRUE(r.ok()) << describe(r);
    EXPECT_EQ(r.eax, 7u);
    std::ifstream in(dir.path() / "3DDATA" / "out.bin");
    std::string back;
    in >> back;
    EXPECT_EQ(back, "written");
    EXPECT_EQ(m->data_root()->accesses().back().bytes_written, 7u);
    EXPECT_EQ(m->data_root()->accesses().back().mode, "write");
}

TEST_F(GuestFiles, ListsFoldersWithFindFirstFile) {
    Address first = guest_buffer(*m, 260);
    CallResult r = m->call("count_files", Convention::cdecl, {guest_string(*m, "3ddata\\*.BIN"), first});
    ASSERT_TRUE(r.ok()) << describe(r);
    EXPECT_EQ(r.eax, 2u);
    EXPECT_EQ(m->read_cstring(first), "3DOBJS.BIN"); // sorted, deterministic
    EXPECT_EQ(m->data_root()->accesses().back().mode, "list");
    r = m->call("count_files", Convention::cdecl, {guest_string(*m, "C:\\..\\*"), first});
    EXPECT_EQ(static_cast<int>(r.eax), -5);
    // `?` and case: one name.
    r = m->call("count_files", Convention::cdecl, {guest_string(*m, "3ddata\\?bjtext.b*"), first});
    ASSERT_TRUE(r.ok()) << describe(r);
    EXPECT_EQ(r.eax, 1u);
    EXPECT_EQ(m->read_cstring(first), "OBJTEXT.BIN");
    // A pattern that made the recursive matcher backtrack exponentially: no match, at once.
    dir.put("3DDATA/" + std::string(200, 'A'), "x");
    std::string hostile = "3ddata\\";
    for (int i = 0; i < 24; ++i) hostile += "*a";
    hostile += "*b";
    r = m->call("count_files", Convention::cdecl, {guest_string(*m, hostile), first});
    ASSERT_TRUE(r.ok()) << describe(r);
    EXPECT_LT(static_cast<int>(r.eax), 0); // no file matches
}

// A listing shows what opening each entry would reach: a symbolic link out of the data root is not
// listed (its size and kind were the outside file's, read through the link), one inside is.
TEST_F(GuestFiles, FindFirstFileListsNoLinkLeavingTheRoot) {
    test::ScratchDir outside("outside");
    outside.put("secret.bin", "a secret of 23 bytes...");
    std::filesystem::create_symlink(outside.path() / "secret.bin", dir.path() / "3DDATA" / "LEAK.BIN");
    std::filesystem::create_symlink(dir.path() / "3DPAL.RGB", dir.path() / "3DDATA" / "INSIDE.BIN");
    Address first = guest_buffer(*m, 260);
    CallResult r = m->call("count_files", Convention::cdecl, {guest_string(*m, "3ddata\\*.BIN"), first});
    ASSERT_TRUE(r.ok()) << describe(r);
    EXPECT_EQ(r.eax, 3u) << "3DOBJS.BIN, INSIDE.BIN and OBJTEXT.BIN; not LEAK.BIN";
    r = m->call("count_files", Convention::cdecl, {guest_string(*m, "3ddata\\LEAK.*"), first});
    EXPECT_LT(static_cast<int>(r.eax), 0) << "no match";
}

// A path whose NUL is not within MAX_PATH (260 bytes) fails as Windows fails it, and the record names
// the failure, never a shorter path: the shims read at most 1024 characters, so a 1039-character
// "C:\.\.\...\X.BIN.does-not-exist" opened X.BIN, and a 260-character path opened its file.
TEST_F(GuestFiles, APathPastMaxPathFailsAndIsNotCut) {
    dir.put("X.BIN", "x-content");
    dir.put("XX.BIN", "xx-content");
    std::string dots;
    for (int i = 0; i < 508; ++i) dots += ".\\";
    const std::string cut_to_x = "C:\\" + dots + "X.BIN.does-not-exist"; // its first 1024: ...\X.BIN
    ASSERT_EQ(cut_to_x.size(), 1039u);
    std::string longest = "C:"; // 259 characters and the NUL: the longest path Windows opens
    for (int i = 0; i < 126; ++i) longest += ".\\";
    const std::string too_long = longest + "XX.BIN"; // 260 and the NUL
    longest += "X.BIN";
    ASSERT_EQ(longest.size(), 259u);
    ASSERT_EQ(too_long.size(), 260u);
    std::string content;
    EXPECT_EQ(read_file(longest, &content), 9);
    EXPECT_EQ(content, "x-content");
    for (const std::string& path : {cut_to_x, too_long}) {
        EXPECT_EQ(read_file(path), -206) << path.size() << " characters"; // -ERROR_FILENAME_EXCED_RANGE
        const FileAccess& access = m->data_root()->accesses().back();
        EXPECT_EQ(access.error, 206u);
        EXPECT_FALSE(access.refused); // failed, as Windows fails it: not a confinement refusal
        EXPECT_TRUE(access.resolved.empty()) << access.resolved;
        EXPECT_FALSE(access.opened.exists);
        EXPECT_EQ(access.guest_path, path.substr(0, 259) + "...");
        ASSERT_FALSE(m->log().lines().empty());
        EXPECT_NE(m->log().lines().back().find("MAX_PATH"), std::string::npos) << m->log().lines().back();
    }
    // FindFirstFileA and msvcrt's fopen fail alike (fopen's errno: ENOENT, msvcrt's _dosmaperr of 206).
    const Address first = guest_buffer(*m, 260);
    CallResult r = m->call("count_files", Convention::cdecl, {guest_string(*m, too_long), first});
    ASSERT_TRUE(r.ok()) << describe(r);
    EXPECT_EQ(static_cast<int>(r.eax), -206);
    EXPECT_EQ(m->data_root()->accesses().back().error, 206u);
    const Address buf = guest_buffer(*m, 64);
    r = m->call("crt_read_file", Convention::cdecl, {guest_string(*m, cut_to_x), buf, 64});
    ASSERT_TRUE(r.ok()) << describe(r);
    EXPECT_EQ(static_cast<int>(r.eax), -2); // -ENOENT
    EXPECT_EQ(m->data_root()->accesses().back().error, 206u);
    EXPECT_EQ(m->data_root()->accesses().back().guest_path, cut_to_x.substr(0, 259) + "...");
}

// A buffer the guest may not write: ReadFile fails with ERROR_NOACCESS before reading, as Windows
// probes it, and msvcrt's fread faults as the guest's own store would. Both wrote into the image's
// read-only .rdata (uc_mem_write ignores protection), and ReadFile into 0x10 was a host_error.
TEST_F(GuestFiles, ReadingIntoMemoryTheGuestMayNotWriteFails) {
    const Address table = m->image().require("read_only_table");
    const std::vector<uint8_t> before = m->read_bytes(table, 16);
    EXPECT_EQ(read_into("3ddata\\3dobjs.bin", table), -998); // -ERROR_NOACCESS
    EXPECT_EQ(m->read_bytes(table, 16), before);
    EXPECT_EQ(m->data_root()->accesses().back().bytes_read, 0u);
    EXPECT_EQ(read_into("3ddata\\3dobjs.bin", 0x10), -998);
    const CallResult r =
        m->call("crt_read_file", Convention::cdecl, {guest_string(*m, "3ddata\\3dobjs.bin"), table, 4});
    ASSERT_TRUE(r.fault) << describe(r);
    EXPECT_EQ(r.fault->kind, FaultKind::write_protected) << describe(r);
    EXPECT_EQ(r.fault->data_address, std::optional<Address>(table));
    EXPECT_EQ(m->read_bytes(table, 16), before);
}

// A FIFO (or device) named like an archive is refused, not opened: opening it blocks the host, where
// no instruction budget or watchdog reaches (a FIFO named 3DOBJS.BIN hung the run).
TEST_F(GuestFiles, AFifoIsRefusedNotOpened) {
    ASSERT_EQ(::mkfifo((dir.path() / "3DDATA" / "PIPE.BIN").c_str(), 0644), 0);
    EXPECT_EQ(read_file("3ddata\\pipe.bin"), -5); // -ERROR_ACCESS_DENIED
    EXPECT_TRUE(m->data_root()->accesses().back().refused);
}

// CreateFileA on a read-only root changes nothing, whatever access it asks for: GENERIC_READ with
// CREATE_ALWAYS truncated the file, TRUNCATE_EXISTING emptied it and OPEN_ALWAYS created one.
TEST(GuestFilesReadOnly, NoDispositionChangesAReadOnlyRoot) {
    test::ScratchDir dir("ro-dispositions");
    dir.put("3DPAL.RGB", "palette");
    Machine m(MachineOptions{dir.path()});
    m.load(test::test_image());
    const auto create = m.import_thunk("kernel32.dll", "CreateFileA");
    ASSERT_TRUE(create);
    constexpr std::uint32_t generic_read = 0x80000000, invalid_handle = 0xffffffff;
    for (const std::uint32_t disposition :
         {1u, 2u, 4u, 5u}) { // CREATE_NEW, CREATE_ALWAYS, OPEN_ALWAYS, TRUNCATE_EXISTING
        for (const char* name : {"3DPAL.RGB", "NEW.TXT"}) {
            const CallResult r = m.call(*create, Convention::stdcall,
                                        {guest_string(m, name), generic_read, 0, 0, disposition, 0, 0});
            ASSERT_TRUE(r.ok()) << describe(r);
            const bool opens_existing = disposition == 4 && std::string(name) == "3DPAL.RGB";
            EXPECT_EQ(r.eax == invalid_handle, !opens_existing) << name << " disposition " << disposition;
        }
    }
    std::ifstream in(dir.path() / "3DPAL.RGB");
    std::string back;
    in >> back;
    EXPECT_EQ(back, "palette");
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "NEW.TXT"));
}

TEST(GuestFilesReadOnly, WritesToAReadOnlyRootAreRefused) {
    test::ScratchDir dir("ro");
    Machine m(MachineOptions{dir.path()});
    m.load(test::test_image());
    CallResult r =
        m.call("write_file", Convention::cdecl, {guest_string(m, "x.bin"), guest_string(m, "x"), 1});
    EXPECT_EQ(static_cast<int>(r.eax), -5);
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "x.bin"));
}

} // namespace
} // namespace refcheck::emu
