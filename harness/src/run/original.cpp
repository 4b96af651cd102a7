#include "refcheck/harness/original.hpp"

#include "refcheck/harness/phase.hpp"

#include "refcheck/emu/disasm.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <stdexcept>
#include <utility>

namespace refcheck::harness {

emu::Convention parse_convention(const std::string& name) {
    if (name == "watcall") return emu::Convention::watcall;
    if (name == "cdecl") return emu::Convention::cdecl;
    if (name == "stdcall") return emu::Convention::stdcall;
    if (name == "fastcall") return emu::Convention::fastcall;
    throw ProfileError("unknown calling convention \"" + name + "\"");
}

ojson to_json(const emu::Fault& f) {
    ojson j;
    j["kind"] = std::string(emu::to_string(f.kind));
    j["message"] = f.message;
    j["routine"] = f.routine;
    j["eip"] = emu::hex(f.eip);
    j["eip_exact"] = f.eip_exact;
    if (f.data_address) j["data_address"] = emu::hex(*f.data_address);
    if (!f.attribution.empty()) j["attribution"] = f.attribution;
    j["registers"] = f.registers.to_string();
    j["disassembly"] = f.disassembly;
    ojson stack = ojson::array();
    for (const auto& s : f.stack) stack.push_back(s.symbol.empty() ? emu::hex(s.return_address) : s.symbol);
    j["stack"] = stack;
    return j;
}

EventRecord fault_event(const std::string& routine, const emu::Fault& f) {
    std::string disassembly, stack;
    for (const auto& line : f.disassembly) disassembly += (disassembly.empty() ? "" : "\n") + line;
    for (const auto& s : f.stack)
        stack += (stack.empty() ? "" : " <- ") + (s.symbol.empty() ? emu::hex(s.return_address) : s.symbol);
    EventRecord e;
    e.kind = "fault";
    e.fields = {{"routine", routine},
                {"fault", std::string(emu::to_string(f.kind))},
                {"eip", emu::hex(f.eip)},
                {"message", f.message},
                {"data_address", f.data_address ? emu::hex(*f.data_address) : std::string()},
                {"registers", f.registers.to_string()},
                {"disassembly", disassembly},
                {"stack", stack}};
    e.key_fields = 1;
    return e;
}

namespace {
std::optional<emu::Reg> register_named(const std::string& name) {
    static const std::pair<const char*, emu::Reg> kRegisters[] = {
        {"eax", emu::Reg::eax}, {"ebx", emu::Reg::ebx}, {"ecx", emu::Reg::ecx}, {"edx", emu::Reg::edx},
        {"esi", emu::Reg::esi}, {"edi", emu::Reg::edi}, {"ebp", emu::Reg::ebp}};
    for (const auto& [n, r] : kRegisters)
        if (name == n) return r;
    return std::nullopt;
}
} // namespace

ArgSlot arg_slot(const Profile& profile, const std::string& routine, const std::string& name) {
    const ProfileRoutine& r = profile.routine(routine);
    const auto& regs = emu::info(parse_convention(r.convention)).register_args;
    auto problem = [&](const std::string& what) {
        return ProfileError(profile.file.string() + ": " + routine + ": argument \"" + name + "\" " + what);
    };
    std::uint32_t stack_index = 0;
    for (std::size_t i = 0; i < r.args.size(); ++i) {
        const ProfileArg& a = r.args[i];
        ArgSlot slot;
        if (a.reg == "stack" || (a.reg.empty() && i >= regs.size())) {
            slot.stack_offset_ = 4 + 4 * stack_index++;
        } else if (a.reg.empty()) {
            slot.reg_ = regs[i];
        } else if (!(slot.reg_ = register_named(a.reg))) {
            if (a.name == name)
                throw problem("is in \"" + a.reg + "\", which is no register (eax..edi, or stack)");
            continue;
        }
        if (a.name == name) return slot;
    }
    throw problem("is not among the routine's \"args\" (its profile entry says where it is)");
}

std::uint32_t callee_popped_bytes(const Profile& profile, const std::string& routine) {
    const ProfileRoutine& r = profile.routine(routine);
    const emu::Convention convention = parse_convention(r.convention);
    if (!emu::info(convention).callee_pops) return 0;
    // The stack arguments as arg_slot() places them: "stack", or no "reg" past the convention's
    // registers. Counted by position (the arguments past the registers), a watcall routine with a
    // stack argument and fewer than four register ones popped none, its return address and stack
    // never matched, and its return watcher was dropped as abandoned: its events were lost.
    const auto regs = emu::info(convention).register_args.size();
    std::uint32_t slots = 0;
    for (std::size_t i = 0; i < r.args.size(); ++i)
        if (r.args[i].reg == "stack" || (r.args[i].reg.empty() && i >= regs)) ++slots;
    return 4 * slots;
}

std::vector<std::uint32_t> placed_arguments(const Profile& profile, const ProfileRoutine& r,
                                            std::span<const std::uint32_t> args) {
    const std::string& routine = r.name;
    if (r.args.empty()) return {args.begin(), args.end()};
    auto problem = [&](const std::string& what) {
        return ProfileError(profile.file.string() + ": " + routine + ": " + what);
    };
    if (args.size() > r.args.size())
        throw problem("the harness passes " + std::to_string(args.size()) + " arguments, its \"args\" list " +
                      std::to_string(r.args.size()));
    const auto regs = emu::info(parse_convention(r.convention)).register_args;
    std::vector<std::uint32_t> out(regs.size(), 0);
    std::vector<bool> taken(regs.size(), false);
    for (std::size_t i = 0; i < args.size(); ++i) {
        const ProfileArg& a = r.args[i];
        std::optional<std::size_t> place;
        if (a.reg.empty()) {
            if (i < regs.size()) place = i;
        } else if (a.reg != "stack") {
            const auto named = register_named(a.reg);
            const auto it = named ? std::find(regs.begin(), regs.end(), *named) : regs.end();
            if (it == regs.end())
                throw problem(
                    "argument \"" + a.name + "\" is in \"" + a.reg + "\", where a " + r.convention +
                    " call passes no argument (refcheck calls it with the convention's registers and "
                    "the stack)");
            place = static_cast<std::size_t>(it - regs.begin());
        }
        if (!place) {
            out.push_back(args[i]); // the next stack slot
            continue;
        }
        if (taken[*place])
            throw problem("argument \"" + a.name + "\" is in " + a.reg + ", which holds another argument");
        taken[*place] = true;
        out[*place] = args[i];
    }
    // Without stack arguments, the registers after the last one used pass nothing.
    if (out.size() == regs.size())
        while (!out.empty() && !taken[out.size() - 1]) out.pop_back();
    return out;
}

std::uint32_t ArgSlot::u32(const emu::Machine& m) const {
    if (reg_) return m.reg(*reg_);
    return m.read_u32(m.reg(emu::Reg::esp) + stack_offset_);
}

std::string ArgSlot::where() const {
    if (!reg_) return "stack+" + std::to_string(stack_offset_);
    static const char* const kNames[] = {"eax", "ebx", "ecx", "edx", "esi", "edi", "ebp"};
    return kNames[static_cast<int>(*reg_)];
}

Original::Original(const Environment& env, Profile profile) : profile_(std::move(profile)) {
    emu::MachineOptions options;
    options.data_root = env.data;
    machine_ = std::make_unique<emu::Machine>(options);
    machine_->load(env.image);
    if (const std::string mismatch = profile_base_mismatch(
            profile_, env.profile.filename(), env.image.filename(), machine_->image().preferred_base);
        !mismatch.empty())
        throw ProfileError(mismatch);
    if (const std::string outside =
            profile_data_outside(profile_, env.profile.filename(), env.image.filename(),
                                 machine_->image().base, machine_->image().size);
        !outside.empty())
        throw ProfileError(outside);
    for (const auto& [name, r] : profile_.routines)
        if (r.address) machine_->symbols().add(name, *r.address);
}

namespace {
std::string hex64(std::uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(v));
    return buf;
}
} // namespace

std::uint32_t Original::resolve(const std::string& where, std::size_t bytes) const {
    std::uint64_t address = 0;
    const auto plus = where.find('+');
    const std::string base = where.substr(0, plus);
    if (base.rfind("0x", 0) == 0 || base.rfind("0X", 0) == 0) {
        address = patch_number(base);
    } else if (auto a = machine_->image().address_of(base)) {
        address = *a;
    } else {
        address = profile_.address_of(base);
    }
    if (plus != std::string::npos) address += patch_number(where.substr(plus + 1));
    // In 64 bits, then checked: a place past the 32-bit space wrapped round to its bottom.
    const std::uint64_t end = address + std::max<std::size_t>(bytes, 1);
    if (end > 0x100000000ull)
        throw std::runtime_error("the patch at " + where + " does not fit the 32-bit address space: its " +
                                 std::to_string(bytes) + " byte(s) would end at 0x" + hex64(end) +
                                 ", past 0xffffffff");
    return static_cast<std::uint32_t>(address);
}

AppliedPatch Original::patch(const Patch& p) {
    AppliedPatch applied{p, resolve(p.where, p.bytes.size()), {}};
    applied.replaced = machine_->read_bytes(applied.address, p.bytes.size());
    if (!p.expected.empty() && applied.replaced != p.expected)
        throw PatchMismatch("patch " + p.text() + ": expected " + hex_string(p.expected) + " at " +
                            emu::hex(applied.address) + " (" + p.where + "), found " +
                            hex_string(applied.replaced));
    machine_->write(applied.address, p.bytes);
    patches_.push_back(applied);
    return applied;
}

emu::RestoreStats Original::restore(const emu::Snapshot& snapshot) {
    const emu::RestoreStats stats = machine_->restore(snapshot);
    for (const AppliedPatch& a : patches_)
        if (machine_->read_bytes(a.address, a.patch.bytes.size()) != a.patch.bytes)
            machine_->write(a.address, a.patch.bytes); // drops the code's translations
    return stats;
}

emu::CallLimits Original::limits_for(const std::string& routine, std::uint32_t wall_ms) const {
    emu::CallLimits limits;
    limits.wall_ms = wall_ms;
    if (const auto b = budgets_.find(routine); b != budgets_.end())
        limits.instruction_budget = b->second;
    else
        limits.instruction_budget = fallback_budget_;
    if (per_call_ != 0) {
        // The case's limits: never more than per_call_, nor than what is left of per_case_.
        const std::uint64_t left = instructions_total_ < per_case_ ? per_case_ - instructions_total_ : 1;
        const std::uint64_t cap = std::min(per_call_, left);
        limits.instruction_budget =
            limits.instruction_budget ? std::min(limits.instruction_budget, cap) : cap;
    }
    return limits;
}

void Original::account(const std::string& routine, const emu::CallResult& result) {
    if (result.instructions) {
        std::uint64_t& most = needed_[routine];
        most = std::max(most, *result.instructions);
        instructions_total_ += *result.instructions;
    }
    if (result.fault) {
        if (result.fault->kind == emu::FaultKind::budget_exceeded) overran_ = true;
        faults_.push_back(to_json(*result.fault));
        if (on_fault_) on_fault_(routine, *result.fault);
    }
}

void Original::refuse_if_closed(const std::string& routine) const {
    if (closed_) throw std::logic_error("the original cannot run " + routine + " any more: " + *closed_);
}

emu::CallResult Original::call(const std::string& routine, std::initializer_list<std::uint32_t> args,
                               std::uint32_t wall_ms) {
    refuse_if_closed(routine);
    const ProfileRoutine& r = profile_.routine(routine);
    events_this_call_ = 0;
    const ScopedPhase phase(Phase::emulation);
    const std::vector<std::uint32_t> placed =
        placed_arguments(profile_, r, std::span<const std::uint32_t>(args.begin(), args.size()));
    emu::CallResult result = machine_->call(profile_.address_of(routine), parse_convention(r.convention),
                                            placed, limits_for(routine, wall_ms));
    account(routine, result);
    return result;
}

emu::CallResult Original::run_entry_until(const std::string& routine, std::uint32_t wall_ms) {
    const std::string who = "entry point (until " + routine + ")";
    refuse_if_closed(who);
    events_this_call_ = 0;
    const ScopedPhase phase(Phase::emulation);
    emu::CallResult result =
        machine_->run_entry_until(profile_.address_of(routine), limits_for(who, wall_ms));
    account(who, result);
    return result;
}

std::uint32_t Original::word_global(const std::string& global) const {
    // A scalar global the harness reads or writes as a 32-bit word must be one: a profile giving it
    // another size (a 1998 image may keep a count or flag in a byte or a short) would have the harness
    // read its neighbours into the value, or overwrite them.
    if (const auto d = profile_.data.find(global);
        d != profile_.data.end() && !d->second.type.ends_with("[]") && d->second.size != 4)
        throw ProfileError(profile_.file.string() + ": data \"" + global + "\" is " +
                           std::to_string(d->second.size) + " byte(s) (\"" + d->second.type +
                           "\"); the harness reads and writes it as a 32-bit word");
    return profile_.address_of(global);
}

std::uint32_t Original::u32(const std::string& global, std::uint32_t index) const {
    return machine_->read_u32(word_global(global) + 4 * index);
}

void Original::write_u32(const std::string& global, std::uint32_t value) {
    machine_->write_u32(word_global(global), value);
}

std::vector<std::uint8_t> Original::bytes(std::uint32_t address, std::size_t size) const {
    return machine_->read_bytes(address, size);
}

std::uint32_t Original::scratch(std::uint32_t size) {
    return machine_->heap().allocate(size, "refcheck (harness inputs)", emu::AllocationKind::heap);
}

emu::HookId Original::replace(const std::string& routine, unsigned nargs, emu::ReplaceFn fn) {
    // The replacement reads its arguments, and returns popping its stack ones, by the convention's
    // order (emu::Args): a profile placing them otherwise would hand it the wrong values and
    // unbalance the caller's stack, so it is refused rather than replaced wrongly.
    const ProfileRoutine& r = profile_.routine(routine);
    const auto regs = emu::info(parse_convention(r.convention)).register_args;
    for (std::size_t i = 0; i < r.args.size(); ++i) {
        const std::string& reg = r.args[i].reg;
        const bool in_order =
            reg.empty() || (i < regs.size() ? register_named(reg) == regs[i] : reg == "stack");
        if (!in_order)
            throw ProfileError(profile_.file.string() + ": " + routine + ": argument \"" + r.args[i].name +
                               "\" is in \"" + reg + "\", not the " + r.convention +
                               " convention's place for argument " + std::to_string(i + 1) +
                               ": refcheck replaces this routine and reads its arguments in that order");
    }
    replaced_.push_back(routine);
    replaced_entries_.push_back(profile_.address_of(routine));
    if (PhaseClock::current()) // refcheck bench: the callback is harness time inside an emulated call
        fn = [inner = std::move(fn)](emu::Machine& m, const emu::Args& a) {
            const ScopedPhase phase(Phase::harness);
            return inner(m, a);
        };
    return machine_->replace(profile_.address_of(routine),
                             parse_convention(profile_.routine(routine).convention), nargs, std::move(fn));
}

emu::HookId Original::tap(const std::string& routine, emu::TapFn fn) {
    tapped_.push_back(routine);
    return machine_->tap(profile_.address_of(routine), timed(std::move(fn)));
}

emu::TapFn Original::timed(emu::TapFn fn) {
    if (!PhaseClock::current()) return fn;
    return [inner = std::move(fn)](emu::Machine& m) {
        const ScopedPhase phase(Phase::harness);
        inner(m);
    };
}

void Original::on_return(const std::string& callee, emu::TapFn fn) {
    const std::uint32_t popped = callee_popped_bytes(profile_, callee);
    const std::size_t watcher = return_watchers_.size();
    return_watchers_.push_back(timed(std::move(fn)));
    machine_->tap(profile_.address_of(callee), [this, popped, watcher](emu::Machine& m) {
        const std::uint32_t esp = m.reg(emu::Reg::esp);
        const std::uint32_t ret = m.read_u32(esp);
        pending_.push_back({ret, esp + 4 + popped, watcher});
        if (!return_taps_.insert(ret).second) return;
        m.tap(ret, [this](emu::Machine& mm) {
            const std::uint32_t here = mm.reg(emu::Reg::eip), sp = mm.reg(emu::Reg::esp);
            // Returns of calls that were abandoned (a fault unwinding past them) are dropped.
            while (!pending_.empty() && pending_.back().esp < sp) pending_.pop_back();
            if (pending_.empty() || pending_.back().address != here || pending_.back().esp != sp) return;
            const std::size_t w = pending_.back().watcher;
            pending_.pop_back();
            return_watchers_[w](mm);
        });
    });
    tapped_.push_back(callee + " (entry and return)");
}

ojson Original::hooks_json() const {
    auto sorted = [](std::vector<std::string> v) {
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
        return v;
    };
    // A routine tapped at entry and also observed at entry and return is listed once, as the latter.
    std::vector<std::string> tapped;
    for (const auto& name : tapped_)
        if (std::find(tapped_.begin(), tapped_.end(), name + " (entry and return)") == tapped_.end())
            tapped.push_back(name);
    ojson hooks = {{"replaced", sorted(replaced_)}, {"tapped", sorted(tapped)}};
    // The routines the family called or watched (note_ran) are "ran" only where the coverage saw
    // their entry block execute: note_ran is said as a family sets its calls up, and a program case
    // listed op_choose as run with none of its blocks executed. Without coverage nothing says.
    const emu::Coverage& coverage = machine_->coverage();
    if (coverage.span().begin == coverage.span().end) {
        hooks["ran_unverified"] = sorted(ran_);
        return hooks;
    }
    std::vector<std::string> ran, not_run;
    for (const std::string& name : sorted(ran_)) {
        const auto it = profile_.routines.find(name);
        const bool executed =
            it != profile_.routines.end() && it->second.address && coverage.recorded(*it->second.address) > 0;
        (executed ? ran : not_run).push_back(name);
    }
    hooks["ran"] = ran;
    hooks["not_run"] = not_run;
    return hooks;
}

const std::vector<emu::FileAccess>& Original::file_accesses() const {
    static const std::vector<emu::FileAccess> none;
    const emu::DataRoot* root = const_cast<emu::Machine&>(*machine_).data_root();
    return root ? root->accesses() : none;
}

ojson Original::files_json() const {
    ojson out = ojson::array();
    const emu::DataRoot* root = const_cast<emu::Machine&>(*machine_).data_root();
    if (!root) return out;
    for (const auto& a : root->accesses())
        out.push_back({{"path", a.guest_path},
                       {"resolved", a.resolved},
                       {"mode", a.mode},
                       {"routine", a.routine},
                       {"bytes_read", a.bytes_read},
                       {"refused", a.refused}});
    return out;
}

} // namespace refcheck::harness
