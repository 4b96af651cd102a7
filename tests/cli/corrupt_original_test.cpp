// A corrupt original is the original's failure, never the harness's: what the original builds or calls
// in a way no draw explains becomes a divergence or a fault of its call, and the run goes on.
// The audit behind these tests found an instance tree pointing back at itself walked 256 slots wide
// and 16 deep (the worker grew by 100 MB/s until the case timeout or the machine's memory ended it),
// and a face routine or draw_3d_object_ called from construct_3d_object_ killing the worker (and
// `refcheck bisect` itself) with SIGSEGV: the hooks read a draw's state that no draw had set up.
// A later one found a double free by the original answered FALSE and logged where no report showed
// it: the case stayed equivalent.
#include "cli_support.hpp"
#include "code_site.hpp"
#include "detour.hpp"

namespace refcheck::cli_test {
namespace {

class CorruptOriginalTest : public CliTest {
protected:
    // The shipped case `name` on the small archives with the detour's patches: it must diverge; its
    // report.
    ojson run_divergent(const std::string& name, const Detour& s, const std::vector<std::uint8_t>& code) {
        const Result r = refcheck("run " + quote(shipped_case(name)) + " --data " + quote(kSmallData) +
                                  " --out o" + detour_patches(s, code));
        EXPECT_EQ(r.code, 1) << r.out << r.err;
        ojson report = read_json(path("o/" + name + ".json"));
        EXPECT_EQ(report.at("status"), "divergent");
        return report;
    }
};

std::uint32_t instance_offset(const std::string& field) { return profile_offset("instance", field); }

// construct_3d_object_ returns an instance (in the framebuffer, which the construct family never
// reads) whose 256 child slots all hold the instance itself.
TEST_F(CorruptOriginalTest, AnInstanceTreeThatPointsBackAtItselfDivergesAtTheCycle) {
    const Detour s = detour_site("construct_3d_object_");
    std::vector<std::uint8_t> code;
    code.push_back(0xbf), put32(code, s.fb); // mov edi, instance
    code.insert(code.end(), {0xc7, 0x87}), put32(code, instance_offset("attach_count")),
        put32(code, 256); // mov dword [edi + attach_count], 256
    code.insert(code.end(), {0x8d, 0xbf}), put32(code, instance_offset("attach")); // lea edi, [edi + attach]
    code.push_back(0xb8), put32(code, s.fb);                                       // mov eax, instance
    code.push_back(0xb9), put32(code, 256);                                        // mov ecx, 256
    code.insert(code.end(), {0xf3, 0xab, 0xc3});                                   // rep stosd; ret
    const ojson report = run_divergent("construct", s, code);
    if (HasFailure()) return;
    // One instance per tree on the original's side (the root), its children each a cycle marker.
    const ojson metrics = report.at("metrics");
    EXPECT_EQ(metrics.at("instances").at("original"), metrics.at("records")) << metrics.dump();
    const ojson& d = report.at("first_unexplained");
    EXPECT_EQ(d.at("context").at("original_after").at(0).at("kind"), "instance_cycle") << d;
}

// The original calls a primary face routine from construct_3d_object_, outside any draw: the
// recorder's hook stops that call with a fault saying so (it dereferenced an empty frame stack).
TEST_F(CorruptOriginalTest, AFaceRoutineCalledOutsideADrawIsAFaultOfThatCall) {
    const Detour s = detour_site("construct_3d_object_");
    std::vector<std::uint8_t> code;
    const emu::Address face =
        find_instruction("draw_completely_visible_primary_face_", [](const emu::Instruction&) {
            return true;
        }).start;
    code.push_back(0xe8),
        put32(code, face - (s.at + static_cast<emu::Address>(code.size()) + 4)); // call face
    jump_to_body(code, s);
    const fs::path file = write_case("small-program", small_program().to_json());
    const Result r = refcheck("run " + quote(file) + " --data " + quote(kSmallData) + " --out o" +
                              detour_patches(s, code));
    ASSERT_EQ(r.code, 1) << r.out << r.err;
    const ojson report = read_json(path("o/small-program.json"));
    EXPECT_EQ(report.at("status"), "divergent");
    const ojson& d = report.at("first_unexplained");
    EXPECT_EQ(d.at("original").at("kind"), "fault") << d;
    EXPECT_NE(d.dump().find("called outside a draw_3d_object_ call"), std::string::npos) << d;
}

// The scene family's hooks alike: draw_3d_object_ called from construct_3d_object_, outside any
// draw_scene_.
TEST_F(CorruptOriginalTest, ADrawCalledOutsideAFrameIsAFaultOfThatCall) {
    const Detour s = detour_site("construct_3d_object_");
    std::vector<std::uint8_t> code;
    const emu::Address draw =
        find_instruction("draw_3d_object_", [](const emu::Instruction&) { return true; }).start;
    code.insert(code.end(), {0x50, 0x52, 0x53, 0x51});                         // push eax, edx, ebx, ecx
    code.insert(code.end(), {0x31, 0xc0, 0x31, 0xd2, 0x31, 0xdb, 0x31, 0xc9}); // null arguments
    code.push_back(0xe8), put32(code, draw - (s.at + static_cast<emu::Address>(code.size()) + 4));
    code.insert(code.end(), {0x59, 0x5b, 0x5a, 0x58}); // pop ecx, ebx, edx, eax
    jump_to_body(code, s);
    ojson scenes = read_json(shipped_case("scenes")); // its first script, one frame
    ojson script = scenes.at("selection").at("scene").at("scripts").at(0);
    script["frames"] = 1;
    scenes["selection"]["scene"]["scripts"] = ojson::array({script});
    const Result r =
        refcheck("run " + quote(write_case("one-frame", scenes)) + " --out o" + detour_patches(s, code));
    ASSERT_EQ(r.code, 1) << r.out << r.err;
    const ojson report = read_json(path("o/one-frame.json"));
    EXPECT_EQ(report.at("status"), "divergent");
    EXPECT_NE(report.at("first_unexplained").dump().find("called outside a draw_scene_ call"),
              std::string::npos)
        << report.at("first_unexplained");
}

// initialise_3d_objects_ allocates 16 bytes and frees them twice before its body loads the archives
// as ever. What a Windows heap does after a double free is unknown, so the call stops there: a
// heap_misuse fault of initialise_3d_objects_ naming the freed block, and the case is not equivalent.
TEST_F(CorruptOriginalTest, ADoubleFreeIsAFaultOfTheCallThatFreedTwice) {
    const Detour s = detour_site("initialise_3d_objects_");
    const auto entry = [](const std::string& routine) {
        return find_instruction(routine, [](const emu::Instruction&) { return true; }).start;
    };
    std::vector<std::uint8_t> code;
    const auto call = [&](emu::Address to) {
        code.push_back(0xe8), put32(code, to - (s.at + static_cast<emu::Address>(code.size()) + 4));
    };
    code.insert(code.end(), {0x6a, 0x10}); // push 16
    call(entry("heap_alloc"));
    code.insert(code.end(), {0x83, 0xc4, 0x04, 0x50}); // add esp, 4; push eax
    call(entry("heap_free"));
    call(entry("heap_free"));
    code.insert(code.end(), {0x83, 0xc4, 0x04}); // add esp, 4
    jump_to_body(code, s);
    const ojson report = run_divergent("loader", s, code);
    if (HasFailure()) return;
    ASSERT_EQ(report.at("faults").size(), 1u) << report.at("faults");
    const ojson& fault = report.at("faults").at(0);
    EXPECT_EQ(fault.at("kind"), "heap_misuse");
    EXPECT_EQ(fault.at("routine"), "initialise_3d_objects_");
    EXPECT_NE(fault.at("message").get<std::string>().find("of something that is not a live allocation"),
              std::string::npos)
        << fault;
    EXPECT_NE(
        fault.at("attribution").get<std::string>().find("16 bytes, made by initialise_3d_objects_, freed"),
        std::string::npos)
        << fault;
    EXPECT_NE(fault.at("stack").dump().find("heap_free"), std::string::npos) << fault;
    EXPECT_EQ(report.at("first_unexplained").at("original").at("kind"), "fault");
}

// initialise_3d_objects_ asks for 16 MiB, then for 504 MiB, before its body loads the archives as
// ever (ignoring both answers). The second request alone fits the emulator's 512 MiB heap, which
// refuses it only because it never reuses blocks; a real heap might have served it, so the case is
// an error naming the request, not a verdict. It was equivalent: the original went on without it.
TEST_F(CorruptOriginalTest, AnAllocationTheEmulatorsHeapRefusesForWantOfReuseLeavesNoVerdict) {
    const Detour s = detour_site("initialise_3d_objects_");
    const emu::Address alloc =
        find_instruction("heap_alloc", [](const emu::Instruction&) { return true; }).start;
    std::vector<std::uint8_t> code;
    for (const std::uint32_t size : {0x01000000u, 0x1f800000u}) {
        code.push_back(0x68), put32(code, size); // push size
        code.push_back(0xe8), put32(code, alloc - (s.at + static_cast<emu::Address>(code.size()) + 4));
        code.insert(code.end(), {0x83, 0xc4, 0x04}); // add esp, 4
    }
    jump_to_body(code, s);
    const Result r = refcheck("run " + quote(shipped_case("loader")) + " --data " + quote(kSmallData) +
                              " --out heap " + detour_patches(s, code));
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    const ojson report = read_json(path("heap/loader.json"));
    EXPECT_EQ(report.at("status"), "error");
    const std::string error = report.value("error", std::string());
    EXPECT_NE(error.find("refused initialise_3d_objects_'s request of 528482304 bytes"), std::string::npos)
        << error;
    EXPECT_NE(error.find("an emulator limit, not a verdict"), std::string::npos) << error;
}

} // namespace
} // namespace refcheck::cli_test
