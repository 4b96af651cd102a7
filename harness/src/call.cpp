#include "refcheck/harness/call.hpp"

#include "refcheck/harness/coverage.hpp"
#include "refcheck/harness/original.hpp"

#include <charconv>
#include <map>
#include <memory>
#include <set>
#include <sstream>

namespace refcheck::harness {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kImportLines = 200;  // import calls listed one by one; the rest are counted

bool takes_string(std::string_view function) {
    return function == "CreateFileA" || function == "FindFirstFileA" || function == "OutputDebugStringA";
}

// One tap per import thunk: the call's arguments at the thunk (per the shim's convention), and
// EAX as the shim left it (the shim page's hook runs first: it was installed first).
void record_imports(emu::Machine& m, std::vector<ImportCall>& calls) {
    std::set<emu::Address> thunks;
    for (const emu::ImportBinding& b : m.image().imports) {
        if (!thunks.insert(b.thunk).second) continue;
        const emu::win32::Shim* shim = emu::win32::find_shim(b.dll, b.function);
        m.tap(b.thunk, [&calls, shim, name = b.dll + "!" + b.function, function = b.function](emu::Machine& mm) {
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

emu::Address resolve_routine(const emu::Image& image, const std::string& routine) {
    if (routine.rfind("0x", 0) == 0 || routine.rfind("0X", 0) == 0) return parse_call_argument(routine);
    if (auto a = image.address_of(routine)) return *a;
    throw CallError(image.path.filename().string() + " has no export or symbol named \"" + routine + "\"");
}

std::vector<std::uint32_t> place_arguments(emu::Machine& m, const std::vector<std::string>& given) {
    std::vector<std::uint32_t> out;
    for (const auto& a : given) {
        if (a.rfind("str:", 0) == 0) {
            const std::string text = a.substr(4);
            const emu::Address at = m.heap().allocate(static_cast<std::uint32_t>(text.size() + 1), "refcheck call (argument)",
                                                      emu::AllocationKind::heap);
            std::vector<std::uint8_t> bytes(text.begin(), text.end());
            bytes.push_back(0);
            m.write(at, bytes);
            out.push_back(at);
        } else if (a.rfind("buf:", 0) == 0) {
            const std::uint32_t size = parse_call_argument(a.substr(4));
            if (size == 0 || size > (64u << 20)) throw CallError("buf:N wants 1 to 64 MiB, got " + a);
            const emu::Address at = m.heap().allocate(size, "refcheck call (argument)", emu::AllocationKind::heap);
            m.write(at, std::vector<std::uint8_t>(size, 0));
            out.push_back(at);
        } else {
            out.push_back(parse_call_argument(a));
        }
    }
    return out;
}

}  // namespace

std::uint32_t parse_call_argument(std::string_view text) {
    const std::string_view original = text;
    const bool negative = !text.empty() && text.front() == '-';
    if (negative) text.remove_prefix(1);
    int base = 10;
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) text.remove_prefix(2), base = 16;
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, base);
    const std::uint64_t limit = negative ? 0x80000000ull : 0xffffffffull;
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v > limit)
        throw CallError("\"" + std::string(original) +
                        "\" is not a 32-bit integer (decimal, -decimal or 0x hex), str:TEXT or buf:N");
    return static_cast<std::uint32_t>(negative ? 0 - v : v);
}

CallOutcome call_routine(const CallRequest& request) {
    CallOutcome out;
    try {
        out.convention = parse_convention(request.convention);
    } catch (const ProfileError& e) {
        throw CallError(e.what());
    }
    emu::MachineOptions options;
    if (request.data) {
        if (!fs::is_directory(*request.data)) throw CallError("data root not found: " + request.data->string());
        options.data_root = *request.data;
    }
    auto m = std::make_unique<emu::Machine>(options);
    try {
        m->load(request.image);
    } catch (const std::exception& e) {
        throw CallError("cannot load " + request.image.string() + ": " + e.what());
    }
    out.routine = request.routine;
    out.address = resolve_routine(m->image(), request.routine);
    out.args = place_arguments(*m, request.args);
    std::vector<RoutineBlocks> covered;
    if (m->image().is_code(out.address)) {
        covered = discover_routines(*m, {{request.routine, out.address}});
        enable_coverage(*m, covered);
    }
    record_imports(*m, out.imports);
    emu::CallLimits limits;
    limits.instruction_budget = request.budget;
    limits.wall_ms = request.wall_ms;
    out.result = m->call(out.address, out.convention, std::span<const std::uint32_t>(out.args), limits);
    out.registers = out.result.fault ? out.result.fault->registers : m->registers();
    if (const emu::DataRoot* root = m->data_root()) out.files = root->accesses();
    out.log = m->log().lines();
    out.coverage = coverage_json(covered, m->coverage(), request.image.filename().string());
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
        if (!r.at("missed").empty()) {
            s << ", never executed:";
            for (const auto& a : r.at("missed")) s << " " << a.get<std::string>();
        }
        s << "\n";
    }
}

}  // namespace

std::string call_report(const CallOutcome& o) {
    std::ostringstream s;
    s << "call " << o.routine << " at " << emu::hex(o.address) << " (" << emu::to_string(o.convention) << ")";
    for (std::size_t i = 0; i < o.args.size(); ++i) s << (i ? ", " : " with ") << emu::hex(o.args[i]);
    s << "\n";
    if (o.result.ok())
        s << "returned: eax=" << emu::hex(o.result.eax) << " (" << static_cast<std::int32_t>(o.result.eax)
          << "), edx:eax=0x" << emu::hex(o.result.edx).substr(2) << emu::hex(o.result.eax).substr(2) << "\n";
    else
        s << "fault: " << emu::to_string(o.result.fault->kind) << ": " << o.result.fault->message << "\n";
    if (o.result.instructions) s << "instructions: " << emu::with_commas(*o.result.instructions) << "\n";
    s << "registers: " << o.registers.to_string() << "\n";
    s << "files touched (" << o.files.size() << "):\n";
    for (const auto& f : o.files)
        s << "  " << (f.refused ? "refused" : f.mode) << " \"" << f.guest_path << "\""
          << (f.resolved.empty() ? "" : " -> " + f.resolved) << (f.error && !f.refused ? " (error " + std::to_string(f.error) + ")" : "")
          << ", " << emu::with_commas(f.bytes_read) << " bytes read, " << emu::with_commas(f.bytes_written)
          << " bytes written, by " << f.routine << "\n";
    std::map<std::string, std::size_t> per_function;
    for (const auto& c : o.imports) ++per_function[c.function];
    s << "import calls (" << o.imports.size() << "):";
    for (const auto& [f, n] : per_function) s << " " << f << " x" << n << ";";
    s << "\n";
    for (std::size_t i = 0; i < o.imports.size() && i < kImportLines; ++i) s << "  " << import_line(o.imports[i]) << "\n";
    if (o.imports.size() > kImportLines) s << "  ... and " << o.imports.size() - kImportLines << " more\n";
    print_coverage(s, o.coverage);
    if (!o.log.empty()) {
        s << "log:\n";
        for (const auto& l : o.log) s << "  " << l << "\n";
    }
    if (o.result.fault) s << "fault report:\n" << o.result.fault->report() << "\n";
    return s.str();
}

}  // namespace refcheck::harness
