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
            app.add_option("routine", r->routine, "Export or symbol name, or 0xADDRESS")->required();
            app.add_option("args", r->args,
                           "Arguments: decimal, -decimal or 0x hex; str:TEXT (a string in guest memory), buf:N "
                           "(N zero bytes in guest memory)");
            app.add_option("--convention", r->convention, "cdecl, stdcall, fastcall or watcall")
                ->check(CLI::IsMember({"cdecl", "stdcall", "fastcall", "watcall"}))
                ->capture_default_str();
            app.add_option("--data", *data, "Data root the guest's file access is confined to (default: none)");
            app.add_option("--budget", r->budget, "Instruction budget (0: none)")->capture_default_str();
            return [r, image, data] {
                r->image = *image;
                if (!data->empty()) r->data = *data;
                harness::CallOutcome outcome;
                try {
                    outcome = harness::call_routine(*r);
                } catch (const harness::CallError& e) {
                    std::cerr << "refcheck call: " << e.what() << "\n";
                    return kError;
                }
                std::cout << harness::call_report(outcome);
                return outcome.result.ok() ? kEquivalent : kDivergent;
            };
        }};
    return command;
}

}  // namespace refcheck::cli
