// emudemo: loads the emu/ test image, calls a few of its routines (each calling convention, a
// file read through a data root it creates, a fault) and prints the results.
//
//   emudemo [--image PATH] [--out DIR]     exit 0 when every step behaved as expected, 1 if not,
//                                          2 on an error
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "refcheck/emu/machine.hpp"

using namespace refcheck::emu;

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
    std::printf("  [%s] %s\n", ok ? "ok" : "UNEXPECTED", what.c_str());
    failures += ok ? 0 : 1;
}

Address guest_string(Machine& m, const std::string& s) {
    Address at = m.heap().allocate(static_cast<uint32_t>(s.size() + 1), "emudemo", AllocationKind::heap);
    m.write(at, {reinterpret_cast<const uint8_t*>(s.c_str()), s.size() + 1});
    return at;
}

void conventions(Machine& m) {
    std::printf("calling conventions:\n");
    expect(m.call("add3_cdecl", Convention::cdecl, {1, 10, 100}).eax == 321,
           "cdecl add3_cdecl(1, 10, 100) = 321");
    expect(m.call("add3_stdcall", Convention::stdcall, {1, 10, 100}).eax == 321,
           "stdcall add3_stdcall(1, 10, 100) = 321");
    expect(m.call("add4_fastcall", Convention::fastcall, {1, 10, 100, 1000}).eax == 4321,
           "fastcall add4_fastcall(1, 10, 100, 1000) = 4321");
    expect(m.call("sum6_watcall", Convention::watcall, {1, 2, 3, 4, 5, 6}).eax == 91,
           "watcall sum6_watcall(1..6) = 91 (EAX, EDX, EBX, ECX, stack)");
    expect(m.reg(Reg::esp) == Machine::stack_top, "stack balanced after every call");
}

void file_read(Machine& m) {
    std::printf("file read through the data root %s:\n", m.data_root()->root().string().c_str());
    Address buf = m.heap().allocate(64, "emudemo", AllocationKind::heap);
    CallResult r =
        m.call("read_file", Convention::cdecl, {guest_string(m, "c:\\3ddata\\3dobjs.bin"), buf, 64});
    expect(r.ok() && r.eax == 13 && m.read_cstring(buf, 13) == "hello, guest!",
           "read_file(\"c:\\3ddata\\3dobjs.bin\") read 13 bytes: \"" + m.read_cstring(buf, 13) + "\"");
    r = m.call("read_file", Convention::cdecl, {guest_string(m, "C:\\..\\..\\etc\\passwd"), buf, 64});
    expect(static_cast<int>(r.eax) == -5,
           "read_file(\"C:\\..\\..\\etc\\passwd\") refused with ERROR_ACCESS_DENIED");
    for (const FileAccess& a : m.data_root()->accesses())
        std::printf("    access: %-24s -> %-20s %-5s %3llu bytes%s\n", a.guest_path.c_str(),
                    a.resolved.empty() ? "-" : a.resolved.c_str(), a.mode.c_str(),
                    static_cast<unsigned long long>(a.bytes_read), a.refused ? "  REFUSED" : "");
}

void fault(Machine& m) {
    std::printf("a fault is a result:\n");
    CallResult r = m.call("fault_read_unmapped", Convention::cdecl, {});
    expect(r.fault && r.fault->kind == FaultKind::read_unmapped &&
               r.fault->eip == m.image().require("fault_read_insn"),
           "fault_read_unmapped stops with read_unmapped at the exact instruction");
    if (r.fault) std::printf("%s", r.fault->report().c_str());
    expect(m.call("add3_cdecl", Convention::cdecl, {1, 1, 1}).eax == 6, "the machine runs the next call");
}

} // namespace

int main(int argc, char** argv) {
    std::string image = EMU_TEST_IMAGE;
    std::filesystem::path out = "emudemo-out";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--image") == 0)
            image = argv[i + 1];
        else if (std::strcmp(argv[i], "--out") == 0)
            out = argv[i + 1];
    }
    try {
        std::filesystem::path root = out / "data";
        std::filesystem::create_directories(root / "3DDATA");
        std::ofstream(root / "3DDATA" / "3DOBJS.BIN", std::ios::binary) << "hello, guest!";
        Machine m(MachineOptions{root});
        const Image& loaded = m.load(image);
        std::printf("emudemo: %s loaded at %s, %zu exports, %zu imports\n", image.c_str(),
                    hex(loaded.base).c_str(), loaded.exports.size(), loaded.imports.size());
        conventions(m);
        file_read(m);
        fault(m);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "emudemo: %s\n", e.what());
        return 2;
    }
    std::printf("emudemo: %s\n",
                failures == 0 ? "all steps behaved as expected" : "some steps did not behave as expected");
    return failures == 0 ? 0 : 1;
}
