#include "refcheck/emu/fault.hpp"

namespace refcheck::emu {

std::string_view to_string(FaultKind k) {
    switch (k) {
        case FaultKind::read_unmapped: return "read_unmapped";
        case FaultKind::write_unmapped: return "write_unmapped";
        case FaultKind::fetch_unmapped: return "fetch_unmapped";
        case FaultKind::read_protected: return "read_protected";
        case FaultKind::write_protected: return "write_protected";
        case FaultKind::fetch_protected: return "fetch_protected";
        case FaultKind::invalid_instruction: return "invalid_instruction";
        case FaultKind::division_error: return "division_error";
        case FaultKind::breakpoint: return "breakpoint";
        case FaultKind::interrupt: return "interrupt";
        case FaultKind::halt: return "halt";
        case FaultKind::budget_exceeded: return "budget_exceeded";
        case FaultKind::wall_limit: return "wall_limit";
        case FaultKind::unimplemented_import: return "unimplemented_import";
        case FaultKind::process_exit: return "process_exit";
        case FaultKind::stack_imbalance: return "stack_imbalance";
        case FaultKind::heap_misuse: return "heap_misuse";
        case FaultKind::stopped: return "stopped";
        case FaultKind::host_error: return "host_error";
    }
    return "?";
}

std::string Fault::report() const {
    std::string out = std::string(to_string(kind)) + " in " + routine + ": " + message + "\n";
    out += "  at " + hex(eip) + (eip_exact ? "" : " (start of the block holding the faulting instruction)") +
           "\n";
    if (data_address && !attribution.empty()) out += "  data: " + attribution + "\n";
    out += "  registers: " + registers.to_string() + "\n";
    if (!disassembly.empty()) {
        out += "  code:\n";
        for (const std::string& line : disassembly) out += "    " + line + "\n";
    }
    if (!stack.empty()) {
        out += "  call stack (innermost first):\n";
        for (const StackFrame& f : stack)
            out += "    " + hex(f.return_address) + " " + f.symbol + "  [stack " + hex(f.stack_slot) +
                   (f.from_frame_chain ? ", ebp chain" : ", stack scan") + "]\n";
    }
    return out;
}

} // namespace refcheck::emu
