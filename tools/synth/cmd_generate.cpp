// synth generate --out DIR [--profile default|small] [--seed N]
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "generate.hpp"

namespace refcheck::synth {

std::function<int()> add_generate_command(CLI::App& app) {
    struct Options {
        std::string out, profile = "default";
        uint64_t seed = 1;
    };
    auto o = std::make_shared<Options>();
    CLI::App* cmd = app.add_subcommand(
        "generate",
        "Write a synthetic data root: 3DDATA/3DOBJS.BIN, 3DDATA/OBJTEXT.BIN, 3DPAL.RGB, census.json");
    cmd->add_option("--out", o->out, "data root to write")->required();
    cmd->add_option("--profile", o->profile,
                    "default (the reference's census) or small (every feature, a few dozen records)")
        ->check(CLI::IsMember({"default", "small"}));
    cmd->add_option("--seed", o->seed, "generator seed (same seed, same bytes)");
    return [cmd, o]() {
        if (!*cmd) return -1;
        const Archive a = generate(profile_named(o->profile), o->seed);
        write_data_root(a, o->out);
        std::cout << "wrote " << o->out << " (profile " << o->profile << ", seed " << o->seed << ", "
                  << a.models.size() << " records)\n";
        return 0;
    };
}

} // namespace refcheck::synth
