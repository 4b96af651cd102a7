// Bisect's probe on the original's side of one input (the narrowed re-run, never a default run):
// the instruction window between the last event before the divergent one and the divergent one,
// the registers at the hook that records the divergent event (a face routine's call, a return of
// polygon_winding_, an entry of draw_attached_object_), and the guest call stack there.
//
// The trace is emu's per-instruction trace over the image's code, on only for the selected input's
// top-level call; the window is the part of it between the two event hooks, cut by instruction
// count (so it is exact: enabling a code hook while a translated block runs would miss the rest of
// that block).
#pragma once

#include "family/families.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace refcheck::harness {

// One frame of the guest call stack, innermost first: frame 0 is where the guest stopped.
struct GuestFrame {
    std::uint32_t address = 0; // EIP for frame 0, a return address for the others
    std::string symbol;        // "op_secondary+0x75"
    std::string found_by;      // "eip", "entry" (the return address at ESP on a routine's first
                               // instruction), "ebp chain", or "stack scan" (possibly stale)
};

// The stack from ESP up to the return address of the harness's top-level call: every slot holding
// an address in the image's code that directly follows a call instruction, each marked by whether
// the EBP frame chain (or the routine-entry return slot) confirms it. A scan, not an unwinder: a
// stale return address left in a live frame's locals is listed as "stack scan".
std::vector<GuestFrame> scan_call_stack(const emu::Machine& machine);

// An instruction window folded for display: one item per address, except that a run of
// instructions repeated back to back (a loop body of up to 64 instructions) is kept once, followed
// by one item saying how often it repeats ("... the last N instructions repeat K more times ...").
struct WindowItem {
    std::uint32_t address = 0;
    std::size_t body = 0, repeats = 0; // a fold item when body != 0
};
std::vector<WindowItem> fold_repeats(const std::vector<std::uint32_t>& addresses);

// A write of the original's code to the watched pixel of a frame divergence.
struct PixelWrite {
    std::optional<std::size_t> event; // the original's last event hooked before it (none: before the first)
    std::uint32_t eip = 0;            // the writing instruction
    std::string at;                   // its symbol ("plot+0x58")
    std::uint8_t value = 0;           // the pixel's byte as written
};
struct PixelWrites {
    std::uint64_t count = 0;      // every write during the input's call
    std::vector<PixelWrite> last; // the last kPixelWritesKept of them, in order
};
inline constexpr std::size_t kPixelWritesKept = 16;

struct ProbeFindings {
    // The window: instructions executed from the hook of event #(divergent - 1) (or from the call's
    // start when the divergent event is the first) to the hook of the divergent event (or to the
    // call's return when the original produced no such event).
    bool window = false;
    std::uint64_t executed = 0;     // instructions in the window
    std::uint64_t recorded = 0;     // of those, the last ones the trace kept
    std::vector<std::string> lines; // disassembled with symbols; loops folded, the middle elided
    std::vector<std::pair<std::string, std::uint64_t>> routines; // instructions per routine, by first use
    std::string from, to;                                        // where the window starts and ends, in words
    // At the hook of the divergent event (absent when the original produced none).
    std::optional<emu::Registers> registers;
    std::string routine; // the routine the guest stopped in ("name+0x..")
    std::vector<std::pair<std::string, std::string>> arguments; // register -> profile argument name
    std::vector<GuestFrame> stack;
    // A frame divergence's pixel: the original's writes to it during the input's call (absent when
    // no pixel was watched, or the framebuffer the profile gives does not hold it).
    std::optional<PixelWrites> pixel_writes;
    // The input's compared streams and the reimplementation's events as emitted.
    std::vector<EventRecord> original, reimpl;
    std::vector<events::Event> emitted;
};

class WindowProbe final : public InputProbe {
public:
    // `divergent`: index of the divergent event in the original's stream of the input. With
    // `after_last_event` (a frame divergence) the window runs from the original's last event of the
    // input to the call's return. `capacity` window instructions are kept; `head` of them are
    // shown from its start and `tail` before its end. `pixel` (a frame divergence's, as a byte
    // offset in the framebuffer): every write of the guest to it during the call is recorded with
    // the instruction and the last event hooked before it (a memory watch, this run only).
    WindowProbe(std::size_t divergent, bool after_last_event, std::size_t capacity, std::size_t head,
                std::size_t tail, std::optional<std::uint32_t> pixel = std::nullopt);
    void begin(Original& original) override;
    void event(Original& original, std::size_t index) override;
    void end(Original& original) override;
    void streams(const std::vector<EventRecord>& original, const std::vector<EventRecord>& reimpl,
                 const std::vector<events::Event>& emitted) override;
    const ProbeFindings& findings() const { return findings_; }

private:
    void start_here(Original& original, std::size_t index);
    void stop_here(Original& original);
    void close(Original& original, std::string to);
    std::size_t divergent_;
    bool after_last_event_;
    std::size_t capacity_, head_, tail_;
    bool tracing_ = false, closed_ = false;
    std::uint64_t start_ = 0;
    std::optional<std::uint32_t> skip_first_; // a replaced routine's entry, recorded though it never ran
    bool drop_last_ = false; // the closing hook's instruction, recorded before its hook though not run
    std::optional<std::uint32_t> pixel_;
    std::optional<emu::HookId> pixel_watch_;
    std::optional<std::size_t> last_event_; // the original's last event hooked in the input's call
    ProbeFindings findings_;
};

} // namespace refcheck::harness
