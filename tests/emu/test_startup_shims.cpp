// kernel32 as a statically linked C runtime's start-up calls it before main (Watcom's __NTMain and
// __NTInit: the command line, environment, module name, version, standard handles, the stack's
// limits through VirtualQuery, thread ids, TLS, code pages, the time): each answer as Win32 gives
// it and the same on every run (guest/startup.c).
#include <array>
#include <optional>

#include "emu_test_support.hpp"

namespace refcheck::emu {
namespace {

using test::describe;
using test::guest_buffer;

class StartupShims : public ::testing::Test {
protected:
    void SetUp() override {
        m.emplace(MachineOptions{dir.path(), "C:\\GAME\\", true});
        m->load(test::test_image());
    }
    uint32_t call(const char* routine, std::vector<uint32_t> args = {}) {
        const CallResult r = m->call(routine, Convention::cdecl, args);
        EXPECT_TRUE(r.ok()) << routine << ": " << describe(r);
        return r.eax;
    }
    std::string wide_at(Address a) {
        std::string out;
        for (Address p = a; m->read_u16(p) != 0; p += 2) out += static_cast<char>(m->read_u16(p));
        return out;
    }
    test::ScratchDir dir{"startup"};
    std::optional<Machine> m;
};

TEST_F(StartupShims, NamesVersionCommandLineAndEnvironment) {
    EXPECT_EQ(call("st_version"), 0xc0000004u); // Windows 95: 4.0, not NT
    const std::string path = "C:\\GAME\\" + test::test_image().filename().string();
    const Address buf = guest_buffer(*m, 300);
    EXPECT_EQ(call("st_module_name", {buf, 260}), path.size());
    EXPECT_EQ(m->read_cstring(buf), path);
    EXPECT_EQ(call("st_module_name", {buf, 4}), 3u); // cut to fit, NUL-terminated
    EXPECT_EQ(m->read_cstring(buf), "C:\\");
    EXPECT_EQ(call("st_module_name_w", {buf, 150}), path.size());
    EXPECT_EQ(wide_at(buf), path);
    EXPECT_EQ(m->read_cstring(call("st_command_line")), path);
    EXPECT_EQ(wide_at(call("st_command_line_w")), path);
    EXPECT_EQ(call("st_environment"), 1u);
    EXPECT_EQ(call("st_ids"), (0x104u << 16) | 0x100u);
    EXPECT_EQ(call("st_settings"), 1u);
}

TEST_F(StartupShims, StandardHandlesAreCharacterDevices) {
    EXPECT_EQ(call("st_std_handles"), 2u * 16 + 1); // FILE_TYPE_CHAR, three valid distinct handles
}

TEST_F(StartupShims, VirtualQueryDescribesTheStackTheImageABlockAndFreeMemory) {
    const Address info = guest_buffer(*m, 4 * 28), block = guest_buffer(*m, 4);
    EXPECT_EQ(call("st_virtual_query", {info, block}), 4u * 28);
    const auto field = [&](int which, int k) { return m->read_u32(info + 28 * which + 4 * k); };
    // 0 BaseAddress, 1 AllocationBase, 2 AllocationProtect, 3 RegionSize, 4 State, 5 Protect, 6 Type
    const Range stack = m->stack();
    EXPECT_EQ(field(0, 1), stack.begin);
    EXPECT_EQ(field(0, 0) + field(0, 3), stack.end);
    EXPECT_EQ(field(0, 4), 0x1000u); // MEM_COMMIT
    EXPECT_EQ(field(0, 5), 0x04u);   // PAGE_READWRITE
    const Address code = *m->image().address_of("st_virtual_query");
    EXPECT_EQ(field(1, 0), code & ~0xfffu);
    EXPECT_EQ(field(1, 1), m->image().base);
    EXPECT_EQ(field(1, 5), 0x20u);      // PAGE_EXECUTE_READ: .text
    EXPECT_EQ(field(1, 6), 0x1000000u); // MEM_IMAGE
    const Address p = m->read_u32(block);
    ASSERT_NE(p, 0u);
    EXPECT_EQ(field(2, 0), (p + 5000) & ~0xfffu);
    EXPECT_EQ(field(2, 1), p);
    EXPECT_EQ(field(2, 0) + field(2, 3), p + 73728); // 70,000 bytes in whole pages
    EXPECT_EQ(field(3, 0), 0x1000u);
    EXPECT_EQ(field(3, 4), 0x10000u); // MEM_FREE
    EXPECT_EQ(field(3, 5), 0x01u);    // PAGE_NOACCESS
}

TEST_F(StartupShims, ThreadLocalStorageSlotsAndTheirSnapshot) {
    EXPECT_EQ(call("st_tls"), 1234u);
    // A slot allocated after a snapshot is free again after the restore (and its value gone).
    const Snapshot before = m->snapshot();
    EXPECT_EQ(call("st_tls_alloc"), 0u); // the lowest free slot (st_tls freed its own)
    EXPECT_EQ(m->kernel32().tls_slots_used, 1u);
    m->restore(before);
    EXPECT_EQ(m->kernel32().tls_slots_used, 0u);
}

TEST_F(StartupShims, CodePagesWideningAndTheTime) {
    EXPECT_EQ(call("st_codepages"), 1252u * 1000 + 100 + 1);
    const Address out = guest_buffer(*m, 32);
    EXPECT_EQ(call("st_widen", {out}), 3u * 100 + 3);
    EXPECT_EQ(wide_at(out), "ab");
    const Address t = guest_buffer(*m, 16);
    EXPECT_EQ(call("st_local_time", {t}), 1998u);
    const std::array<uint16_t, 8> expected = {1998, 1, 4, 15, 12, 0, 0, 0};
    for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(m->read_u16(t + 2 * i), expected[i]) << i;
}

} // namespace
} // namespace refcheck::emu
