// synth census DIR: decode a data root's archives and print their census as JSON.
#include <iostream>
#include <memory>

#include "census.hpp"
#include "commands.hpp"

namespace refcheck::synth {

std::function<int()> add_census_command(CLI::App& app) {
    auto root = std::make_shared<std::string>();
    CLI::App* cmd =
        app.add_subcommand("census", "Decode a data root's archives and print their census (JSON)");
    cmd->add_option("root", *root, "data root holding 3DDATA/3DOBJS.BIN, 3DDATA/OBJTEXT.BIN and 3DPAL.RGB")
        ->required();
    return [cmd, root]() {
        if (!*cmd) return -1;
        std::cout << to_json(decode_census(*root)).dump(2) << "\n";
        return 0;
    };
}

} // namespace refcheck::synth
