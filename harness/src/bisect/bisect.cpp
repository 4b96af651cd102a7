// Bisect: the narrowed re-run of a divergent input with the probe, and the drill-down it yields.
#include "refcheck/harness/bisect.hpp"

#include "bisect/bisect_probe.hpp"
#include "family/families.hpp"

#include "refcheck/reimpl/disassembler.hpp"
#include "refcheck/reimpl/model_archive.hpp"
#include "refcheck/reimpl/palette.hpp"
#include "refcheck/reimpl/rasteriser.hpp"
#include "refcheck/reimpl/texture_archive.hpp"

#include <optional>

namespace refcheck::harness {

namespace fs = std::filesystem;

namespace {

// The event a divergence is about: the original's when it has one, else the reimplementation's.
const ojson& divergent_event(const ojson& d) {
    const ojson& o = member(d, "original");
    return o.is_object() ? o : member(d, "reimpl");
}

// Whether a divergence is about a whole frame (compared pixel for pixel), not one draw event.
bool is_frame(const ojson& d) {
    const ojson& kind = member(divergent_event(d), "kind");
    return kind.is_string() && kind.get<std::string>() == "frame";
}

// A fault is the same fault where it stopped the same code the same way (routine, kind, EIP, the
// code there and the calls that led to it): its registers, data address and message hold the
// state's addresses, which a narrowed re-run that constructs fewer instances places elsewhere on
// the heap (the same fault was "another event", and probed twice).
bool same_event(const ojson& kind, const ojson& a, const ojson& b) {
    if (kind != "original_fault") return a == b;
    const ojson &fa = member(a, "fields"), &fb = member(b, "fields");
    for (const char* k : {"routine", "fault", "eip", "disassembly", "stack"})
        if (member(fa, k) != member(fb, k)) return false;
    return member(a, "kind") == member(b, "kind");
}

bool same_divergence(const ojson& a, const ojson& b) {
    for (const char* k : {"kind", "input", "original_index", "reimpl_index", "reimpl", "fields"})
        if (member(a, k) != member(b, k)) return false;
    return same_event(member(a, "kind"), member(a, "original"), member(b, "original"));
}

struct Probed {
    CaseResult result;
    ProbeFindings findings;
    ojson divergence; // the narrowed re-run's first unexplained divergence (null when equivalent)
};

Probed probe_run(const Case& narrowed, const Environment& env, const Injection& injection, const ojson& d,
                 const DrillDownOptions& dd) {
    const bool frame = is_frame(d);
    // A fault of the original ends its call: the window runs from its last event before the fault
    // to the fault (as a frame's runs to the call's return). It ran to the hook of the original's
    // event #0, which a fault divergence names, and so stopped before the fault when the call had
    // recorded events first.
    const bool fault = member(d, "kind") == "original_fault";
    // A frame's first differing pixel: who wrote it (rows of 320, fb.size, as the frame compared).
    std::optional<std::uint32_t> pixel;
    if (const ojson& px = member(d, "pixel"); frame && px.is_object())
        pixel = px.at("y").get<std::uint32_t>() * static_cast<std::uint32_t>(reimpl::kFrameWidth) +
                px.at("x").get<std::uint32_t>();
    WindowProbe probe(d.value("original_index", std::size_t{0}), frame || fault, dd.trace_capacity,
                      dd.instructions_head, dd.instructions_tail, pixel);
    Probed p{run_case_with(narrowed, env, injection, narrowed.family == Family::Program ? &probe : nullptr),
             {},
             {}};
    if (p.result.status == Status::Error)
        throw std::runtime_error("the narrowed re-run failed: " +
                                 p.result.report.value("error", std::string("?")));
    p.findings = probe.findings();
    p.divergence = member(p.result.report, "first_unexplained");
    if (fault && p.findings.window) {
        const ojson& f = member(member(d, "original"), "fields");
        auto text = [&f](const char* key) {
            const ojson& v = member(f, key);
            return v.is_string() ? v.get<std::string>() : v.dump();
        };
        p.findings.to = "the original's fault (" + text("fault") + " at " + text("eip") + ")";
    }
    return p;
}

// The record and program offset the listing is centred on: the divergent event's own, else the
// reimplementation's event at the divergence (winding and attach events of the original carry no
// offset, nor does a fault), else the reimplementation's last event before it. The event index
// counts the events the harness compares, control-flow events among them.
struct PacketRef {
    std::uint32_t record = 0, offset = 0;
    std::string source;
};

// The record and offset of each event the harness compares: every event the reimplementation
// emitted, control flow included (convert_reimpl compares it as the original's state switches show
// it). Control flow was left out here, so an index past one pointed at a later event: the listing
// was centred in another record.
std::vector<PacketRef> compared_packets(const std::vector<events::Event>& raw) {
    std::vector<PacketRef> out;
    for (const auto& ev : raw) {
        std::visit(
            [&](const auto& e) {
                out.push_back({static_cast<std::uint32_t>(e.record), e.offset, {}});
            },
            ev);
    }
    return out;
}

std::optional<PacketRef> packet_of(const ojson& d, const ProbeFindings& f) {
    const ojson& fields = member(divergent_event(d), "fields");
    if (fields.contains("record") && fields.contains("offset"))
        return PacketRef{fields.at("record").get<std::uint32_t>(), fields.at("offset").get<std::uint32_t>(),
                         "the divergent event's packet"};
    const std::vector<PacketRef> reimpl = compared_packets(f.emitted);
    const std::size_t j = d.value("reimpl_index", std::size_t{0});
    PacketRef at;
    if (j < reimpl.size()) {
        at = reimpl[j];
        at.source = "the reimplementation's event at the divergence";
    } else if (j > 0 && j - 1 < reimpl.size()) {
        at = reimpl[j - 1];
        at.source = "the reimplementation's last event before the divergence";
    } else {
        return std::nullopt;
    }
    return at;
}

ojson listing_json(const Environment& env, const PacketRef& at, std::size_t context) {
    const auto models =
        reimpl::ModelArchive::parse(read_data_archive(env.data, "3DDATA\\3DOBJS.BIN", "3DOBJS.BIN"));
    const auto textures =
        reimpl::TextureArchive::parse(read_data_archive(env.data, "3DDATA\\OBJTEXT.BIN", "OBJTEXT.BIN"));
    const std::string text = reimpl::disassemble(reimpl::decode_program(models, at.record, &textures));
    return {{"record", at.record},
            {"offset", at.offset},
            {"centred_on", at.source},
            {"lines", listing_around(text, at.offset, context)}};
}

ojson registers_json(const ProbeFindings& f) {
    const emu::Registers& r = *f.registers;
    ojson values = ojson::object();
    const std::pair<const char*, emu::Reg> order[] = {
        {"eax", emu::Reg::eax}, {"ebx", emu::Reg::ebx},      {"ecx", emu::Reg::ecx}, {"edx", emu::Reg::edx},
        {"esi", emu::Reg::esi}, {"edi", emu::Reg::edi},      {"ebp", emu::Reg::ebp}, {"esp", emu::Reg::esp},
        {"eip", emu::Reg::eip}, {"eflags", emu::Reg::eflags}};
    for (const auto& [name, reg] : order) values[name] = emu::hex(r.get(reg));
    ojson arguments = ojson::object();
    for (const auto& [reg, name] : f.arguments) arguments[reg] = name;
    return {{"at", f.routine}, {"values", values}, {"arguments", arguments}};
}

// Where the other stream was when one side's event has no counterpart (FileCheck's near miss): the
// reimplementation's next event for a missing one, the original's next event for an extra one.
void add_near_miss(ojson& out, const ojson& d, const ProbeFindings& f) {
    const std::string kind = d.value("kind", std::string());
    const bool missing = kind == "missing_in_reimpl";
    if (!missing && kind != "extra_in_reimpl") return;
    const std::vector<EventRecord>& other = missing ? f.reimpl : f.original;
    const std::size_t at = d.value(missing ? "reimpl_index" : "original_index", std::size_t{0});
    if (at < other.size())
        out["near_miss"] = {
            {"side", missing ? "reimpl" : "original"}, {"index", at}, {"event", to_json(other[at])}};
}

// The probe's findings into the drill-down (program family).
void add_findings(ojson& out, const ProbeFindings& f, bool fault) {
    if (f.window) {
        ojson routines = ojson::array();
        for (const auto& [name, n] : f.routines) routines.push_back({{"routine", name}, {"instructions", n}});
        out["instructions"] = {{"from", f.from},         {"to", f.to},           {"executed", f.executed},
                               {"recorded", f.recorded}, {"routines", routines}, {"lines", f.lines}};
    }
    if (f.registers) {
        out["registers"] = registers_json(f);
        ojson stack = ojson::array();
        for (const auto& fr : f.stack)
            stack.push_back(
                {{"address", emu::hex(fr.address)}, {"symbol", fr.symbol}, {"found_by", fr.found_by}});
        out["call_stack"] = {{"method",
                              "a scan from ESP for return addresses that follow a call instruction; "
                              "\"ebp chain\" and \"entry\" frames are confirmed, \"stack scan\" ones "
                              "may be stale values in a live frame"},
                             {"frames", stack}};
    } else if (fault) {
        out["unavailable"].push_back(
            "registers and call stack at a hook: the original faulted; its registers, "
            "disassembly and stack at the fault are the fault event's fields");
    } else {
        out["unavailable"].push_back(
            "registers and call stack: the original produced no event at the divergence "
            "(no hook stopped the guest there)");
    }
}

// A frame divergence's pixel: who wrote it on each side. The original's writes are the probe's
// (a memory watch over the pixel during the input's call), each by the last event hooked before it.
// The reimplementation's: its events drawn again one face at a time, as the program family draws
// them (marked_frame, then each face_draw), on the frame and on a copy whose pixel differs; a face
// wrote the pixel when either copy's pixel changed (a write that leaves both as they were changed
// nothing, and is not seen). Each side's last write, or its background when none, must be the value
// the frame comparison saw: `accounts_for_value` says whether it is.
ojson pixel_json(const Environment& env, const ojson& d, const ProbeFindings& f) {
    const ojson& px = member(d, "pixel");
    const auto x = px.at("x").get<std::uint32_t>(), y = px.at("y").get<std::uint32_t>();
    const std::size_t p = std::size_t{y} * static_cast<std::size_t>(reimpl::kFrameWidth) + x;
    const reimpl::Frame background = marked_frame();
    const std::uint8_t before = p < background.pixels.size() ? background.pixels[p] : 0;
    auto event_of = [](const std::optional<std::size_t>& k, const std::vector<EventRecord>& stream) {
        ojson e = {{"event", k ? ojson(*k) : ojson(nullptr)}};
        if (k && *k < stream.size()) e["kind"] = std::string(stream[*k].kind.view());
        return e;
    };
    ojson out = {{"x", x}, {"y", y}};
    if (f.pixel_writes) {
        ojson last = ojson::array();
        for (const PixelWrite& w : f.pixel_writes->last) {
            ojson e = event_of(w.event, f.original);
            e["eip"] = emu::hex(w.eip);
            e["at"] = w.at;
            e["value"] = w.value;
            last.push_back(std::move(e));
        }
        const std::uint8_t value = px.at("original").get<std::uint8_t>();
        const std::uint8_t ends = f.pixel_writes->last.empty() ? before : f.pixel_writes->last.back().value;
        out["original"] = {{"value", value},
                           {"writes", f.pixel_writes->count},
                           {"last", last},
                           {"accounts_for_value", ends == value}};
    } else {
        out["unavailable"].push_back(
            "the original's writes: the profile's framebuffer does not hold the pixel");
    }
    if (p >= background.pixels.size()) return out;
    try {
        const auto palette = reimpl::build_palette(read_data_archive(env.data, "3DPAL.RGB", "3DPAL.RGB"), 0);
        const auto textures =
            reimpl::TextureArchive::parse(read_data_archive(env.data, "3DDATA\\OBJTEXT.BIN", "OBJTEXT.BIN"));
        const reimpl::Rasteriser rasteriser(palette, textures);
        reimpl::Frame frame = background, other = background;
        std::uint64_t writes = 0;
        ojson last = ojson::array();
        for (std::size_t k = 0; k < f.emitted.size(); ++k) {
            const auto* face = std::get_if<events::FaceDraw>(&f.emitted[k]);
            if (!face) continue;
            other.pixels = frame.pixels;
            other.pixels[p] = static_cast<std::uint8_t>(frame.pixels[p] ^ 0x80);
            const std::uint8_t a = frame.pixels[p], b = other.pixels[p];
            rasteriser.draw(*face, frame);
            rasteriser.draw(*face, other);
            if (frame.pixels[p] == a && other.pixels[p] == b) continue;
            ++writes;
            ojson e = event_of(k, f.reimpl);
            e["value"] = frame.pixels[p];
            if (last.size() == kPixelWritesKept) last.erase(last.begin());
            last.push_back(std::move(e));
        }
        const std::uint8_t value = px.at("reimpl").get<std::uint8_t>();
        out["reimpl"] = {{"value", value},
                         {"writes", writes},
                         {"last", last},
                         {"accounts_for_value", frame.pixels[p] == value}};
    } catch (const reimpl::FormatError& e) {
        out["unavailable"].push_back(std::string("the reimplementation's writes: ") + e.what());
    }
    return out;
}

// The program family's part: the listing around the packet, and from the probe (when the narrowed
// re-run reproduced the divergence) the near miss, the window, the registers and the call stack.
void add_program_details(ojson& out, const Environment& env, const ojson& d, const ProbeFindings& f,
                         bool reproduced, const DrillDownOptions& dd) {
    if (!is_frame(d)) {
        if (const auto at = packet_of(d, f)) {
            // Hostile data (an invalid-program case): the reimplementation's validator refuses the
            // record it would list. The drill-down says so and goes on; it used to end bisect with
            // that error (exit 2) before the window, so a divergent hostile case had none.
            try {
                out["listing"] = listing_json(env, *at, dd.listing_context);
            } catch (const reimpl::FormatError& e) {
                out["unavailable"].push_back(
                    std::string("listing: the reimplementation's validator refuses the "
                                "record: ") +
                    e.what());
            }
        } else
            out["unavailable"].push_back("listing: no event near the divergence names a packet");
    }
    if (!reproduced) {
        out["unavailable"].push_back(
            "instruction window, registers, call stack: the narrowed re-run does not diverge");
        return;
    }
    add_near_miss(out, d, f);
    add_findings(out, f, member(d, "kind") == "original_fault");
    if (is_frame(d) && member(d, "pixel").is_object()) out["pixel"] = pixel_json(env, d, f);
}

void add_unavailable(ojson& out, Family family, bool frame) {
    auto& u = out["unavailable"];
    switch (family) {
        case Family::Program:
            if (frame) u.push_back("listing: a frame is the whole input, not one packet");
            break;
        case Family::Shadow:
            u.push_back(
                "listing, instruction window, registers, call stack: a shadow frame is one event per input, "
                "drawn by the whole call (no event inside it to start a window from)");
            break;
        case Family::Mobile:
        case Family::Receiver:
        case Family::Loader:
        case Family::Palette:
        case Family::Construct:
            u.push_back(
                "listing, instruction window, registers, call stack: this family's events are read from the "
                "original's memory after its call returns (no hook marks them inside it)");
            break;
        default:
            u.push_back(
                "listing, instruction window, registers, call stack: the probe watches only the program "
                "family's draw call");
    }
}

} // namespace

std::string shell_quote(const std::string& text) {
    const bool plain =
        !text.empty() && text.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                "0123456789_./:+=,-") == std::string::npos;
    if (plain) return text;
    std::string out = "'";
    for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

namespace {
// A path's last name, a trailing separator ignored ("data/small/": "small"; its filename() is "",
// and the reproduce line read `--data ''`).
std::string last_name(const fs::path& p) {
    const fs::path n = p.lexically_normal();
    return (n.has_filename() ? n.filename() : n.parent_path().filename()).string();
}

// `program run CASE` with the options that reproduce the run, each file named by `file`.
template <typename NameFile>
std::string run_command_line(const std::string& program, const Case& c, const RunOptions& o,
                             const std::string& input, NameFile file) {
    std::string cmd = program + " run " + file(c.file);
    if (!input.empty()) cmd += " --only " + shell_quote(input);
    if (o.image) cmd += " --image " + file(*o.image);
    if (o.profile) cmd += " --profile " + file(*o.profile);
    if (o.data) cmd += " --data " + file(*o.data);
    for (const Patch& p : o.injection.patches) cmd += " --patch " + shell_quote(p.text());
    if (o.injection.reimpl_light_swapped) cmd += " --inject-reimpl-light-swap";
    return cmd + " --out out/bisect";
}
} // namespace

std::string reproduce_command(const Case& c, const RunOptions& o, const std::string& input, bool host_paths) {
    return run_command_line("refcheck", c, o, input, [&](const fs::path& p) {
        return shell_quote(host_paths ? p.string() : last_name(p));
    });
}

std::string pasteable_command(const Case& c, const RunOptions& o, const std::string& input) {
    // Inside the project's tree a file is named from its root (no host path enters the report);
    // elsewhere by its file name, as the report names it.
    const fs::path root = fs::weakly_canonical(REFCHECK_SOURCE_DIR);
    return run_command_line(REFCHECK_EXECUTABLE_FROM_ROOT, c, o, input, [&](const fs::path& p) {
        const fs::path whole = fs::weakly_canonical(fs::absolute(p));
        const fs::path rel = whole.lexically_relative(root);
        const bool inside = !rel.empty() && *rel.begin() != "..";
        return shell_quote(inside ? rel.string() : last_name(p));
    });
}

ojson drill_down(const Case& c, const RunOptions& options, const ojson& divergence,
                 const DrillDownOptions& dd) {
    const std::string input = divergence.at("input").get<std::string>();
    const Environment env = resolve_environment(c, options);
    Case narrowed = c;
    narrowed.only = input;
    Probed p = probe_run(narrowed, env, options.injection, divergence, dd);
    const bool confirmed = p.divergence.is_object() && same_divergence(p.divergence, divergence);
    ojson out;
    out["input"] = input;
    out["confirmed"] = confirmed;
    if (p.divergence.is_object() && !confirmed) {
        out["note"] = "the narrowed re-run diverges at another event than the whole case; shown is its own";
        p = probe_run(narrowed, env, options.injection, p.divergence, dd);
    } else if (!p.divergence.is_object()) {
        out["note"] =
            "the narrowed re-run is equivalent: the divergence needs the case's earlier inputs; shown is "
            "the whole case's divergence, and the reproduce line runs the whole case";
    }
    const bool reproduced = p.divergence.is_object();
    out["reproduced_alone"] = reproduced;
    const ojson& d = reproduced ? p.divergence : divergence;
    out["divergence"] = d;
    out["unavailable"] = ojson::array();
    if (c.family == Family::Program) add_program_details(out, env, d, p.findings, reproduced, dd);
    add_unavailable(out, c.family, is_frame(d));
    out["reproduce"] = reproduce_command(c, options, reproduced ? input : std::string(), dd.host_paths);
    if (!dd.host_paths) out["reproduce_files"] = "by file name, as the report names its inputs";
    out["reproduce_pasteable"] = pasteable_command(c, options, reproduced ? input : std::string());
    return out;
}

void attach_drill_down(CaseResult& result, const Case& c, const RunOptions& options) {
    const ojson& d = member(result.report, "first_unexplained");
    if (!d.is_object()) return;
    try {
        DrillDownOptions dd;
        dd.host_paths = false;
        result.report["bisect"] = drill_down(c, options, d, dd);
    } catch (const std::exception& e) {
        result.report["bisect"] = {{"error", e.what()}};
    }
}

} // namespace refcheck::harness
