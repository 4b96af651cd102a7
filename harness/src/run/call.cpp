#include "refcheck/harness/call.hpp"
#include "refcheck/harness/input_watch.hpp"

#include "refcheck/harness/coverage.hpp"
#include "refcheck/harness/hash.hpp"
#include "refcheck/harness/original.hpp"
#include "refcheck/harness/profile.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <sstream>

namespace refcheck::harness {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kImportLines = 200; // import calls listed one by one; the rest are counted

bool takes_string(std::string_view function) {
    return function == "CreateFileA" || function == "FindFirstFileA" || function == "OutputDebugStringA";
}

// One tap per import thunk: the call's arguments at the thunk (per the shim's convention), and
// EAX as the shim left it (the shim page's hook runs first: it was installed first).
void record_imports(emu::Machine& m, std::vector<ImportCall>& calls) {
    std::set<emu::Address> thunks;
    for (const emu::ImportBinding& b : m.image().imports) {
        if (emu::win32::find_data_import(b.dll, b.function) != nullptr) continue; // a variable
        if (!thunks.insert(b.thunk).second) continue;
        const emu::win32::Shim* shim = emu::win32::find_shim(b.dll, b.function);
        m.tap(b.thunk,
              [&calls, shim, name = b.dll + "!" + b.function, function = b.function](emu::Machine& mm) {
                  ImportCall c;
                  c.function = name;
                  c.shimmed = shim != nullptr;
                  const emu::Address ret = mm.read_u32(mm.reg(emu::Reg::esp));
                  c.returns_to = mm.symbols().describe(ret);
                  if (shim) {
                      const emu::Args args(mm, shim->convention, shim->arg_count);
                      for (unsigned i = 0; i < args.count(); ++i) c.args.push_back(args.u32(i));
                      if (takes_string(function) && args.count() > 0) c.text = args.cstring(0, 260);
                  }
                  c.result = mm.reg(emu::Reg::eax);
                  calls.push_back(std::move(c));
              });
    }
}

std::vector<std::uint8_t> parse_hex_bytes(std::string_view text, const std::string& whole) {
    std::vector<std::uint8_t> out;
    std::string digits;
    for (char ch : text)
        if (ch != ' ' && ch != '_') digits += ch;
    if (digits.empty() || digits.size() % 2 != 0)
        throw CallError(whole + ": hex:BYTES wants an even number of hex digits");
    for (std::size_t i = 0; i < digits.size(); i += 2) {
        unsigned v = 0;
        const auto [end, ec] = std::from_chars(digits.data() + i, digits.data() + i + 2, v, 16);
        if (ec != std::errc() || end != digits.data() + i + 2)
            throw CallError(whole + ": \"" + digits.substr(i, 2) + "\" is not a hex byte");
        out.push_back(static_cast<std::uint8_t>(v));
    }
    return out;
}

emu::Address place_bytes(emu::Machine& m, const std::vector<std::uint8_t>& bytes) {
    const emu::Address at =
        m.heap().allocate(static_cast<std::uint32_t>(std::max<std::size_t>(bytes.size(), 1)),
                          "refcheck call (argument)", emu::AllocationKind::heap);
    if (at == 0)
        throw CallError("the guest heap has no room for an argument of " + std::to_string(bytes.size()) +
                        " bytes");
    if (!bytes.empty()) m.write(at, bytes);
    return at;
}

// A profile routine of that name, with an address.
const ProfileRoutine* profile_routine(const Profile* profile, const std::string& name) {
    if (!profile) return nullptr;
    const auto it = profile->routines.find(name);
    return it != profile->routines.end() && it->second.address ? &it->second : nullptr;
}

// 0xADDRESS; a routine of the profile (its address moved with the image when it was loaded
// elsewhere than the profile's image_base); an export or COFF symbol.
emu::Address resolve_routine(const emu::Image& image, const Profile* profile, const std::string& routine) {
    if (routine.rfind("0x", 0) == 0 || routine.rfind("0X", 0) == 0) return parse_call_argument(routine);
    if (const ProfileRoutine* r = profile_routine(profile, routine))
        return *r->address + (profile->image_base ? image.base - profile->image_base : 0);
    if (auto a = image.address_of(routine)) return *a;
    throw CallError(image.path.filename().string() + " has no export or symbol named \"" + routine + "\"" +
                    (profile ? ", and the profile no routine of that name with an address" : ""));
}

std::vector<std::uint32_t> place_arguments(emu::Machine& m, const std::vector<std::string>& given) {
    std::vector<std::uint32_t> out;
    for (const auto& a : given) {
        if (a.rfind("str:", 0) == 0) {
            const std::string text = a.substr(4);
            std::vector<std::uint8_t> bytes(text.begin(), text.end());
            bytes.push_back(0);
            out.push_back(place_bytes(m, bytes));
        } else if (a.rfind("buf:", 0) == 0) {
            const std::uint32_t size = parse_call_argument(a.substr(4));
            if (size == 0 || size > (64u << 20)) throw CallError("buf:N wants 1 to 64 MiB, got " + a);
            out.push_back(place_bytes(m, std::vector<std::uint8_t>(size, 0)));
        } else if (a.rfind("hex:", 0) == 0) {
            out.push_back(place_bytes(m, parse_hex_bytes(std::string_view(a).substr(4), a)));
        } else if (a.rfind("file:", 0) == 0) {
            const fs::path file = a.substr(5);
            std::ifstream in(file, std::ios::binary);
            if (!in || !fs::is_regular_file(file)) throw CallError(a + ": cannot read " + file.string());
            std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                            std::istreambuf_iterator<char>());
            if (bytes.size() > (64u << 20)) throw CallError(a + ": more than 64 MiB");
            out.push_back(place_bytes(m, bytes));
        } else {
            out.push_back(parse_call_argument(a));
        }
    }
    return out;
}

// WHERE of --read/--string: ARGn, EAX or an address.
struct Where {
    enum class Kind { arg, eax, address } kind = Kind::address;
    std::uint32_t value = 0; // n, or the address
};

Where parse_where(const std::string& text, const std::string& spec) {
    std::string upper;
    for (char ch : text) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    if (upper == "EAX") return {Where::Kind::eax, 0};
    if (upper.rfind("ARG", 0) == 0) {
        unsigned n = 0;
        const auto [end, ec] = std::from_chars(upper.data() + 3, upper.data() + upper.size(), n);
        if (upper.size() == 3 || ec != std::errc() || end != upper.data() + upper.size())
            throw CallError(spec + ": ARGn wants a number (ARG0 is the first argument)");
        return {Where::Kind::arg, n};
    }
    try {
        return {Where::Kind::address, parse_call_argument(text)};
    } catch (const CallError&) {
        throw CallError(spec + ": WHERE is ARGn, EAX or an address");
    }
}

struct PendingRead {
    std::string spec;
    Where where;
    std::uint32_t length = 0;
    bool string = false;
};

std::vector<PendingRead> parse_reads(const CallRequest& r) {
    std::vector<PendingRead> out;
    for (const auto& spec : r.reads) {
        const auto colon = spec.rfind(':');
        if (colon == std::string::npos)
            throw CallError("--read " + spec + ": wants WHERE:LEN (ARG1:16, EAX:32, 0x10000000:64)");
        const std::uint32_t length = parse_call_argument(spec.substr(colon + 1));
        if (length == 0 || length > (1u << 20)) throw CallError("--read " + spec + ": LEN wants 1 to 1 MiB");
        out.push_back({spec, parse_where(spec.substr(0, colon), "--read " + spec), length, false});
    }
    for (const auto& spec : r.strings)
        out.push_back({spec, parse_where(spec, "--string " + spec), 4096, true});
    return out;
}

MemoryRead read_after(const emu::Machine& m, const PendingRead& p, const std::vector<std::uint32_t>& args,
                      const emu::Registers& regs) {
    MemoryRead out;
    out.spec = p.spec;
    out.string = p.string;
    switch (p.where.kind) {
        case Where::Kind::eax: out.address = regs.eax; break;
        case Where::Kind::address: out.address = p.where.value; break;
        case Where::Kind::arg:
            if (p.where.value >= args.size()) {
                out.error = "the call has " + std::to_string(args.size()) + " argument(s)";
                return out;
            }
            out.address = args[p.where.value];
            break;
    }
    for (std::uint32_t i = 0; i < p.length; ++i) {
        const emu::Address a = out.address + i;
        if (!m.is_mapped(a)) {
            if (i == 0 || !p.string) out.error = "not mapped at " + emu::hex(a);
            if (!p.string) out.bytes.clear();
            return out;
        }
        const std::uint8_t b = m.read_u8(a);
        if (p.string && b == 0) return out;
        out.bytes.push_back(b);
    }
    if (p.string) out.error = "no terminator within 4,096 bytes";
    return out;
}

} // namespace

std::uint32_t parse_call_argument(std::string_view text) {
    const std::string_view original = text;
    if (text.rfind("i32:", 0) == 0 || text.rfind("u32:", 0) == 0) {
        const bool is_signed = text[0] == 'i';
        const std::string_view value = text.substr(4);
        const bool negative = !value.empty() && value.front() == '-';
        if (!is_signed && negative) throw CallError("\"" + std::string(original) + "\": u32 is unsigned");
        const std::uint32_t v = parse_call_argument(value);
        const bool hex =
            value.find("0x") != std::string_view::npos || value.find("0X") != std::string_view::npos;
        if (is_signed && !negative && !hex && v > 0x7fffffffu)
            throw CallError("\"" + std::string(original) + "\" is out of the i32 range");
        return v;
    }
    const bool negative = !text.empty() && text.front() == '-';
    if (negative) text.remove_prefix(1);
    int base = 10;
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
        text.remove_prefix(2), base = 16;
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, base);
    const std::uint64_t limit = negative ? 0x80000000ull : 0xffffffffull;
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v > limit)
        throw CallError("\"" + std::string(original) +
                        "\" is not a 32-bit integer (decimal, -decimal, 0x hex, i32:, u32:), str:TEXT, "
                        "buf:N, hex:BYTES or "
                        "file:PATH");
    return static_cast<std::uint32_t>(negative ? 0 - v : v);
}

CallOutcome call_routine(const CallRequest& request) {
    CallOutcome out;
    std::optional<Profile> profile;
    const ProfileRoutine* named = nullptr;
    try {
        if (request.profile) profile = load_profile(*request.profile);
        named = profile_routine(profile ? &*profile : nullptr, request.routine);
        out.convention = parse_convention(!request.convention.empty() ? request.convention
                                          : named                     ? named->convention
                                                                      : "watcall");
    } catch (const ProfileError& e) {
        throw CallError(e.what());
    }
    emu::MachineOptions options;
    if (request.data) {
        if (!fs::is_directory(*request.data))
            throw CallError("data root not found: " + request.data->string());
        options.data_root = *request.data;
    }
    auto m = std::make_unique<emu::Machine>(options);
    try {
        m->load(request.image, request.base);
    } catch (const std::exception& e) {
        throw CallError("cannot load " + request.image.string() + ": " + e.what());
    }
    out.image_base = m->image().base;
    const Profile* p = profile ? &*profile : nullptr;
    if (p)
        if (const std::string mismatch = profile_image_mismatch(
                *p, request.profile->filename(), request.image.filename(), sha256_file(request.image));
            !mismatch.empty())
            throw CallError(mismatch);
    if (p)
        if (const std::string mismatch = profile_base_mismatch(
                *p, request.profile->filename(), request.image.filename(), m->image().preferred_base);
            !mismatch.empty())
            throw CallError(mismatch);
    if (p) // named in fault reports, coverage, import calls' return addresses and file accesses
        for (const auto& [name, r] : p->routines)
            if (r.address) m->symbols().add(name, resolve_routine(m->image(), p, name));
    const std::vector<PendingRead> reads = parse_reads(request);
    out.routine = request.routine;
    out.address = resolve_routine(m->image(), p, request.routine);
    const std::string boot = !request.boot_until.empty() ? request.boot_until
                             : p && !request.no_boot     ? p->boot_until
                                                         : std::string();
    emu::CallLimits limits; // the boot's and the call's
    limits.instruction_budget = request.budget;
    limits.wall_ms = request.wall_ms;
    // What the machine did, once the call (or a boot that did not get there) is over.
    const auto finish = [&](const std::vector<RoutineBlocks>& covered) {
        if (const emu::DataRoot* root = m->data_root()) out.files = root->accesses();
        GuestReads reads = InputWatch().guest_reads(out.files); // each file the guest read, by SHA-256
        out.file_sha256 = std::move(reads.sha256);
        out.file_problems = std::move(reads.problems);
        out.log = m->log().lines();
        out.coverage = coverage_json(covered, m->coverage(), request.image.filename().string());
    };
    if (!boot.empty()) {
        BootOutcome& b = out.boot.emplace();
        b.until = boot;
        b.address = resolve_routine(m->image(), p, boot);
        b.result = m->run_entry_until(b.address, limits);
        if (!b.result.ok()) { // the routine is not called on a start-up that did not get there
            out.called = false;
            out.result = b.result;
            out.registers = b.result.fault->registers;
            finish({});
            return out;
        }
    }
    out.args = place_arguments(*m, request.args);
    // The arguments where the profile's entry puts them, as a case's call does (Original::call):
    // they went in the convention's order, so a routine whose profile places them in other registers
    // ran here on different arguments than in the cases. A convention given on the command line
    // overrides the profile's, and its order with it.
    std::vector<std::uint32_t> placed = out.args;
    if (named && request.convention.empty() && !named->args.empty()) {
        try {
            placed = placed_arguments(*profile, *named, std::span<const std::uint32_t>(out.args));
        } catch (const ProfileError& e) {
            throw CallError(e.what());
        }
        static constexpr const char* kNames[] = {"eax", "ebx", "ecx", "edx", "esi",
                                                 "edi", "ebp", "esp", "eip", "eflags"}; // emu::Reg
        const auto regs = emu::info(out.convention).register_args;
        for (std::size_t i = 0; i < out.args.size(); ++i) {
            const std::string& reg = named->args[i].reg;
            out.placement.push_back(!reg.empty()      ? reg
                                    : i < regs.size() ? kNames[static_cast<std::size_t>(regs[i])]
                                                      : "stack");
        }
    }
    std::vector<RoutineBlocks> covered;
    if (m->image().is_code(out.address)) {
        covered = discover_routines(*m, {{request.routine, out.address}});
        enable_coverage(*m, covered);
    }
    record_imports(*m, out.imports);
    out.result = m->call(out.address, out.convention, std::span<const std::uint32_t>(placed), limits);
    out.registers = out.result.fault ? out.result.fault->registers : m->registers();
    // The import that trapped: its thunk's tap never ran (the trap stopped the run first).
    if (out.result.fault && out.result.fault->kind == emu::FaultKind::unimplemented_import) {
        const emu::Address thunk = out.result.fault->registers.eip;
        const std::string* name = m->symbols().name_at(thunk);
        if (name &&
            (out.imports.empty() || out.imports.back().function != *name || out.imports.back().shimmed)) {
            ImportCall c;
            c.function = *name;
            c.shimmed = false;
            c.returns_to = m->symbols().describe(m->read_u32(out.result.fault->registers.esp));
            out.imports.push_back(std::move(c));
        }
    }
    for (const auto& p : reads) out.reads.push_back(read_after(*m, p, out.args, out.registers));
    finish(covered);
    return out;
}

namespace {

std::string import_line(const ImportCall& c) {
    std::string line = c.function + "(";
    for (std::size_t i = 0; i < c.args.size(); ++i) line += (i ? ", " : "") + emu::hex(c.args[i]);
    line += ")";
    if (!c.text.empty()) line += " \"" + c.text + "\"";
    line += c.shimmed ? " -> " + emu::hex(c.result) : " (unimplemented: the run stopped)";
    return line + "  [returns to " + c.returns_to + "]";
}

void print_coverage(std::ostream& s, const ojson& coverage) {
    s << "coverage: " << coverage.value("executed", 0ull) << " of " << coverage.value("blocks", 0ull)
      << " basic blocks executed in the routine and the routines it calls\n";
    for (const auto& [name, r] : member(coverage, "routines").items()) {
        s << "  " << name << " (" << r.at("address").get<std::string>() << "): " << r.at("executed") << " of "
          << r.at("blocks");
        if (const auto& missed = r.at("missed"); !missed.empty()) {
            // Summarised: the first few, then how many more (the JSON coverage keeps them all).
            constexpr std::size_t shown = 6;
            s << ", " << missed.size() << " never executed (";
            for (std::size_t i = 0; i < missed.size() && i < shown; ++i)
                s << (i ? " " : "") << missed[i].get<std::string>();
            if (missed.size() > shown) s << " ... " << missed.size() - shown << " more";
            s << ")";
        }
        s << "\n";
    }
}

} // namespace

std::string call_report(const CallOutcome& o) {
    std::ostringstream s;
    if (o.boot) {
        s << "boot: the entry point's start-up ran until " << o.boot->until << " ("
          << emu::hex(o.boot->address) << ")";
        if (o.boot->result.ok())
            s << ", reached\n";
        else
            s << " and did not get there: " << emu::to_string(o.boot->result.fault->kind) << ": "
              << o.boot->result.fault->message << "\n";
    }
    if (!o.called) s << "not called: ";
    s << "call " << o.routine << " at " << emu::hex(o.address) << " (" << emu::to_string(o.convention) << ")";
    for (std::size_t i = 0; i < o.args.size(); ++i) {
        s << (i ? ", " : " with ") << emu::hex(o.args[i]);
        if (i < o.placement.size()) s << " in " << o.placement[i];
    }
    if (!o.placement.empty()) s << " (placed as the profile's \"args\" say)";
    s << "\n";
    s << "image base: " << emu::hex(o.image_base) << "\n";
    if (o.result.ok())
        s << "returned: eax=" << emu::hex(o.result.eax) << " (" << static_cast<std::int32_t>(o.result.eax)
          << "), edx:eax=0x" << emu::hex(o.result.edx).substr(2) << emu::hex(o.result.eax).substr(2) << "\n";
    else
        s << "fault: " << emu::to_string(o.result.fault->kind) << ": " << o.result.fault->message << "\n";
    if (o.result.instructions) s << "instructions: " << emu::with_commas(*o.result.instructions) << "\n";
    s << "registers: " << o.registers.to_string() << "\n";
    s << "files touched (" << o.files.size() << "):\n";
    for (std::size_t k = 0; k < o.files.size(); ++k) {
        const emu::FileAccess& f = o.files[k];
        s << "  " << (f.refused ? "refused" : f.mode) << " \"" << f.guest_path << "\""
          << (f.resolved.empty() ? "" : " -> " + f.resolved)
          << (f.error && !f.refused ? " (error " + std::to_string(f.error) + ")" : "") << ", "
          << emu::with_commas(f.bytes_read) << " bytes read, " << emu::with_commas(f.bytes_written)
          << " bytes written, by " << f.routine
          << (k < o.file_sha256.size() && !o.file_sha256[k].empty() ? ", sha256 " + o.file_sha256[k] : "")
          << "\n";
    }
    if (!o.file_problems.empty()) s << o.file_problems << "\n";
    std::map<std::string, std::size_t> per_function;
    for (const auto& c : o.imports) ++per_function[c.function];
    s << "import calls (" << o.imports.size() << "):";
    for (const auto& [f, n] : per_function) s << " " << f << " x" << n << ";";
    s << "\n";
    for (std::size_t i = 0; i < o.imports.size() && i < kImportLines; ++i)
        s << "  " << import_line(o.imports[i]) << "\n";
    if (o.imports.size() > kImportLines) s << "  ... and " << o.imports.size() - kImportLines << " more\n";
    print_coverage(s, o.coverage);
    for (const auto& r : o.reads) {
        s << (r.string ? "string " : "memory ") << r.spec << " at " << emu::hex(r.address);
        if (r.string) {
            s << ": \"";
            for (std::uint8_t b : r.bytes) {
                if (b == '"' || b == '\\')
                    s << '\\' << static_cast<char>(b);
                else if (b >= 0x20 && b < 0x7f)
                    s << static_cast<char>(b);
                else {
                    char esc[8];
                    std::snprintf(esc, sizeof esc, "\\x%02x", b);
                    s << esc;
                }
            }
            s << "\"";
            if (!r.error.empty()) s << " (" << r.error << ")";
            s << "\n";
            continue;
        }
        if (!r.error.empty()) {
            s << ": " << r.error << "\n";
            continue;
        }
        s << " (" << r.bytes.size() << " bytes):\n";
        for (std::size_t row = 0; row < r.bytes.size(); row += 16) {
            char line[16];
            std::snprintf(line, sizeof line, "  %08x ", r.address + static_cast<std::uint32_t>(row));
            s << line;
            std::string text;
            for (std::size_t i = row; i < row + 16 && i < r.bytes.size(); ++i) {
                char two[4];
                std::snprintf(two, sizeof two, " %02x", r.bytes[i]);
                s << two;
                text += r.bytes[i] >= 0x20 && r.bytes[i] < 0x7f ? static_cast<char>(r.bytes[i]) : '.';
            }
            s << std::string(3 * (16 - std::min<std::size_t>(16, r.bytes.size() - row)), ' ') << "  |" << text
              << "|\n";
        }
    }
    if (!o.log.empty()) {
        s << "log:\n";
        for (const auto& l : o.log) s << "  " << l << "\n";
    }
    if (o.result.fault) s << "fault report:\n" << o.result.fault->report() << "\n";
    return s.str();
}

} // namespace refcheck::harness
