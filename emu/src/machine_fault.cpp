// Turning a stop into a Fault: the exact faulting instruction, disassembly around it, the guest
// call stack and the attribution of the data address.
//
// Exact EIP for data faults. Without a code hook covering the faulting code, Unicorn reports the
// start of the translated block for a faulting load or store, but it has committed every earlier
// instruction of the block and none of the faulting one (QEMU keeps x86 instructions restartable
// after a memory fault). So the machine state IS the state just before the faulting instruction,
// except EIP. The machine then tries each instruction of that block, in order, from exactly that
// state, one instruction at a time under a per-instruction code hook (which makes Unicorn's PC exact),
// with every memory write undone and every host hook silenced; the first instruction that
// reproduces the same fault (kind and address) is the faulting one. This runs only after a fault.
// (Two instructions of one block whose address expressions coincide under the final registers
// cannot be told apart from the final state alone; the earlier one is reported.)
#include <algorithm>
#include <set>

#include "machine_impl.hpp"

namespace refcheck::emu {

namespace {

bool is_data_fault(FaultKind k) {
    return k == FaultKind::read_unmapped || k == FaultKind::write_unmapped ||
           k == FaultKind::read_protected || k == FaultKind::write_protected;
}

// Lets exactly one instruction run: stops before the second.
void on_trial_step(uc_engine* uc, uint64_t, uint32_t, void* user) {
    auto& impl = *static_cast<Machine::Impl*>(user);
    if (impl.trial_steps++ >= 1) uc_emu_stop(uc);
}

void on_trial_write(uc_engine* uc, uc_mem_type, uint64_t address, int size, int64_t, void* user) {
    auto& impl = *static_cast<Machine::Impl*>(user);
    std::vector<uint8_t> old(static_cast<size_t>(size));
    if (uc_mem_read(uc, address, old.data(), old.size()) == UC_ERR_OK)
        impl.undo.emplace_back(static_cast<Address>(address), std::move(old));
}

} // namespace

std::optional<std::pair<Address, Registers>> Machine::Impl::locate_data_fault(const PendingStop& stop,
                                                                              Address block) {
    uc_tb tb{};
    uint32_t size =
        uc_ctl_request_cache(uc, uint64_t{block}, &tb) == UC_ERR_OK && tb.size != 0 ? tb.size : 256;
    std::vector<uint8_t> code(size);
    while (!code.empty() && uc_mem_read(uc, block, code.data(), code.size()) != UC_ERR_OK)
        code.resize(code.size() / 2);
    std::vector<Instruction> candidates = disassembler.decode(code, block);

    uc_context* saved = nullptr;
    if (uc_context_alloc(uc, &saved) != UC_ERR_OK) return std::nullopt;
    uc_context_save(uc, saved);
    uc_hook undo_hook = 0, step_hook = 0;
    uc_hook_add(uc, &undo_hook, UC_HOOK_MEM_WRITE, reinterpret_cast<void*>(on_trial_write), this, 1, 0);
    uc_hook_add(uc, &step_hook, UC_HOOK_CODE, reinterpret_cast<void*>(on_trial_step), this, 1, 0);
    flush_all_translations(); // every block must now call both hooks
    trial = true;
    std::optional<Address> found;
    for (const Instruction& insn : candidates) {
        uc_context_restore(uc, saved);
        trial_stop = {};
        trial_steps = 0;
        undo.clear();
        uc_emu_start(uc, insn.address, Machine::sentinel, 0, 0);
        for (auto it = undo.rbegin(); it != undo.rend(); ++it)
            uc_mem_write(uc, it->first, it->second.data(), it->second.size());
        if (trial_stop.set && trial_stop.kind == stop.kind && trial_stop.data_address == stop.data_address) {
            found = insn.address;
            break;
        }
    }
    trial = false;
    undo.clear();
    uc_hook_del(uc, undo_hook);
    uc_hook_del(uc, step_hook);
    uc_context_restore(uc, saved);
    uc_context_free(saved);
    flush_all_translations(); // drop blocks translated while the write hook existed
    if (!found) return std::nullopt;
    Registers regs = self.registers();
    regs.eip = *found;
    return std::make_pair(*found, regs);
}

std::vector<StackFrame> Machine::Impl::call_stack(const Registers& regs) const {
    std::set<Address> chain;
    Address ebp = regs.ebp;
    for (int i = 0; i < 256; ++i) {
        if (ebp < regs.esp || ebp < stack.begin || uint64_t{ebp} + 8 > stack.end) break;
        chain.insert(ebp + 4);
        Address next = self.read_u32(ebp);
        if (next <= ebp) break;
        ebp = next;
    }
    std::vector<StackFrame> frames;
    if (!image || regs.esp < stack.begin || regs.esp >= stack.end) return frames;
    for (Address slot = regs.esp & ~3u; slot + 4 <= stack.end && frames.size() < 32; slot += 4) {
        Address v = self.read_u32(slot);
        if (v == Machine::sentinel) break; // the bottom of this call
        if (image->is_code(v) && find_call_site(self, v))
            frames.push_back({v, slot, symbols.describe(v), chain.count(slot) != 0});
    }
    return frames;
}

std::vector<std::string> Machine::Impl::disassembly_around(Address eip, Address hint) const {
    // Decode forward from a known instruction boundary a little before EIP: the nearest symbol or
    // the block start Unicorn reported, whichever is earlier (within 512 bytes).
    Address start = eip;
    if (auto s = symbols.start_of(eip, 0x200); s && image && image->range().contains(*s)) start = *s;
    if (hint <= eip && eip - hint < 0x200) start = std::min(start, hint);
    std::vector<uint8_t> code(eip - start + 64);
    while (!code.empty() && uc_mem_read(uc, start, code.data(), code.size()) != UC_ERR_OK)
        code.resize(code.size() / 2);
    std::vector<Instruction> insns = disassembler.decode(code, start);
    auto at =
        std::find_if(insns.begin(), insns.end(), [&](const Instruction& i) { return i.address == eip; });
    if (at == insns.end()) {
        code.resize(std::min<size_t>(code.size(), 64));
        if (uc_mem_read(uc, eip, code.data(), code.size()) != UC_ERR_OK) return {hex(eip) + ": (not mapped)"};
        insns = disassembler.decode(code, eip);
        at = insns.begin();
    }
    std::vector<std::string> lines;
    auto first = at - std::min<ptrdiff_t>(at - insns.begin(), 4);
    auto last = at + std::min<ptrdiff_t>(insns.end() - at, 4);
    for (auto it = first; it != last; ++it)
        lines.push_back(std::string(it == at ? "=> " : "   ") + hex(it->address) + " <" +
                        symbols.describe(it->address) + ">: " + it->text);
    return lines;
}

Fault Machine::Impl::make_fault(const PendingStop& stop, Address reported_eip) {
    Fault f;
    f.kind = stop.kind;
    f.message = stop.message;
    f.routine = routine;
    f.reported_eip = reported_eip;
    f.data_address = stop.data_address;
    Registers regs = self.registers();
    if (stop.eip) {
        regs.eip = *stop.eip;
    } else if (is_data_fault(stop.kind)) {
        if (auto found = locate_data_fault(stop, reported_eip))
            regs = found->second;
        else
            f.eip_exact = false;
    }
    f.registers = regs;
    f.eip = regs.eip;
    if (f.data_address) f.attribution = self.describe(*f.data_address);
    Address code_at = f.eip;
    const bool on_shim_page = f.eip >= Machine::shim_base && f.eip - Machine::shim_base < Machine::shim_size;
    if (stop.kind == FaultKind::unimplemented_import || stop.kind == FaultKind::process_exit ||
        ((is_data_fault(stop.kind) || stop.kind == FaultKind::heap_misuse) && stop.eip && on_shim_page)) {
        // EIP is on the shim page (an import's trap or exit, a shim's access to guest memory on the
        // guest's behalf, or a heap shim's refusal of a block that is not live): show the call site.
        if (regs.esp >= stack.begin && regs.esp + 4 <= stack.end)
            if (auto site = find_call_site(self, self.read_u32(regs.esp))) code_at = *site;
    }
    if (code_at != Machine::sentinel) f.disassembly = disassembly_around(code_at, reported_eip);
    f.stack = call_stack(regs);
    return f;
}

} // namespace refcheck::emu
