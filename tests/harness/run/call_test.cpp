// refcheck call's logic: one routine of a PE32 under emu/ — arguments, return values, files
// touched, import calls with their arguments and results, coverage, and faults as results.
#include "refcheck/harness/call.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>

using namespace refcheck;
using namespace refcheck::harness;
namespace fs = std::filesystem;

namespace {

CallRequest request(const fs::path& image, const std::string& routine, std::vector<std::string> args,
                    const std::string& convention = "cdecl") {
    CallRequest r;
    r.image = image;
    r.routine = routine;
    r.args = std::move(args);
    r.convention = convention;
    return r;
}

const ImportCall* first_call(const CallOutcome& o, const std::string& function) {
    for (const auto& c : o.imports)
        if (c.function.size() >= function.size() &&
            c.function.compare(c.function.size() - function.size(), function.size(), function) == 0)
            return &c;
    return nullptr;
}

} // namespace

TEST(Call, ArgumentsParseAsDecimalNegativeOrHex) {
    EXPECT_EQ(parse_call_argument("10"), 10u);
    EXPECT_EQ(parse_call_argument("-1"), 0xffffffffu);
    EXPECT_EQ(parse_call_argument("0x1F"), 0x1fu);
    EXPECT_EQ(parse_call_argument("4294967295"), 0xffffffffu);
    EXPECT_EQ(parse_call_argument("-2147483648"), 0x80000000u);
    for (const char* bad : {"", "abc", "0x", "12z", "4294967296", "-2147483649", "--1"})
        EXPECT_THROW(parse_call_argument(bad), CallError) << bad;
}

TEST(Call, ConventionsAndReturnValuesOfTheTestImage) {
    EXPECT_EQ(call_routine(request(EMU_TEST_IMAGE, "add3_cdecl", {"1", "2", "3"})).result.eax, 14u);
    EXPECT_EQ(call_routine(request(EMU_TEST_IMAGE, "add3_stdcall", {"1", "2", "0x3"}, "stdcall")).result.eax,
              14u);
    EXPECT_EQ(
        call_routine(request(EMU_TEST_IMAGE, "add4_fastcall", {"1", "2", "3", "4"}, "fastcall")).result.eax,
        30u);
    EXPECT_EQ(call_routine(request(EMU_TEST_IMAGE, "sum6_watcall", {"1", "1", "1", "1", "1", "1"}, "watcall"))
                  .result.eax,
              21u);
    const CallOutcome m = call_routine(request(EMU_TEST_IMAGE, "mul64_cdecl", {"-3", "0x10000000"}));
    EXPECT_EQ(static_cast<std::int64_t>(m.result.edx_eax()), -3ll * 0x10000000);
    const std::string text = call_report(m);
    EXPECT_NE(text.find("edx:eax=0xffffffffd0000000"), std::string::npos) << text;
    // By address, the same routine.
    const CallOutcome a = call_routine(request(EMU_TEST_IMAGE, "add3_cdecl", {"1", "2", "3"}));
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%08x", a.address);
    EXPECT_EQ(call_routine(request(EMU_TEST_IMAGE, hex, {"1", "2", "3"})).result.eax, 14u);
}

TEST(Call, ImportCallsAreRecordedWithArgumentsAndResults) {
    const CallOutcome o = call_routine(request(EMU_TEST_IMAGE, "heap_alloc", {"24"}));
    ASSERT_TRUE(o.result.ok());
    const ImportCall* heap = first_call(o, "!GetProcessHeap");
    const ImportCall* alloc = first_call(o, "!HeapAlloc");
    ASSERT_NE(heap, nullptr);
    ASSERT_NE(alloc, nullptr);
    EXPECT_EQ(heap->result, emu::win32::process_heap_handle); // the shim's result, seen after it ran
    ASSERT_EQ(alloc->args.size(), 3u);
    EXPECT_EQ(alloc->args[0], emu::win32::process_heap_handle);
    EXPECT_EQ(alloc->args[2], 24u);
    EXPECT_EQ(alloc->result, o.result.eax);
    EXPECT_NE(alloc->returns_to.find("heap_alloc"), std::string::npos) << alloc->returns_to;
}

TEST(Call, FilesTouchedAndCoverageOfBothPaths) {
    const fs::path root = fs::path(testing::TempDir()) / "call-data";
    fs::create_directories(root / "DIR");
    std::ofstream(root / "DIR" / "HELLO.TXT", std::ios::binary) << "hello";
    CallRequest r = request(EMU_TEST_IMAGE, "read_file", {"str:dir\\hello.txt", "buf:64", "64"});
    r.data = root;
    const CallOutcome found = call_routine(r);
    EXPECT_EQ(found.result.eax, 5u);
    ASSERT_EQ(found.files.size(), 1u);
    EXPECT_EQ(found.files[0].resolved, "DIR/HELLO.TXT");
    EXPECT_EQ(found.files[0].bytes_read, 5u);
    const ImportCall* open = first_call(found, "!CreateFileA");
    ASSERT_NE(open, nullptr);
    EXPECT_EQ(open->text, "dir\\hello.txt");
    EXPECT_NE(first_call(found, "!ReadFile"), nullptr);

    r.args[0] = "str:dir\\missing.txt";
    const CallOutcome missing = call_routine(r);
    EXPECT_EQ(static_cast<std::int32_t>(missing.result.eax), -2); // -(ERROR_FILE_NOT_FOUND)
    EXPECT_EQ(first_call(missing, "!ReadFile"), nullptr);
    const auto executed = [](const CallOutcome& o) {
        return o.coverage["routines"]["read_file"]["executed"].get<int>();
    };
    EXPECT_GT(executed(found), executed(missing));
    EXPECT_EQ(found.coverage["routines"]["read_file"]["blocks"],
              missing.coverage["routines"]["read_file"]["blocks"]);
    const std::string text = call_report(found);
    EXPECT_NE(text.find("files touched (1):"), std::string::npos) << text;
    EXPECT_NE(text.find("\"dir\\hello.txt\""), std::string::npos) << text;
}

TEST(Call, AFaultIsAResultWithItsFullReport) {
    const CallOutcome o = call_routine(request(EMU_TEST_IMAGE, "fault_read_unmapped", {}));
    ASSERT_FALSE(o.result.ok());
    EXPECT_EQ(o.result.fault->kind, emu::FaultKind::read_unmapped);
    const std::string text = call_report(o);
    EXPECT_NE(text.find("fault: read_unmapped"), std::string::npos) << text;
    EXPECT_NE(text.find(o.result.fault->report()), std::string::npos) << text;
    EXPECT_EQ(o.registers.eip, o.result.fault->eip);
}

TEST(Call, TheStandInInitialisesFromTheSmallArchives) {
    CallRequest r = request(REFCHECK_STANDIN_EXE, "initialise_3d_objects_", {}, "watcall");
    r.data = REFCHECK_SMALL_DATA;
    const CallOutcome o = call_routine(r);
    ASSERT_TRUE(o.result.ok()) << call_report(o);
    EXPECT_EQ(o.result.eax, 0u);
    bool objects = false;
    for (const auto& f : o.files) objects |= f.resolved == "3DDATA/3DOBJS.BIN" && f.bytes_read > 0;
    EXPECT_TRUE(objects) << call_report(o);
    const ImportCall* open = first_call(o, "!CreateFileA");
    ASSERT_NE(open, nullptr);
    EXPECT_NE(open->text.find("3DOBJS.BIN"), std::string::npos);
    // The routine and the loaders it calls are covered.
    const ojson& routines = o.coverage["routines"];
    ASSERT_TRUE(routines.contains("initialise_3d_objects_"));
    EXPECT_TRUE(routines.contains("objects.c:load_objects"))
        << routines.dump(); // a static: named with its file
    EXPECT_GT(o.coverage["executed"].get<int>(), 10);
}

TEST(Call, UsageErrorsThrow) {
    EXPECT_THROW(call_routine(request(EMU_TEST_IMAGE, "no_such_routine", {})), CallError);
    EXPECT_THROW(call_routine(request(EMU_TEST_IMAGE, "add3_cdecl", {}, "pascal")), CallError);
    EXPECT_THROW(call_routine(request("/nonexistent.exe", "x", {})), CallError);
    EXPECT_THROW(call_routine(request(EMU_TEST_IMAGE, "add3_cdecl", {"str"})), CallError);
}

TEST(Call, TypedArguments) {
    EXPECT_EQ(parse_call_argument("i32:-5"), 0xfffffffbu);
    EXPECT_EQ(parse_call_argument("i32:0x80000000"), 0x80000000u);
    EXPECT_EQ(parse_call_argument("u32:4000000000"), 4000000000u);
    EXPECT_EQ(parse_call_argument("u32:0xffffffff"), 0xffffffffu);
    for (const char* bad : {"i32:3000000000", "u32:-1", "i32:", "u64:1", "hex:1"})
        EXPECT_THROW(parse_call_argument(bad), CallError) << bad;
}

// A string the routine returns, read back after the call (--string EAX), and bytes (--read).
TEST(Call, ReadsBackAReturnedString) {
    CallRequest r = request(EMU_TEST_IMAGE, "crt_copy_string", {"str:retail image"});
    r.strings = {"EAX", "ARG0"};
    r.reads = {"EAX:4"};
    const CallOutcome o = call_routine(r);
    ASSERT_TRUE(o.result.ok()) << o.result.fault->report();
    ASSERT_EQ(o.reads.size(), 3u);
    EXPECT_EQ(o.reads[0].spec, "EAX:4");
    EXPECT_EQ(o.reads[0].address, o.result.eax);
    EXPECT_EQ(std::string(o.reads[0].bytes.begin(), o.reads[0].bytes.end()), "reta");
    EXPECT_TRUE(o.reads[1].string);
    EXPECT_EQ(std::string(o.reads[1].bytes.begin(), o.reads[1].bytes.end()), "retail image");
    EXPECT_NE(o.reads[1].address, o.args[0]); // the copy, not the argument
    EXPECT_EQ(std::string(o.reads[2].bytes.begin(), o.reads[2].bytes.end()), "retail image");
    const std::string text = call_report(o);
    EXPECT_NE(text.find(": \"retail image\""), std::string::npos) << text;
    EXPECT_NE(text.find("|reta|"), std::string::npos) << text;
    // hex: and file: arguments are bytes in guest memory too.
    CallRequest h = request(EMU_TEST_IMAGE, "crt_copy_string", {"hex:41 42 00"});
    h.strings = {"EAX"};
    EXPECT_EQ(call_routine(h).reads.at(0).bytes, (std::vector<std::uint8_t>{'A', 'B'}));
    const fs::path file = fs::temp_directory_path() / ("refcheck-call-arg-" + std::to_string(::getpid()));
    std::ofstream(file, std::ios::binary) << std::string("from a file\0", 12);
    CallRequest f = request(EMU_TEST_IMAGE, "crt_copy_string", {"file:" + file.string()});
    f.strings = {"EAX"};
    const CallOutcome fo = call_routine(f);
    fs::remove(file);
    EXPECT_EQ(std::string(fo.reads.at(0).bytes.begin(), fo.reads.at(0).bytes.end()), "from a file");
    // Bad specifications are usage errors.
    for (const char* bad : {"EAX", "ARG:4", "EBX:4", "EAX:0"}) {
        CallRequest b = request(EMU_TEST_IMAGE, "crt_copy_string", {"str:x"});
        b.reads = {bad};
        EXPECT_THROW(call_routine(b), CallError) << bad;
    }
}

TEST(Call, TheImportThatTrappedIsListed) {
    const CallOutcome o = call_routine(request(EMU_TEST_IMAGE, "crt_calls_unshimmed", {}));
    ASSERT_TRUE(o.result.fault);
    ASSERT_FALSE(o.imports.empty());
    EXPECT_EQ(o.imports.back().function, "msvcrt.dll!puts");
    EXPECT_FALSE(o.imports.back().shimmed);
    EXPECT_NE(o.imports.back().returns_to.find("crt_calls_unshimmed"), std::string::npos)
        << o.imports.back().returns_to;
}

TEST(Call, RebasedImage) {
    CallRequest r = request(EMU_TEST_IMAGE, "name_at", {"1"});
    r.base = 0x01000000;
    r.strings = {"EAX"};
    const CallOutcome o = call_routine(r);
    ASSERT_TRUE(o.result.ok()) << o.result.fault->report();
    EXPECT_EQ(o.image_base, 0x01000000u);
    EXPECT_GE(o.address, 0x01000000u);
    EXPECT_EQ(std::string(o.reads.at(0).bytes.begin(), o.reads.at(0).bytes.end()), "beta");
    EXPECT_NE(call_report(o).find("image base: 0x01000000"), std::string::npos);
}
