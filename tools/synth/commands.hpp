// Subcommands of `synth`, one file each.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>

namespace refcheck::synth {

// Registers the subcommand on `app`; the returned function runs it (exit code).
std::function<int()> add_generate_command(CLI::App& app);
std::function<int()> add_census_command(CLI::App& app);
std::function<int()> add_hostile_command(CLI::App& app);

} // namespace refcheck::synth
