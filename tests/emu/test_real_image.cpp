// What a real (retail-like) image needs from the machine: any base in the 32-bit space with the
// stack and heap placed around it, a TEB and PEB behind FS, msvcrt's functions as shims, and
// replace() on an import thunk. The high-base image is the test image linked at 0x63080000, the
// preferred base of Debian's i686 zlib1.dll (above the default heap's start).
#include "emu_test_support.hpp"

#include <fstream>
#include <sstream>

namespace refcheck::emu {
namespace {

using test::describe;
using test::guest_buffer;
using test::guest_string;

std::filesystem::path high_image() { return EMU_TEST_IMAGE_HIGH; }

bool overlaps(Range a, Range b) { return a.begin < b.end && b.begin < a.end; }

TEST(RealImage, LoadsAtAHighPreferredBase) {
    Machine m;
    const Image& image = m.load(high_image());
    EXPECT_EQ(image.base, 0x63080000u);
    EXPECT_EQ(image.preferred_base, 0x63080000u);
    EXPECT_EQ(image.relocations_applied, 0u);
    // Nothing lies in the default places: they stay where the stand-in has them.
    EXPECT_EQ(m.stack().begin, Machine::stack_base);
    EXPECT_EQ(m.heap().region().begin, GuestHeap::default_base);
    CallResult r = m.call("name_at", Convention::cdecl, {1});
    ASSERT_TRUE(r.ok()) << describe(r);
    EXPECT_EQ(m.read_cstring(r.eax), "beta");
    EXPECT_EQ(m.call("fs_image_base", Convention::cdecl, {}).eax, 0x63080000u);
}

TEST(RealImage, RebasedOntoTheDefaultHeapTheHeapMoves) {
    Machine m;
    const Image& image = m.load(high_image(), GuestHeap::default_base);
    EXPECT_EQ(image.base, GuestHeap::default_base);
    EXPECT_GT(image.relocations_applied, 0u);
    EXPECT_FALSE(overlaps(m.heap().region(), image.range()));
    EXPECT_FALSE(overlaps(m.heap().region(), m.stack()));
    EXPECT_GE(m.heap().region().size(), 16u << 20);
    EXPECT_LE(m.heap().region().end, Machine::system_base); // user space
    // Relocated code and data, and a heap allocation outside the image.
    CallResult r = m.call("name_at", Convention::cdecl, {2});
    ASSERT_TRUE(r.ok()) << describe(r);
    EXPECT_TRUE(image.range().contains(r.eax));
    EXPECT_EQ(m.read_cstring(r.eax), "gamma");
    Address s = guest_string(m, "rebased");
    CallResult copy = m.call("crt_copy_string", Convention::cdecl, {s});
    ASSERT_TRUE(copy.ok()) << describe(copy);
    EXPECT_TRUE(m.heap().region().contains(copy.eax));
    EXPECT_EQ(m.read_cstring(copy.eax), "rebased");
    EXPECT_EQ(m.call("fs_image_base", Convention::cdecl, {}).eax, GuestHeap::default_base);
}

TEST(RealImage, AnImageOnTheDefaultStackMovesTheStack) {
    Machine m;
    const Image& image = m.load(test::test_image(), Machine::stack_base);
    EXPECT_FALSE(overlaps(m.stack(), image.range()));
    EXPECT_FALSE(overlaps({m.stack().begin - 0x1000, m.stack().end}, image.range())); // the guard page
    EXPECT_EQ(m.stack().size(), Machine::stack_size);
    CallResult r = m.call("add3_stdcall", Convention::stdcall, {1, 10, 100});
    ASSERT_TRUE(r.ok()) << describe(r);
    EXPECT_EQ(r.eax, 321u);
    EXPECT_EQ(m.reg(Reg::esp), m.stack().end);
    EXPECT_EQ(m.call("fs_stack_base", Convention::cdecl, {}).eax, m.stack().end);
}

TEST(RealImage, TheStandInPlacesDoNotMove) {
    Machine m;
    m.load(test::test_image());
    EXPECT_EQ(m.stack().begin, Machine::stack_base);
    EXPECT_EQ(m.stack().end, Machine::stack_top);
    EXPECT_EQ(m.heap().region().begin, GuestHeap::default_base);
    EXPECT_EQ(m.heap().region().end, GuestHeap::default_limit);
}

TEST(RealImage, AnImageOnTheSystemRegionIsRefusedSayingSo) {
    Machine m;
    try {
        m.load(high_image(), Machine::system_base);
        FAIL() << "loaded over the TEB";
    } catch (const EmuError& e) {
        EXPECT_NE(std::string(e.what()).find("system region"), std::string::npos) << e.what();
    }
}

TEST(Fs, RoutinesReadTheTebThroughFs) {
    Machine m;
    m.load(test::test_image());
    CallResult self = m.call("fs_teb_self", Convention::cdecl, {});
    ASSERT_TRUE(self.ok()) << describe(self);
    EXPECT_EQ(self.eax, Machine::teb_address);
    EXPECT_EQ(m.call("fs_image_base", Convention::cdecl, {}).eax, m.image().base);
    EXPECT_EQ(m.call("fs_stack_base", Convention::cdecl, {}).eax, Machine::stack_top);
    // An SEH registration pushed and popped on fs:[0]; twice: each call starts at the chain's end.
    EXPECT_EQ(m.call("fs_seh_frame", Convention::cdecl, {}).eax, 1u);
    m.write_u32(Machine::teb_address, 0x12345678); // a stale record left by a faulting call
    EXPECT_EQ(m.call("fs_seh_frame", Convention::cdecl, {}).eax, 1u);
}

TEST(Msvcrt, MallocAndMemcpyGoThroughTheGuestHeap) {
    Machine m;
    m.load(test::test_image());
    Address s = guest_string(m, "retail image");
    CallResult r = m.call("crt_copy_string", Convention::cdecl, {s});
    ASSERT_TRUE(r.ok()) << describe(r);
    EXPECT_EQ(m.read_cstring(r.eax), "retail image");
    const Allocation* a = m.heap().live_at(r.eax);
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->kind, AllocationKind::crt);
    EXPECT_EQ(a->size, 13u);
    EXPECT_EQ(a->routine, "crt_copy_string");
    // realloc moves (freed memory is never reused), keeps the bytes, frees the old block.
    CallResult g = m.call("crt_grow", Convention::cdecl, {8, 0x5a});
    ASSERT_TRUE(g.ok()) << describe(g);
    EXPECT_EQ(g.eax, 0x5au);
    size_t n = m.heap().allocations().size();
    EXPECT_TRUE(m.heap().allocations()[n - 2].freed);
    EXPECT_TRUE(m.heap().allocations()[n - 1].freed);
    EXPECT_EQ(m.heap().allocations()[n - 1].size, 16u);
    EXPECT_EQ(m.call("crt_compare", Convention::cdecl, {guest_string(m, "abc"), guest_string(m, "abd")}).eax,
              static_cast<uint32_t>(-1));
}

TEST(Msvcrt, FopenAndFreadStayInsideTheDataRootAndAreRecorded) {
    test::ScratchDir dir("msvcrt");
    dir.put("DATA/FILE.BIN", "0123456789");
    Machine m({dir.path()});
    m.load(test::test_image());
    Address buf = guest_buffer(m, 64);
    CallResult r = m.call("crt_read_file", Convention::cdecl, {guest_string(m, "data\\file.bin"), buf, 4});
    ASSERT_TRUE(r.ok()) << describe(r);
    EXPECT_EQ(r.eax, 10u * 65536 + 4);
    EXPECT_EQ(m.read_cstring(buf, 4), "0123");
    ASSERT_EQ(m.data_root()->accesses().size(), 1u);
    const FileAccess& ok = m.data_root()->accesses()[0];
    EXPECT_EQ(ok.resolved, "DATA/FILE.BIN");
    EXPECT_EQ(ok.mode, "read");
    EXPECT_EQ(ok.routine, "crt_read_file");
    EXPECT_EQ(ok.bytes_read, 4u);
    // Outside the root: refused, recorded, errno EACCES.
    CallResult out =
        m.call("crt_read_file", Convention::cdecl, {guest_string(m, "..\\..\\etc\\passwd"), buf, 4});
    ASSERT_TRUE(out.ok()) << describe(out);
    EXPECT_EQ(static_cast<int32_t>(out.eax), -13);
    ASSERT_EQ(m.data_root()->accesses().size(), 2u);
    EXPECT_TRUE(m.data_root()->accesses()[1].refused);
    // Missing: ENOENT.
    EXPECT_EQ(static_cast<int32_t>(
                  m.call("crt_read_file", Convention::cdecl, {guest_string(m, "nope.bin"), buf, 4}).eax),
              -2);
}

TEST(Msvcrt, InittermRunsTheImagesInitialisers) {
    Machine m;
    m.load(test::test_image());
    CallResult r = m.call("crt_initterm", Convention::cdecl, {});
    ASSERT_TRUE(r.ok()) << describe(r);
    EXPECT_EQ(r.eax, 21u);
}

TEST(Msvcrt, AnUnshimmedFunctionIsACleanTrapNamingItAndTheCaller) {
    Machine m;
    m.load(test::test_image());
    CallResult r = m.call("crt_calls_unshimmed", Convention::cdecl, {});
    ASSERT_TRUE(r.fault);
    EXPECT_EQ(r.fault->kind, FaultKind::unimplemented_import);
    EXPECT_NE(r.fault->message.find("msvcrt.dll!puts"), std::string::npos) << r.fault->message;
    EXPECT_NE(r.fault->message.find("crt_calls_unshimmed"), std::string::npos) << r.fault->message;
}

TEST(Msvcrt, ReplaceOnAnImportThunkRunsInsteadOfTheShim) {
    Machine m;
    m.load(test::test_image());
    std::optional<Address> thunk = m.import_thunk("MSVCRT.DLL", "puts");
    ASSERT_TRUE(thunk);
    std::string said;
    HookId h = m.replace(*thunk, Convention::cdecl, 1, [&](Machine& machine, const Args& a) {
        said = machine.read_cstring(a.ptr(0));
        return 7u;
    });
    CallResult r = m.call("crt_calls_unshimmed", Convention::cdecl, {});
    ASSERT_TRUE(r.ok()) << describe(r);
    EXPECT_EQ(r.eax, 7u);
    EXPECT_EQ(said, "not shimmed");
    // A shimmed import replaced: malloc returns what the replacement says, the heap is untouched.
    std::optional<Address> malloc_thunk = m.import_thunk("msvcrt.dll", "malloc");
    ASSERT_TRUE(malloc_thunk);
    size_t before = m.heap().allocations().size();
    Address s = guest_string(m, "x");
    HookId h2 = m.replace(*malloc_thunk, Convention::cdecl, 1, [&](Machine&, const Args&) { return 0u; });
    EXPECT_EQ(m.call("crt_copy_string", Convention::cdecl, {s}).eax, 0u);
    EXPECT_EQ(m.heap().allocations().size(), before + 1); // only the test's string
    // Removed: the trap and the shim are back.
    m.remove_hook(h);
    m.remove_hook(h2);
    EXPECT_EQ(m.call("crt_calls_unshimmed", Convention::cdecl, {}).fault->kind,
              FaultKind::unimplemented_import);
    EXPECT_NE(m.call("crt_copy_string", Convention::cdecl, {s}).eax, 0u);
}

// The whole of a C runtime's start-up: the entry point (mainCRTStartup: FS, _initterm,
// __getmainargs, data imports such as __initenv, _onexit...) runs main, which reads a file with
// fopen/fread into malloc'd memory, and exit() ends the run with main's result.
TEST(CrtImage, TheEntryPointRunsMainThroughTheCrtStartUp) {
    test::ScratchDir dir("crt");
    dir.put("DATA/INPUT.BIN", "ABC");
    Machine m({dir.path()});
    const Image& image = m.load(EMU_CRT_IMAGE);
    EXPECT_EQ(image.base, 0x20000000u);
    EXPECT_TRUE(image.exports.empty());
    EXPECT_TRUE(image.coff_symbols.empty()); // stripped
    EXPECT_FALSE(overlaps(m.heap().region(), image.range()));
    CallResult r = m.call(image.entry, Convention::cdecl, {});
    ASSERT_TRUE(r.fault);
    EXPECT_EQ(r.fault->kind, FaultKind::process_exit) << r.fault->report();
    EXPECT_EQ(r.fault->message, "exit(" + std::to_string(65 + 66 + 67 + 1) + ") called") << r.fault->report();
    ASSERT_EQ(m.data_root()->accesses().size(), 1u);
    EXPECT_EQ(m.data_root()->accesses()[0].resolved, "DATA/INPUT.BIN");
    EXPECT_EQ(m.data_root()->accesses()[0].bytes_read, 3u);
    bool buffer = false;
    for (const Allocation& a : m.heap().allocations())
        buffer = buffer || (a.kind == AllocationKind::crt && a.size == 256 && a.freed);
    EXPECT_TRUE(buffer) << "main's malloc(256) ... free";
}

// The address of `name` in a GNU ld map (a symbol line: indentation, 0xADDRESS, the name alone).
Address map_address(const std::filesystem::path& map, const std::string& name) {
    std::ifstream in(map);
    for (std::string line; std::getline(in, line);) {
        std::istringstream words(line);
        std::string address, symbol, extra;
        if (words >> address >> symbol && !(words >> extra) && symbol == name && address.rfind("0x", 0) == 0)
            return static_cast<Address>(std::stoul(address, nullptr, 16));
    }
    throw std::runtime_error(name + " is not in " + map.string());
}

// Boot mode: the entry point runs the CRT's start-up until it reaches main, and stops there. What
// start-up did stays: _initterm ran the image's C initialiser (before the boot crt_started() says
// 0), main was handed the CRT's argc and argv, and main called on its own afterwards reads its
// file through msvcrt with the runtime as start-up left it.
TEST(CrtImage, BootRunsTheStartUpUntilMainAndStopsThere) {
    test::ScratchDir dir("crt-boot");
    dir.put("DATA/INPUT.BIN", "ABC");
    Machine m({dir.path()});
    m.load(EMU_CRT_IMAGE);
    const Address main = map_address(EMU_CRT_IMAGE_MAP, "main");
    const Address started = map_address(EMU_CRT_IMAGE_MAP, "crt_started");
    EXPECT_EQ(m.call(started, Convention::cdecl, {}).eax, 0u) << "before start-up";

    std::uint32_t argc = 0;
    std::string argv0;
    const HookId h = m.tap(main, [&](Machine& mm) {
        const Address esp = mm.reg(Reg::esp);
        argc = mm.read_u32(esp + 4);
        argv0 = mm.read_cstring(mm.read_u32(mm.read_u32(esp + 8)));
    });
    const CallResult boot = m.run_entry_until(main);
    m.remove_hook(h);
    ASSERT_TRUE(boot.ok()) << describe(boot);
    EXPECT_EQ(argc, 1u);
    EXPECT_FALSE(argv0.empty());
    EXPECT_TRUE(m.data_root()->accesses().empty()) << "main itself did not run";

    EXPECT_EQ(m.call(started, Convention::cdecl, {}).eax, 1998u) << "_initterm ran the initialiser";
    const Address args = guest_buffer(m, 8);
    const Address name = guest_string(m, "refcheck");
    m.write_u32(args, name);
    const CallResult r = m.call(main, Convention::cdecl, {1, args});
    ASSERT_TRUE(r.ok()) << describe(r);
    EXPECT_EQ(r.eax, 65u + 66u + 67u + 1u);
    ASSERT_EQ(m.data_root()->accesses().size(), 1u);
    EXPECT_EQ(m.data_root()->accesses()[0].bytes_read, 3u);
}

// The calls after a boot start below the start-up's frames: they started at the stack's end, over
// the frames start-up left (main's return address and arguments, the runtime's own data: Open
// Watcom keeps its thread data, the stack bound and errno, there).
TEST(CrtImage, CallsAfterABootLeaveTheStartUpsFramesAsItLeftThem) {
    test::ScratchDir dir("crt-boot-frames");
    dir.put("DATA/INPUT.BIN", "ABC");
    Machine m({dir.path()});
    m.load(EMU_CRT_IMAGE);
    const Address main = map_address(EMU_CRT_IMAGE_MAP, "main");
    EXPECT_EQ(m.call_stack_top(), m.stack().end) << "before a boot";
    Address at_main = 0;
    const HookId h = m.tap(main, [&](Machine& mm) { at_main = mm.reg(Reg::esp); });
    const CallResult boot = m.run_entry_until(main);
    m.remove_hook(h);
    ASSERT_TRUE(boot.ok()) << describe(boot);
    EXPECT_EQ(m.call_stack_top(), at_main & ~Address{15});
    const Range frames{m.call_stack_top(), m.stack().end};
    ASSERT_GT(frames.size(), 0u);
    const std::vector<std::uint8_t> left = m.read_bytes(frames.begin, frames.size());

    const Address args = guest_buffer(m, 8);
    m.write_u32(args, guest_string(m, "refcheck"));
    const Snapshot before = m.snapshot();
    const CallResult r = m.call(main, Convention::cdecl, {1, args});
    ASSERT_TRUE(r.ok()) << describe(r); // no stack imbalance: ESP came back to the call's top
    EXPECT_EQ(m.read_bytes(frames.begin, frames.size()), left) << "a call wrote over start-up's frames";
    EXPECT_EQ(m.reg(Reg::esp), m.call_stack_top());
    m.restore(before);
    EXPECT_EQ(m.call_stack_top(), frames.begin) << "a snapshot keeps where calls start";
}

// A boot whose routine start-up never reaches is a fault saying where the run ended instead.
TEST(CrtImage, BootThatNeverReachesItsRoutineIsAFault) {
    test::ScratchDir dir("crt-boot-never");
    Machine m({dir.path()});
    m.load(EMU_CRT_IMAGE);
    const CallResult r = m.run_entry_until(m.image().entry + 0x100000); // not code: never reached
    ASSERT_TRUE(r.fault);
    EXPECT_EQ(r.fault->kind, FaultKind::process_exit) << r.fault->report(); // main's exit(250)
}

} // namespace
} // namespace refcheck::emu
