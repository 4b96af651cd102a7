// refcheck: proves, event by event, that the reimplementation does what the original image does.
#include "command.hpp"

#include "refcheck/harness/report.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <iostream>
#include <memory>

// Unicorn 2.1.1 leaks one 32-byte allocation per engine; under the sanitizer build LeakSanitizer
// would otherwise turn every run's exit status into 1. Only leaks inside libunicorn are suppressed.
// NOLINTNEXTLINE(bugprone-reserved-identifier,readability-identifier-naming): the name LSan looks up
extern "C" const char* __lsan_default_suppressions() { return "leak:libunicorn.so\n"; }

namespace {

using namespace refcheck::cli;

std::vector<std::string> subcommand_names(CLI::App& app) {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
        names.push_back(sub->get_name());
    return names;
}

std::string quoted_list(const std::vector<std::string>& names) {
    std::string text;
    for (const auto& n : names) text += (text.empty() ? "" : ", ") + n;
    return text;
}

// The subcommand chain the parse reached ("run", "profile import") and its deepest App.
CLI::App* chosen_subcommand(CLI::App& app, std::string& path) {
    CLI::App* at = &app;
    for (;;) {
        const auto subs = at->get_subcommands();
        if (subs.empty()) return at;
        at = subs.front();
        path += (path.empty() ? "" : " ") + at->get_name();
    }
}

// An option the parse did not know: named, with the nearest option of its subcommand suggested.
bool explain_unknown_option(CLI::App& app, int argc, char** argv) {
    std::string path;
    CLI::App* sub = chosen_subcommand(app, path);
    std::vector<std::string> names = {"--help"};
    for (CLI::App* a = sub; a; a = a->get_parent())
        for (const CLI::Option* o : a->get_options()) {
            for (const auto& l : o->get_lnames()) names.push_back("--" + l);
            for (const auto& s : o->get_snames()) names.push_back("-" + s);
        }
    for (int i = 1; i < argc; ++i) {
        std::string token = argv[i];
        if (token == "--") break;
        if (token.size() < 2 || token[0] != '-' || std::isdigit(static_cast<unsigned char>(token[1])))
            continue;
        token = token.substr(0, token.find('='));
        if (std::find(names.begin(), names.end(), token) != names.end()) continue;
        const std::string near = nearest(token, names);
        std::cerr << kPrefix << "unknown option '" << token << "' for 'refcheck " << path << "'"
                  << (near.empty() ? std::string() : " (did you mean '" + near + "'?)") << "\nrefcheck "
                  << path << " --help lists its options\n";
        return true;
    }
    return false;
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "refcheck: run the original's routines under emulation beside the reimplementation and "
        "compare what both produce, event by event.\nExit status: 0 equivalent, 1 divergent, 2 error."};
    app.require_subcommand(1);
    bool version = false; // handled before parsing (a subcommand is required otherwise)
    app.add_flag("--version", version,
                 "Print refcheck's version (project version and git describe) and exit");
    std::function<int()> chosen;
    for (const Command* c : {&run_command(), &merge_command(), &show_command(), &dump_command(),
                             &diff_command(), &call_command(), &bisect_command(), &mutate_command(),
                             &profile_command(), &workbench_command(), &chaos_command(), &bench_command()}) {
        CLI::App* sub = app.add_subcommand(c->name, c->synopsis);
        auto fn = c->setup(*sub);
        sub->callback([&chosen, fn] { chosen = fn; });
    }
    if (argc >= 2 && (std::strcmp(argv[1], "--version") == 0 || std::strcmp(argv[1], "-V") == 0)) {
        std::cout << "refcheck " << refcheck::harness::refcheck_version() << "\n";
        return kEquivalent;
    }
    // A first word that is no subcommand: named, with the nearest one suggested.
    const auto names = subcommand_names(app);
    if (argc < 2) {
        std::cerr << kPrefix << "a subcommand is required: one of " << quoted_list(names)
                  << "\nrefcheck --help says what each does\n";
        return kError;
    }
    if (argv[1][0] != '-' && std::find(names.begin(), names.end(), argv[1]) == names.end()) {
        const std::string near = nearest(argv[1], names);
        std::cerr << kPrefix << "unknown subcommand '" << argv[1] << "' ("
                  << (near.empty() ? "it is one of " + quoted_list(names)
                                   : "did you mean '" + near + "'? The subcommands: " + quoted_list(names))
                  << ")\n";
        return kError;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e); // --help
        // An unknown option is named first, whatever CLI11 tripped over (a required option it
        // then misses, an extra positional).
        if (explain_unknown_option(app, argc, argv)) return kError;
        std::string path;
        chosen_subcommand(app, path);
        std::cerr << kPrefix << (path.empty() ? "" : path + ": ") << e.what() << "\nrefcheck "
                  << (path.empty() ? "" : path + " ") << "--help lists the arguments\n";
        return kError;
    }
    try {
        return chosen ? chosen() : kError;
    } catch (const std::exception& e) {
        std::string path; // "refcheck: run: ...", as every other message names its subcommand
        chosen_subcommand(app, path);
        std::cerr << kPrefix << (path.empty() ? "" : path + ": ") << e.what() << "\n";
        return kError;
    }
}
