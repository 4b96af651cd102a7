// File access confined to the data root: case-insensitive resolution, refused paths, records.
#include "emu_test_support.hpp"

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
}

TEST_F(GuestFiles, RefusedPathsFailWithAccessDeniedAndAreLogged) {
    for (const char* p : {"C:\\..\\..\\etc\\passwd", "..\\..\\..\\etc\\passwd", "D:\\etc\\passwd"}) {
        EXPECT_EQ(read_file(p), -5) << p; // -ERROR_ACCESS_DENIED
        const auto& access = m->data_root()->accesses().back();
        EXPECT_TRUE(access.refused) << p;
        EXPECT_EQ(access.guest_path, p);
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
