// synth hostile --out DIR [--seed N]: the hostile data roots (hostile.hpp) derived from the small
// profile's archives, one folder each, and DIR/hostile.json.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "hostile.hpp"

namespace refcheck::synth {

std::function<int()> add_hostile_command(CLI::App& app) {
    struct Options {
        std::string out;
        uint64_t seed = 1;
    };
    auto o = std::make_shared<Options>();
    CLI::App* cmd = app.add_subcommand(
        "hostile", "Write data roots that each break one thing the format calls invalid (DIR/NAME/...)");
    cmd->add_option("--out", o->out, "folder of the data roots")->required();
    cmd->add_option("--seed", o->seed, "seed of the small archives they are made from");
    return [cmd, o]() {
        if (!*cmd) return -1;
        const auto roots = hostile_roots(serialise(generate(profile_named("small"), o->seed)));
        write_hostile_roots(roots, o->out);
        std::cout << "wrote " << roots.size() << " hostile data roots under " << o->out << "\n";
        return 0;
    };
}

} // namespace refcheck::synth
