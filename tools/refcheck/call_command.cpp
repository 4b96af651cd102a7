// refcheck call IMAGE ROUTINE [ARGS...]: runs one routine of any PE32 image under emulation and prints
// its return value, registers, files touched, import calls, coverage and, on a fault, the fault
// report. Exit 0 on a clean return, 1 on a fault, 2 on a usage error.
#include "command.hpp"

#include "refcheck/harness/call.hpp"

#include <iostream>

namespace refcheck::cli {

const Command& call_command() {
    static const Command command{
        "call", "Run one routine of a PE32 image under emulation and show what it did",
        [](CLI::App& app) -> std::function<int()> {
            auto r = std::make_shared<harness::CallRequest>();
            auto image = std::make_shared<std::string>();
            auto data = std::make_shared<std::string>();
            app.add_option("image", *image, "The PE32 image")->required();
            app.add_option("routine", r->routine,
                           "A routine of --profile, an export or symbol name, or 0xADDRESS")
                ->required();
            auto base = std::make_shared<std::string>();
            app.add_option(
                "args", r->args,
                "Arguments: decimal, -decimal or 0x hex, i32:V, u32:V; in guest memory (the address is "
                "passed): str:TEXT (NUL-terminated), buf:N (N zero bytes), hex:BYTES, file:PATH");
            app.add_option(
                "--read", r->reads,
                "After the call, show LEN bytes at WHERE: ARGn (the n-th argument, from 0), EAX or an "
                "address, e.g. --read ARG1:16 --read 0x10000000:64 (repeatable)");
            app.add_option("--string", r->strings,
                           "After the call, show the NUL-terminated string at ARGn, EAX or "
                           "an address (repeatable)");
            app.add_option("--base", *base, "Load the image at this base (0x hex; relocations applied)");
            app.add_option("--convention", r->convention,
                           "cdecl, stdcall, fastcall or watcall (default: the profile's for a routine it "
                           "names, else watcall)")
                ->check(CLI::IsMember({"cdecl", "stdcall", "fastcall", "watcall"}));
            auto profile = std::make_shared<std::string>();
            app.add_option("--profile", *profile,
                           "The image's profile: routines by name (a stripped image has no symbols), their "
                           "conventions, and its boot (refused when tied to another image)");
            app.add_option("--boot-until", r->boot_until,
                           "Run the entry point's C runtime start-up until it reaches this routine (a name "
                           "or 0xADDRESS), then the call (default: the profile's boot)");
            app.add_flag("--no-boot", r->no_boot, "Do not run the profile's boot before the call");
            app.add_option("--data", *data,
                           "Data root the guest's file access is confined to (default: none)");
            app.add_option("--budget", r->budget, "Instruction budget (0: none)")->capture_default_str();
            return [r, image, data, base, profile] {
                r->image = *image;
                if (!profile->empty()) r->profile = *profile;
                if (!base->empty()) {
                    try {
                        r->base = harness::parse_call_argument(*base);
                    } catch (const harness::CallError& e) {
                        std::cerr << "refcheck: call: --base: " << e.what() << "\n";
                        return kError;
                    }
                }
                if (!data->empty()) r->data = *data;
                harness::CallOutcome outcome;
                try {
                    outcome = harness::call_routine(*r);
                } catch (const harness::CallError& e) {
                    std::cerr << "refcheck: call: " << e.what() << "\n";
                    return kError;
                }
                std::cout << harness::call_report(outcome);
                return outcome.result.ok() ? kEquivalent : kDivergent;
            };
        }};
    return command;
}

} // namespace refcheck::cli
