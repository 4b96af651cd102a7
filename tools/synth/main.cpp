// synth: deterministic synthetic archives at the reference's scale (issue 3, part 3).
// Exit codes: 0 success, 2 error.
#include <exception>
#include <iostream>

#include "commands.hpp"

int main(int argc, char** argv) {
    CLI::App app{"synth: deterministic synthetic Apache-format archives"};
    app.require_subcommand(1);
    const auto generate = refcheck::synth::add_generate_command(app);
    const auto census = refcheck::synth::add_census_command(app);
    const auto hostile = refcheck::synth::add_hostile_command(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : 2;
    }
    try {
        for (const auto& run : {generate, census, hostile}) {
            const int rc = run();
            if (rc >= 0) return rc;
        }
    } catch (const std::exception& e) {
        std::cerr << "synth: " << e.what() << "\n";
        return 2;
    }
    return 2;
}
