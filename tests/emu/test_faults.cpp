// Faults are results: kind, message, exact EIP, disassembly, call stack; the machine goes on.
#include "emu_test_support.hpp"

namespace refcheck::emu {
namespace {

using test::describe;

class Faults : public ::testing::Test {
protected:
    void SetUp() override { m.load(test::test_image()); }
    Fault fault_of(const char* routine, std::initializer_list<uint32_t> args = {}, CallLimits limits = {}) {
        CallResult r = m.call(routine, Convention::cdecl, args, limits);
        EXPECT_FALSE(r.ok()) << routine << " returned " << hex(r.eax);
        // Reusable afterwards: a plain call works.
        CallResult next = m.call("add3_cdecl", Convention::cdecl, {1, 1, 1});
        EXPECT_TRUE(next.ok()) << describe(next);
        EXPECT_EQ(next.eax, 6u);
        return r.fault.value_or(Fault{});
    }
    Address at(const char* name) { return m.image().require(name); }
    Machine m;
};

TEST_F(Faults, ReadUnmappedReportsTheExactInstructionInTheMiddleOfABlock) {
    Fault f = fault_of("fault_read_unmapped");
    EXPECT_EQ(f.kind, FaultKind::read_unmapped);
    EXPECT_EQ(f.message, "read of unmapped memory at 0x00000010 (4 bytes)");
    // Unicorn reported the block start; the machine found the third instruction.
    EXPECT_EQ(f.reported_eip, at("fault_read_unmapped"));
    EXPECT_EQ(f.eip, at("fault_read_insn"));
    EXPECT_TRUE(f.eip_exact);
    EXPECT_EQ(f.registers.eax, 3u); // state just before the faulting instruction
    EXPECT_EQ(f.routine, "fault_read_unmapped");
    ASSERT_TRUE(f.data_address);
    EXPECT_EQ(*f.data_address, 0x10u);
    EXPECT_NE(f.attribution.find("null pointer"), std::string::npos) << f.attribution;
    bool marked = false;
    for (const std::string& line : f.disassembly)
        if (line.starts_with("=> " + hex(f.eip))) {
            marked = true;
            EXPECT_NE(line.find("mov ecx, dword ptr [0x10]"), std::string::npos) << line;
        }
    EXPECT_TRUE(marked) << f.report();
}

TEST_F(Faults, WriteUnmappedIsExactAndEarlierStoresOfTheBlockStay) {
    Fault f = fault_of("fault_write_unmapped");
    EXPECT_EQ(f.kind, FaultKind::write_unmapped);
    EXPECT_EQ(f.message, "write to unmapped memory at 0x00000020 (4 bytes)");
    EXPECT_EQ(f.eip, at("fault_write_insn"));
    EXPECT_TRUE(f.eip_exact);
    EXPECT_EQ(f.registers.edx, 0x20u);
}

TEST_F(Faults, WriteToReadOnlySection) {
    Fault f = fault_of("fault_write_readonly", {1});
    EXPECT_EQ(f.kind, FaultKind::write_protected);
    EXPECT_NE(f.message.find("write to write-protected memory"), std::string::npos);
    EXPECT_NE(f.attribution.find("section .rdata"), std::string::npos) << f.attribution;
    EXPECT_TRUE(f.eip_exact);
    EXPECT_EQ(m.read_u8(f.eip) == 0xc7 || m.read_u8(f.eip) == 0x89, true) << f.report(); // a mov store
}

// A shim's store on the guest's behalf honours protection as the guest's own does: memcpy into .rdata
// is a write_protected fault at the data address (it wrote there), into 0x10 a write_unmapped one (it
// was a host_error showing the shim page), each shown at the guest's call of the import.
TEST_F(Faults, AShimsStoreFaultsAsTheGuestsOwnAtTheCallSite) {
    const Address table = at("read_only_table");
    const std::vector<uint8_t> before = m.read_bytes(table, 16);
    const Address source = test::guest_string(m, "abcdefg");
    for (const Address target : {table, Address{0x10}}) {
        Fault f = fault_of("crt_copy", {target, source, 8});
        EXPECT_EQ(f.kind, target == table ? FaultKind::write_protected : FaultKind::write_unmapped)
            << f.report();
        EXPECT_EQ(f.data_address, std::optional<Address>(target));
        EXPECT_NE(f.message.find("msvcrt.dll!memcpy"), std::string::npos) << f.message;
        if (target == table) {
            EXPECT_NE(f.attribution.find("section .rdata"), std::string::npos) << f.attribution;
        }
        bool marked = false;
        for (const std::string& line : f.disassembly)
            if (line.starts_with("=> "))
                marked =
                    line.find("<crt_copy+") != std::string::npos && line.find("call") != std::string::npos;
        EXPECT_TRUE(marked) << f.report();
        ASSERT_FALSE(f.stack.empty()) << f.report();
        EXPECT_TRUE(f.stack[0].symbol.starts_with("crt_copy+")) << f.stack[0].symbol;
    }
    EXPECT_EQ(m.read_bytes(table, 16), before);
}

TEST_F(Faults, FetchUnmappedNamesTheTargetAndTheCaller) {
    Fault f = fault_of("fault_fetch_unmapped");
    EXPECT_EQ(f.kind, FaultKind::fetch_unmapped);
    EXPECT_EQ(f.eip, 0x100u);
    EXPECT_EQ(f.message, "instruction fetch from unmapped memory at 0x00000100 (1 bytes)");
    ASSERT_FALSE(f.stack.empty()) << f.report();
    EXPECT_TRUE(f.stack[0].symbol.starts_with("fault_fetch_unmapped+")) << f.stack[0].symbol;
}

TEST_F(Faults, FetchFromNonExecutableData) {
    Fault f = fault_of("fault_fetch_data");
    EXPECT_EQ(f.kind, FaultKind::fetch_protected);
    EXPECT_TRUE(f.message.starts_with("instruction fetch from non-executable memory at ")) << f.message;
    EXPECT_NE(f.attribution.find("section .data"), std::string::npos) << f.attribution;
}

TEST_F(Faults, ReadOfReadProtectedMemory) {
    Address buf = m.heap().allocate(0x1000, "test", AllocationKind::virtual_memory, 0x1000);
    uc_mem_protect(m.engine(), buf, 0x1000, UC_PROT_NONE);
    Fault f = fault_of("load_loop", {buf, 16, 1});
    uc_mem_protect(m.engine(), buf, 0x1000, UC_PROT_READ | UC_PROT_WRITE);
    EXPECT_EQ(f.kind, FaultKind::read_protected);
    EXPECT_EQ(f.message, "read of read-protected memory at " + hex(buf) + " (1 bytes)");
    EXPECT_TRUE(f.eip_exact);
    EXPECT_NE(f.attribution.find("offset 0 in allocation #1"), std::string::npos) << f.attribution;
}

TEST_F(Faults, HaltAndOtherInterrupts) {
    Fault halt = fault_of("fault_halt");
    EXPECT_EQ(halt.kind, FaultKind::halt);
    EXPECT_EQ(halt.message, "hlt executed");
    EXPECT_EQ(m.read_u8(halt.eip), 0xf4u);
    Fault irq = fault_of("fault_interrupt");
    EXPECT_EQ(irq.kind, FaultKind::interrupt);
    EXPECT_EQ(irq.message, "interrupt 0x2e");
    EXPECT_EQ(m.read_u16(irq.eip), 0x2ecdu); // int 0x2e
}

TEST_F(Faults, InvalidInstruction) {
    Fault f = fault_of("fault_invalid_instruction");
    EXPECT_EQ(f.kind, FaultKind::invalid_instruction);
    EXPECT_EQ(f.message, "invalid instruction");
    EXPECT_EQ(m.read_u16(f.eip), 0x0b0fu); // ud2
}

TEST_F(Faults, DivisionError) {
    Fault f = fault_of("fault_divide", {7, 0});
    EXPECT_EQ(f.kind, FaultKind::division_error);
    EXPECT_EQ(f.message, "division error (#DE)");
    EXPECT_EQ(m.read_u8(f.eip), 0xf7u) << f.report(); // idiv
}

TEST_F(Faults, Breakpoint) {
    Fault f = fault_of("fault_breakpoint");
    EXPECT_EQ(f.kind, FaultKind::breakpoint);
    EXPECT_EQ(f.message, "breakpoint (int3)");
    EXPECT_EQ(m.read_u8(f.eip), 0xccu);
}

TEST_F(Faults, InstructionBudgetByBlockHook) {
    Fault f = fault_of("spin_forever", {}, CallLimits{100000, 0, BudgetMethod::block_hook});
    EXPECT_EQ(f.kind, FaultKind::budget_exceeded);
    EXPECT_TRUE(f.message.starts_with("instruction budget of 100,000 exceeded")) << f.message;
    EXPECT_TRUE(f.eip >= at("spin_forever") && f.eip < at("spin_forever") + 32) << f.report();
    // Counting is exact for a routine that returns.
    CallResult r = m.call("add3_cdecl", Convention::cdecl, {1, 2, 3}, CallLimits{1000, 0});
    ASSERT_TRUE(r.ok());
    ASSERT_TRUE(r.instructions);
    EXPECT_GT(*r.instructions, 3u);
    EXPECT_LT(*r.instructions, 20u);
    CallResult tight = m.call("add3_cdecl", Convention::cdecl, {1, 2, 3}, CallLimits{*r.instructions - 1, 0});
    ASSERT_FALSE(tight.ok());
    EXPECT_EQ(tight.fault->kind, FaultKind::budget_exceeded);
}

TEST_F(Faults, InstructionBudgetByUnicornCount) {
    Fault f = fault_of("spin_forever", {}, CallLimits{100000, 0, BudgetMethod::unicorn_count});
    EXPECT_EQ(f.kind, FaultKind::budget_exceeded);
    EXPECT_NE(f.message.find("Unicorn count"), std::string::npos);
}

TEST_F(Faults, WallClockLimit) {
    Fault f = fault_of("spin_forever", {}, CallLimits{0, 50});
    EXPECT_EQ(f.kind, FaultKind::wall_limit);
    EXPECT_EQ(f.message, "wall-clock limit of 50 ms reached");
}

// The watchdog sleeps until the deadline it last saw; a call armed with a nearer deadline than that
// must wake it. A looping call armed for about 49 days (stopped by its instruction budget, which
// gives the watchdog's thread time to start its long wait), then a 50 ms limit must still stop a
// looping routine: were the thread not woken, this test would hang until ctest's timeout.
TEST_F(Faults, WallClockLimitNearerThanTheOneTheWatchdogSleepsFor) {
    Fault first = fault_of("spin_forever", {}, CallLimits{20'000'000, 0xffffffffu});
    EXPECT_EQ(first.kind, FaultKind::budget_exceeded);
    Fault f = fault_of("spin_forever", {}, CallLimits{0, 50});
    EXPECT_EQ(f.kind, FaultKind::wall_limit);
    // Calls that return under the long limit afterwards are not stopped by the short one's.
    for (int i = 0; i < 100; ++i)
        ASSERT_TRUE(m.call("add3_cdecl", Convention::cdecl, {1, 2, 3}, CallLimits{0, 0xffffffffu}).ok());
}

TEST_F(Faults, UnimplementedImportNamesTheFunctionAndTheCaller) {
    Fault f = fault_of("unshimmed");
    EXPECT_EQ(f.kind, FaultKind::unimplemented_import);
    EXPECT_NE(f.message.find("KERNEL32.dll!Beep"), std::string::npos) << f.message;
    EXPECT_NE(f.message.find("from 0x"), std::string::npos);
    EXPECT_NE(f.message.find("(unshimmed"), std::string::npos) << f.message;
    bool call_shown = false;
    for (const std::string& line : f.disassembly)
        call_shown |= line.starts_with("=> ") && line.find("call") != std::string::npos;
    EXPECT_TRUE(call_shown) << f.report();
}

TEST_F(Faults, ExitProcessStopsTheRun) {
    Fault f = fault_of("quit", {3});
    EXPECT_EQ(f.kind, FaultKind::process_exit);
    EXPECT_EQ(f.message, "ExitProcess(3) called");
}

TEST_F(Faults, CallStackThroughRecursion) {
    Fault f = fault_of("fault_deep", {3});
    EXPECT_EQ(f.kind, FaultKind::read_unmapped);
    EXPECT_TRUE(f.eip_exact);
    // recurse_then_fault called 3 times by itself, once by fault_deep.
    size_t recursive = 0, outer = 0;
    for (const StackFrame& s : f.stack) {
        recursive += s.symbol.starts_with("recurse_then_fault+");
        outer += s.symbol.starts_with("fault_deep+");
        EXPECT_TRUE(s.from_frame_chain) << s.symbol;
    }
    EXPECT_EQ(recursive, 3u) << f.report();
    EXPECT_EQ(outer, 1u) << f.report();
    EXPECT_NE(f.report().find("call stack"), std::string::npos);
}

TEST_F(Faults, ExactEipAlsoUnderATrace) {
    m.enable_trace(64); // a code hook covers the faulting code: Unicorn's own EIP is exact
    Fault f = fault_of("fault_read_unmapped");
    EXPECT_EQ(f.eip, at("fault_read_insn"));
    EXPECT_EQ(f.reported_eip, at("fault_read_insn"));
}

TEST(FaultKinds, HaveNames) {
    EXPECT_EQ(to_string(FaultKind::read_unmapped), "read_unmapped");
    EXPECT_EQ(to_string(FaultKind::unimplemented_import), "unimplemented_import");
}

} // namespace
} // namespace refcheck::emu
