// The real-image path end to end, on the second stand-in (fixture/: the same engine built like a
// 1998 retail image — mingw's CRT against msvcrt.dll, fopen/fread and malloc/free, no exports,
// stripped, at 0x10000000 where the guest heap would be, -O1): its profile imported from its map
// into the real-image template, every shipped case runs equivalent on the small archives after
// booting from the entry point to main, and the emulated loads went through msvcrt into a heap
// placed around the image.
#include "cli_support.hpp"

#include "refcheck/emu/machine.hpp"
#include "refcheck/harness/hash.hpp"

#include <fstream>
#include <functional>

namespace refcheck::cli_test {
namespace {

const fs::path kRetailImage = REFCHECK_CLI_RETAIL_IMAGE;
const fs::path kRetailMap = REFCHECK_CLI_RETAIL_MAP;

TEST(RetailStandIn, IsBuiltLikeARetailImage) {
    emu::Machine m;
    const emu::Image& image = m.load(kRetailImage);
    EXPECT_EQ(image.base, 0x10000000u);
    EXPECT_TRUE(image.exports.empty());
    EXPECT_TRUE(image.coff_symbols.empty());
    bool fopen = false, malloc = false, create_file = false;
    for (const auto& b : image.imports) {
        fopen = fopen || b.function == "fopen";
        malloc = malloc || b.function == "malloc";
        create_file = create_file || b.function == "CreateFileA";
    }
    EXPECT_TRUE(fopen && malloc);
    EXPECT_FALSE(create_file) << "its file access is msvcrt's";
    EXPECT_FALSE(m.heap().region().contains(image.base)) << "the heap goes around the image";
}

class RetailRun : public CliTest {
protected:
    // The retail stand-in's profile imported from its map (as a user would), then the small program
    // case run on the retail image under that profile changed by `edit` (written as NAME.profile.json,
    // the run's output in NAME/).
    Result run_program_with(const std::string& name, const std::function<void(ojson&)>& edit) {
        const fs::path imported = path("standin_retail.profile.json");
        if (!fs::exists(imported)) {
            const Result r =
                refcheck("profile import --map " + quote(kRetailMap) + " --template " + quote(kTemplate) +
                         " --image " + quote(kRetailImage) + " --out " + quote(imported));
            EXPECT_EQ(r.code, 0) << r.out << r.err;
        }
        ojson p = read_json(imported);
        edit(p);
        const fs::path edited = path(name + ".profile.json");
        std::ofstream(edited) << p.dump(2) << "\n";
        const fs::path program = write_case("small-program", small_program().to_json());
        return refcheck("run " + quote(program) + " --image " + quote(kRetailImage) + " --profile " +
                        quote(edited) + " --data " + quote(kSmallData) + " --out " + name);
    }
};

const fs::path kRetailProfile = REFCHECK_CLI_RETAIL_PROFILE;

// refcheck call on a stripped retail image: its routines are named only by the profile, which also
// gives their conventions and the boot (the entry point's start-up until main) run before the call.
// Without the profile the name is unknown (exit 2); --no-boot leaves the start-up out; a boot that
// never reaches its routine makes no call (exit 1, the routine "not called"); the profile of another
// image is refused (exit 2).
TEST_F(RetailRun, CallNamesRoutinesAndBootsThroughTheProfile) {
    const std::string common = quote(kRetailImage) + " initialise_3d_objects_ --data " + quote(kSmallData);
    const Result unnamed = refcheck("call " + common);
    EXPECT_EQ(unnamed.code, 2) << unnamed.out << unnamed.err;
    EXPECT_NE(unnamed.err.find("has no export or symbol named \"initialise_3d_objects_\""), std::string::npos)
        << unnamed.err;

    const ojson profile = read_json(kRetailProfile);
    std::string main_at, init_at;
    for (const auto& r : profile.at("routines")) {
        if (r.at("name") == "main") main_at = r.at("address").get<std::string>();
        if (r.at("name") == "initialise_3d_objects_") init_at = r.at("address").get<std::string>();
    }
    ASSERT_FALSE(main_at.empty() || init_at.empty());
    const Result booted = refcheck("call " + common + " --profile " + quote(kRetailProfile));
    EXPECT_EQ(booted.code, 0) << booted.out << booted.err;
    EXPECT_TRUE(booted.out.starts_with("boot: the entry point's start-up ran until main (" + main_at +
                                       "), reached\ncall initialise_3d_objects_ at " + init_at +
                                       " (watcall)\n"))
        << booted.out;
    EXPECT_NE(booted.out.find("returned: eax=0x00000000 (0)"), std::string::npos) << booted.out;
    // The file the guest opened, named by its SHA-256.
    EXPECT_NE(booted.out.find(
                  "-> 3DDATA/3DOBJS.BIN, 68,344 bytes read, 0 bytes written, by "
                  "initialise_3d_objects_, sha256 " +
                  harness::sha256_file(std::filesystem::path(kSmallData) / "3DDATA" / "3DOBJS.BIN") + "\n"),
              std::string::npos)
        << booted.out;
    EXPECT_NE(booted.out.find("msvcrt.dll!fopen"), std::string::npos) << booted.out;

    const Result unbooted = refcheck("call " + common + " --profile " + quote(kRetailProfile) + " --no-boot");
    EXPECT_EQ(unbooted.code, 0) << unbooted.out << unbooted.err;
    EXPECT_TRUE(unbooted.out.starts_with("call initialise_3d_objects_ at ")) << unbooted.out;

    const Result lost =
        refcheck("call " + common + " --profile " + quote(kRetailProfile) + " --boot-until draw_3d_object_");
    EXPECT_EQ(lost.code, 1) << lost.out << lost.err;
    EXPECT_NE(lost.out.find("boot: the entry point's start-up ran until draw_3d_object_ ("),
              std::string::npos)
        << lost.out;
    EXPECT_NE(lost.out.find(") and did not get there: process_exit: "), std::string::npos) << lost.out;
    EXPECT_NE(lost.out.find("\nnot called: call initialise_3d_objects_ at " + init_at), std::string::npos)
        << lost.out;
    EXPECT_EQ(lost.out.find("3DOBJS.BIN"), std::string::npos) << lost.out;

    const Result other = refcheck("call " + common + " --profile " + quote(kProfile));
    EXPECT_EQ(other.code, 2) << other.out << other.err;
    EXPECT_NE(other.err.find("belongs to another image"), std::string::npos) << other.err;
}

TEST_F(RetailRun, ImportedProfileRunsEveryShippedCaseEquivalent) {
    const fs::path profile = path("standin_retail.profile.json");
    const Result imported =
        refcheck("profile import --map " + quote(kRetailMap) + " --template " + quote(kTemplate) +
                 " --image " + quote(kRetailImage) + " --out " + quote(profile));
    ASSERT_EQ(imported.code, 0) << imported.out << imported.err;
    EXPECT_NE(imported.out.find(", 0 still missing"), std::string::npos) << imported.out;
    EXPECT_EQ(read_json(profile).at("image_sha256"), harness::sha256_file(kRetailImage));

    const Result r = refcheck("run --image " + quote(kRetailImage) + " --profile " + quote(profile) +
                              " --data " + quote(kSmallData) + " --out out");
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    const ojson index = read_json(path("out/run.json"));
    EXPECT_EQ(index.at("status"), "equivalent");
    // The original read its archives through msvcrt's fopen/fread: recorded like kernel32's.
    const ojson loader = read_json(path("out/loader.json"));
    EXPECT_NE(loader.dump().find("3DOBJS.BIN"), std::string::npos);
    // Every case booted: the entry point's CRT start-up ran until main before the initialiser.
    for (const auto& row : index.at("cases")) {
        const ojson report = read_json(path("out/" + row.at("report").get<std::string>()));
        ASSERT_TRUE(report.contains("boot")) << row.at("report");
        EXPECT_EQ(report.at("boot").at("entry_until"), "main");
    }
    // The stand-in's own profile belongs to the other image: refused.
    const Result wrong = refcheck("run " + quote(shipped_case("loader")) + " --image " + quote(kRetailImage) +
                                  " --data " + quote(kSmallData) + " --out wrong");
    EXPECT_EQ(wrong.code, 2) << wrong.out << wrong.err;
    EXPECT_NE(wrong.err.find("belongs to another image"), std::string::npos) << wrong.err;
}

// `refcheck call ROUTINE --profile P` places the arguments where P's "args" put them, as the cases
// do (Original::call): it passed them in the convention's order, so a routine whose profile names
// other registers ran under `call` on arguments the cases never give it, a misleading diagnosis.
// Here a profile that says initialise_3d_palette_ takes its warzone in EDX: 7 goes there, the image
// reads EAX (0) and builds warzone 0 (result 0); with the stand-in's own profile 7 is in EAX and
// refused (result 1).
TEST_F(RetailRun, CallPlacesArgumentsWhereTheProfileSays) {
    const std::string common =
        "call " + quote(kImage) + " initialise_3d_palette_ 7 --data " + quote(kSmallData) + " --profile ";
    const Result stock = refcheck(common + quote(kProfile));
    EXPECT_EQ(stock.code, 0) << stock.out << stock.err;
    EXPECT_NE(stock.out.find(" with 0x00000007 in eax (placed as the profile's \"args\" say)\n"),
              std::string::npos)
        << stock.out;
    EXPECT_NE(stock.out.find("returned: eax=0x00000001 (1)"), std::string::npos) << stock.out;

    ojson p = read_json(kProfile);
    for (auto& r : p.at("routines"))
        if (r.at("name") == "initialise_3d_palette_") r.at("args").at(0)["reg"] = "edx";
    const fs::path edited = path("warzone-in-edx.profile.json");
    std::ofstream(edited) << p.dump(2) << "\n";
    const Result moved = refcheck(common + quote(edited));
    EXPECT_EQ(moved.code, 0) << moved.out << moved.err;
    EXPECT_NE(moved.out.find(" with 0x00000007 in edx (placed as the profile's \"args\" say)\n"),
              std::string::npos)
        << moved.out;
    EXPECT_NE(moved.out.find("returned: eax=0x00000000 (0)"), std::string::npos) << moved.out;
}

// The registers a call passes its arguments in are the profile's, not the convention's order: the
// harness called every routine positionally (EAX, EDX, EBX, ECX for watcall), so a profile that
// said draw_3d_object_ takes its light in ECX and its state in EBX changed nothing and the run stayed
// equivalent. Here the profile misstates the image (which reads the light from EBX): the light the
// harness now passes in ECX is not where the image looks, its draw finds a null light and draws
// nothing, and the run diverges. A register the convention passes nothing in is the profile's error.
TEST_F(RetailRun, TheProfilesArgumentRegistersAreWhereTheHarnessPassesArguments) {
    auto run_with = [&](const std::string& name, const std::function<void(ojson&)>& edit) {
        return run_program_with(name, [&](ojson& p) {
            for (auto& r : p.at("routines"))
                if (r.at("name") == "draw_3d_object_") edit(r.at("args"));
        });
    };
    const Result same = run_with("same", [](ojson&) {});
    EXPECT_EQ(same.code, 0) << same.out << same.err;
    const Result swapped = run_with("swapped", [](ojson& args) {
        for (auto& a : args) {
            if (a.at("name") == "light") a["reg"] = "ecx";
            if (a.at("name") == "state") a["reg"] = "ebx";
        }
    });
    EXPECT_EQ(swapped.code, 1) << swapped.out << swapped.err;
    EXPECT_EQ(read_json(path("swapped/small-program.json")).at("status"), "divergent");
    const Result nowhere = run_with("nowhere", [](ojson& args) {
        for (auto& a : args)
            if (a.at("name") == "light") a["reg"] = "esi";
    });
    EXPECT_EQ(nowhere.code, 2) << nowhere.out << nowhere.err;
    const std::string error = read_json(path("nowhere/small-program.json")).value("error", "");
    EXPECT_NE(error.find("draw_3d_object_: argument \"light\" is in \"esi\", where a watcall call passes no "
                         "argument"),
              std::string::npos)
        << error;
}

// The structs the harness writes for the original are laid out as the profile's "structs" say: the
// camera, light, shadow and scene parameters were packed in the stand-in's layout whatever the
// profile said, so a profile that moved the light's direction or swapped the camera's fields ran
// equivalent. Here the profile misstates the image's light (its direction 4 bytes further in): the
// image reads the light the harness did not put there, and the run diverges. A field the harness
// writes that the profile lacks, or a field past the struct's size, is the profile's error.
TEST_F(RetailRun, TheProfilesStructLayoutsAreHowTheHarnessWritesStructs) {
    auto run_with = [&](const std::string& name, const std::function<void(ojson&)>& edit) {
        return run_program_with(name, [&](ojson& p) { edit(p.at("structs")); });
    };
    const Result same = run_with("same", [](ojson&) {});
    EXPECT_EQ(same.code, 0) << same.out << same.err;
    const ojson light = read_json(path("same.profile.json")).at("structs").at("light");
    ASSERT_EQ(light.at("size"), 12) << light.dump();
    const Result moved = run_with("moved", [](ojson& structs) {
        structs["light"]["size"] = 16;
        structs["light"]["fields"][0]["offset"] = 4;
    });
    EXPECT_EQ(moved.code, 1) << moved.out << moved.err;
    const Result past = run_with("past", [](ojson& structs) { structs["light"]["fields"][0]["offset"] = 4; });
    EXPECT_EQ(past.code, 2) << past.out << past.err;
    // Refused when the profile is read, before any case runs.
    EXPECT_NE(
        (past.out + past.err).find("light.dir: the field ends at byte 16, past the struct's \"size\", 12"),
        std::string::npos)
        << past.out << past.err;
    const Result renamed =
        run_with("renamed", [](ojson& structs) { structs["camera"]["fields"][1]["name"] = "rotation"; });
    EXPECT_EQ(renamed.code, 2) << renamed.out << renamed.err;
    EXPECT_NE(read_json(path("renamed/small-program.json"))
                  .value("error", "")
                  .find("camera.rot: the struct has no "
                        "such field"),
              std::string::npos);
}

} // namespace
} // namespace refcheck::cli_test
