// refcheck: proves, event by event, that the reimplementation does what the original image does.
#include "command.hpp"

#include <iostream>
#include <memory>

// Unicorn 2.1.1 leaks one 32-byte allocation per engine; under the sanitizer build LeakSanitizer
// would otherwise turn every run's exit status into 1. Only leaks inside libunicorn are suppressed.
extern "C" const char* __lsan_default_suppressions() { return "leak:libunicorn.so\n"; }

int main(int argc, char** argv) {
    using namespace refcheck::cli;
    CLI::App app{
        "refcheck: run the original's routines under emulation beside the reimplementation and "
        "compare what both produce, event by event.\nExit status: 0 equivalent, 1 divergent, 2 error."};
    app.require_subcommand(1);
    std::function<int()> chosen;
    for (const Command* c : {&run_command(), &merge_command(), &show_command(), &dump_command(),
                             &diff_command(), &call_command(), &bisect_command(), &mutate_command(),
                             &profile_command(), &workbench_command(), &chaos_command()}) {
        CLI::App* sub = app.add_subcommand(c->name, c->synopsis);
        auto fn = c->setup(*sub);
        sub->callback([&chosen, fn] { chosen = fn; });
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? 0 : kError;
    }
    try {
        return chosen ? chosen() : kError;
    } catch (const std::exception& e) {
        std::cerr << "refcheck: error: " << e.what() << "\n";
        return kError;
    }
}
