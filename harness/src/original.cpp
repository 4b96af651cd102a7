#include "refcheck/harness/original.hpp"

#include "refcheck/emu/disasm.hpp"

#include <algorithm>
#include <cstdio>
#include <set>

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

Original::Original(const Environment& env, const Profile& profile) : profile_(profile) {
    emu::MachineOptions options;
    options.data_root = env.data;
    machine_ = std::make_unique<emu::Machine>(options);
    machine_->load(env.image);
    for (const auto& [name, r] : profile_.routines)
        if (r.address) machine_->symbols().add(name, *r.address);
}

emu::CallResult Original::call(const std::string& routine, std::initializer_list<std::uint32_t> args,
                               std::uint32_t wall_ms) {
    const ProfileRoutine& r = profile_.routine(routine);
    emu::CallLimits limits;
    limits.wall_ms = wall_ms;
    emu::CallResult result = machine_->call(profile_.address_of(routine), parse_convention(r.convention),
                                            std::span<const std::uint32_t>(args.begin(), args.size()), limits);
    if (result.fault) faults_.push_back(to_json(*result.fault));
    return result;
}

std::uint32_t Original::u32(const std::string& global, std::uint32_t index) const {
    return machine_->read_u32(profile_.address_of(global) + 4 * index);
}

std::vector<std::uint8_t> Original::bytes(std::uint32_t address, std::size_t size) const {
    return machine_->read_bytes(address, size);
}

std::uint32_t Original::scratch(std::uint32_t size) {
    return machine_->heap().allocate(size, "refcheck (harness inputs)", emu::AllocationKind::heap);
}

emu::HookId Original::replace(const std::string& routine, unsigned nargs, emu::ReplaceFn fn) {
    replaced_.push_back(routine);
    return machine_->replace(profile_.address_of(routine), parse_convention(profile_.routine(routine).convention),
                             nargs, std::move(fn));
}

emu::HookId Original::tap(const std::string& routine, emu::TapFn fn) {
    tapped_.push_back(routine);
    return machine_->tap(profile_.address_of(routine), std::move(fn));
}

std::size_t Original::tap_returns(const std::string& callee, emu::TapFn fn) {
    const std::uint32_t target = profile_.address_of(callee);
    char want[24];
    std::snprintf(want, sizeof want, "call 0x%x", target);  // Capstone's spelling of a direct call
    if (call_sites_.empty()) {
        emu::Disassembler dis;
        for (const auto& section : machine_->image().sections) {
            if (!section.executable) continue;
            const std::uint32_t size = std::max(section.data_size, 1u);
            const auto code = machine_->read_bytes(section.range.begin, std::min(size, section.range.size()));
            // Linear sweep; skip a byte where decoding stops (padding or data) and go on.
            std::size_t at = 0;
            while (at < code.size()) {
                const auto span = std::span<const std::uint8_t>(code).subspan(at);
                const auto ins = dis.decode(span, section.range.begin + static_cast<std::uint32_t>(at));
                for (const auto& i : ins)
                    if (i.text.rfind("call 0x", 0) == 0) call_sites_.emplace_back(i.text, i.address + i.size);
                std::size_t used = 0;
                for (const auto& i : ins) used += i.size;
                at += used ? used : 1;
            }
        }
    }
    std::size_t taps = 0;
    for (const auto& [text, return_address] : call_sites_)
        if (text == want) {
            machine_->tap(return_address, fn);
            ++taps;
        }
    tapped_.push_back(callee + " (return sites: " + std::to_string(taps) + ")");
    return taps;
}

ojson Original::hooks_json() const {
    auto sorted = [](std::vector<std::string> v) {
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
        return v;
    };
    return {{"replaced", sorted(replaced_)}, {"tapped", sorted(tapped_)}, {"ran", sorted(ran_)}};
}

ojson Original::files_json() const {
    ojson out = ojson::array();
    const emu::DataRoot* root = const_cast<emu::Machine&>(*machine_).data_root();
    if (!root) return out;
    for (const auto& a : root->accesses())
        out.push_back({{"path", a.guest_path}, {"resolved", a.resolved}, {"mode", a.mode}, {"routine", a.routine},
                       {"bytes_read", a.bytes_read}, {"refused", a.refused}});
    return out;
}

}  // namespace refcheck::harness
