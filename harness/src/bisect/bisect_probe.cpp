#include "bisect/bisect_probe.hpp"

#include "refcheck/emu/disasm.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

namespace refcheck::harness {

namespace {

// Whether `ret` directly follows a call instruction (call rel32 is 5 bytes, call r/m32 2 to 7).
bool follows_call(const emu::Machine& m, std::uint32_t ret) {
    static thread_local emu::Disassembler disassembler;
    for (std::uint32_t size = 2; size <= 7; ++size) {
        const std::uint32_t at = ret - size;
        if (!m.image().is_code(at)) continue;
        const auto decoded = disassembler.decode(m.read_bytes(at, size), at, 1);
        if (decoded.size() == 1 && decoded[0].size == size && decoded[0].text.rfind("call", 0) == 0)
            return true;
    }
    return false;
}

bool on_stack(const emu::Machine& m, std::uint32_t a, std::uint32_t esp) {
    return a >= esp && a >= m.stack().begin && std::uint64_t{a} + 8 <= m.stack().end;
}

// The slots holding return addresses by the EBP frame chain ([ebp + 4], then [ebp] is the caller's).
std::set<std::uint32_t> frame_chain(const emu::Machine& m) {
    std::set<std::uint32_t> slots;
    const std::uint32_t esp = m.reg(emu::Reg::esp);
    for (std::uint32_t ebp = m.reg(emu::Reg::ebp); on_stack(m, ebp, esp) && slots.size() < 256;) {
        slots.insert(ebp + 4);
        const std::uint32_t next = m.read_u32(ebp);
        if (next <= ebp) break;
        ebp = next;
    }
    return slots;
}

std::string where(const emu::Machine& m) { return m.symbols().describe(m.reg(emu::Reg::eip)); }

std::string routine_of(const emu::Machine& m, std::uint32_t address) {
    const auto start = m.symbols().start_of(address);
    const std::string* name = start ? m.symbols().name_at(*start) : nullptr;
    return name ? *name : "(no symbol)";
}

// Instructions per routine (the symbol at or below each address), in order of first execution.
std::vector<std::pair<std::string, std::uint64_t>>
routine_counts(const emu::Machine& m, const std::vector<std::uint32_t>& addresses) {
    std::vector<std::pair<std::string, std::uint64_t>> out;
    std::map<std::optional<std::uint32_t>, std::size_t> by_start; // symbol start -> index into out
    std::unordered_map<std::uint32_t, std::size_t> by_address;    // a cache: windows repeat addresses
    for (const std::uint32_t a : addresses) {
        auto cached = by_address.find(a);
        if (cached == by_address.end()) {
            auto [it, fresh] = by_start.try_emplace(m.symbols().start_of(a), out.size());
            if (fresh) out.emplace_back(routine_of(m, a), 0);
            cached = by_address.emplace(a, it->second).first;
        }
        ++out[cached->second].second;
    }
    return out;
}

std::string fold_line(const WindowItem& f) {
    return "... the last " + std::to_string(f.body) + " instruction" + (f.body == 1 ? "" : "s") + " repeat " +
           emu::with_commas(f.repeats) + " more time" + (f.repeats == 1 ? "" : "s") + " ...";
}

// The window as display lines: loops folded, then the first `head` and the last `tail` items with
// one line saying how many were left out between them (or before them, when the trace kept fewer
// instructions than were executed). Only the lines shown are disassembled.
std::vector<std::string> window_lines(const emu::Machine& m, const std::vector<std::uint32_t>& addresses,
                                      std::uint64_t executed, std::size_t head, std::size_t tail) {
    auto line = [&](const WindowItem& item) {
        if (item.body) return fold_line(item);
        const auto one = m.disassemble(item.address, 1);
        return one.empty() ? emu::hex(item.address) + ": (not decodable)" : one.front();
    };
    const std::vector<WindowItem> items = fold_repeats(addresses);
    const std::uint64_t lost = executed - addresses.size(); // older than the trace kept
    const std::string lost_text = emu::with_commas(lost) + " earlier instructions not kept by the trace";
    if (lost) head = 0;
    std::vector<std::string> out;
    if (items.size() <= head + tail) {
        if (lost) out.push_back("... " + lost_text + " ...");
        for (const auto& item : items) out.push_back(line(item));
        return out;
    }
    for (std::size_t i = 0; i < head; ++i) out.push_back(line(items[i]));
    out.push_back("... " + emu::with_commas(items.size() - head - tail) + " lines not shown" +
                  (lost ? " (and " + lost_text + ")" : "") + " ...");
    for (std::size_t i = items.size() - tail; i < items.size(); ++i) out.push_back(line(items[i]));
    return out;
}

} // namespace

std::vector<WindowItem> fold_repeats(const std::vector<std::uint32_t>& a) {
    constexpr std::size_t kLongestBody = 64;
    auto same = [&](std::size_t x, std::size_t y, std::size_t len) {
        return std::equal(a.begin() + static_cast<std::ptrdiff_t>(x),
                          a.begin() + static_cast<std::ptrdiff_t>(x + len),
                          a.begin() + static_cast<std::ptrdiff_t>(y));
    };
    std::vector<WindowItem> out;
    std::size_t p = 0;
    while (p < a.size()) {
        std::size_t body = 0;
        for (std::size_t len = 1; len <= kLongestBody && p + 2 * len <= a.size() && !body; ++len)
            if (a[p + len] == a[p] && same(p, p + len, len)) body = len;
        if (!body) {
            out.push_back({a[p++], 0, 0});
            continue;
        }
        std::size_t repeats = 1;
        while (p + (repeats + 2) * body <= a.size() && same(p, p + (repeats + 1) * body, body)) ++repeats;
        for (std::size_t k = 0; k < body; ++k) out.push_back({a[p + k], 0, 0});
        out.push_back({0, body, repeats});
        p += body * (repeats + 1);
    }
    return out;
}

std::vector<GuestFrame> scan_call_stack(const emu::Machine& m) {
    std::vector<GuestFrame> frames;
    const std::uint32_t eip = m.reg(emu::Reg::eip), esp = m.reg(emu::Reg::esp);
    frames.push_back({eip, m.symbols().describe(eip), "eip"});
    if (esp < m.stack().begin || esp >= m.stack().end) return frames;
    const std::set<std::uint32_t> chain = frame_chain(m);
    const bool at_entry = m.symbols().name_at(eip) != nullptr; // the routine's first instruction
    for (std::uint32_t slot = esp & ~3u; slot + 4 <= m.stack().end && frames.size() < 32; slot += 4) {
        const std::uint32_t v = m.read_u32(slot);
        if (v == emu::Machine::sentinel) break; // the harness's top-level call
        if (!m.image().is_code(v) || !follows_call(m, v)) continue;
        const char* how = at_entry && slot == esp ? "entry" : chain.count(slot) ? "ebp chain" : "stack scan";
        frames.push_back({v, m.symbols().describe(v), how});
    }
    return frames;
}

namespace {

// Whether the trace has already recorded the instruction the guest stands at, though it has not run:
// a hook that fires after the trace's own at that address (the winding taps at polygon_winding_'s
// return sites do) sees it last. A hook's instruction follows a call or a ret, never itself, so the
// last address recorded equals EIP only then.
bool traced_before_its_hook(const emu::Machine& m) {
    const emu::Trace& trace = m.trace();
    if (trace.total() == 0) return false;
    const auto last = trace.last(1);
    return !last.empty() && last.back() == m.reg(emu::Reg::eip);
}

} // namespace

WindowProbe::WindowProbe(std::size_t divergent, bool after_last_event, std::size_t capacity, std::size_t head,
                         std::size_t tail, std::optional<std::uint32_t> pixel)
    : divergent_(divergent), after_last_event_(after_last_event), capacity_(capacity), head_(head),
      tail_(tail), pixel_(pixel) {}

void WindowProbe::begin(Original& o) {
    if (tracing_ || closed_) return;
    last_event_.reset();
    const auto fb = o.profile().data.find("framebuffer");
    if (pixel_ && fb != o.profile().data.end() && *pixel_ < fb->second.size) {
        // A write of up to eight bytes holding the pixel starts at most seven bytes before it.
        const std::uint32_t at = o.address("framebuffer") + *pixel_;
        findings_.pixel_writes.emplace();
        pixel_watch_ = o.machine().watch(
            {at >= 7 ? at - 7 : 0, at + 1}, emu::Access::write,
            [this, at](emu::Machine& m, const emu::MemoryAccess& a) {
                if (at < a.address || at - a.address >= a.size || at - a.address >= 8) return;
                PixelWrites& w = *findings_.pixel_writes;
                ++w.count;
                if (w.last.size() == kPixelWritesKept) w.last.erase(w.last.begin());
                w.last.push_back({last_event_, a.eip, m.symbols().describe(a.eip),
                                  static_cast<std::uint8_t>(a.value >> (8 * (at - a.address)))});
            });
    }
    o.machine().enable_trace(capacity_);
    tracing_ = true;
    start_ = 0;
    findings_.from = "the start of the input's call";
    if (after_last_event_ || divergent_ == 0) findings_.window = true;
}

void WindowProbe::event(Original& o, std::size_t index) {
    if (!tracing_) return;
    last_event_ = index;
    if (closed_) return;
    if (after_last_event_ || index + 1 == divergent_) {
        start_here(o, index);
    } else if (index == divergent_) {
        stop_here(o);
        close(o,
              "the hook of the original's event #" + std::to_string(index) + " (" + where(o.machine()) + ")");
    }
}

void WindowProbe::end(Original& o) {
    if (!tracing_) return;
    if (!closed_)
        close(o, after_last_event_ ? "the return of the input's call"
                                   : "the return of the input's call (the original produced no event #" +
                                         std::to_string(divergent_) + ")");
    o.machine().disable_trace();
    tracing_ = false;
    if (pixel_watch_) {
        o.machine().remove_hook(*pixel_watch_);
        pixel_watch_.reset();
    }
}

void WindowProbe::streams(const std::vector<EventRecord>& original, const std::vector<EventRecord>& reimpl,
                          const std::vector<events::Event>& emitted) {
    findings_.original = original;
    findings_.reimpl = reimpl;
    findings_.emitted = emitted;
}

void WindowProbe::start_here(Original& o, std::size_t index) {
    emu::Machine& m = o.machine();
    start_ = m.trace().total();
    // The hook's instruction runs after the hook: in the window, though the trace may hold it already
    // (it was left out of windows opening at a winding tap, the divergent instruction among them).
    if (traced_before_its_hook(m)) --start_;
    findings_.window = true;
    findings_.from = "the hook of the original's event #" + std::to_string(index) + " (" + where(m) + ")";
    // A replaced routine's first instruction is traced after its hook although it never runs.
    skip_first_.reset();
    const ojson hooks = o.hooks_json();
    if (const std::string* name = m.symbols().name_at(m.reg(emu::Reg::eip)))
        for (const auto& r : member(hooks, "replaced"))
            if (r == *name) skip_first_ = m.reg(emu::Reg::eip);
}

void WindowProbe::stop_here(Original& o) {
    emu::Machine& m = o.machine();
    // The hook's instruction has not run: out of the window, though the trace may hold it already
    // (it was listed and counted in windows closing at a winding tap).
    drop_last_ = traced_before_its_hook(m);
    findings_.registers = m.registers();
    findings_.routine = where(m);
    findings_.stack = scan_call_stack(m);
    // The argument names of the profile routine the guest stopped at the entry of, by register.
    const std::uint32_t eip = m.reg(emu::Reg::eip);
    for (const auto& [name, r] : o.profile().routines) {
        if (!r.address || *r.address != eip) continue;
        for (const auto& a : r.args)
            if (a.reg != "stack") findings_.arguments.emplace_back(a.reg, a.name);
    }
}

void WindowProbe::close(Original& o, std::string to) {
    closed_ = true;
    findings_.to = std::move(to);
    if (!findings_.window) return;
    const emu::Trace& trace = o.machine().trace();
    const std::uint64_t traced = trace.total() - start_;
    auto addresses = trace.last(static_cast<std::size_t>(std::min<std::uint64_t>(traced, capacity_)));
    findings_.executed = traced;
    if (drop_last_ && !addresses.empty()) {
        addresses.pop_back();
        --findings_.executed;
    }
    if (skip_first_ && addresses.size() == findings_.executed && !addresses.empty() &&
        addresses.front() == *skip_first_) {
        addresses.erase(addresses.begin());
        --findings_.executed;
    }
    findings_.recorded = addresses.size();
    findings_.routines = routine_counts(o.machine(), addresses);
    findings_.lines = window_lines(o.machine(), addresses, findings_.executed, head_, tail_);
}

} // namespace refcheck::harness
