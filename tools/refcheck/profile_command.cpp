// refcheck profile import --map FILE [--csv FILE] --template T --image IMAGE --out PROFILE: a
// profile for an image from its symbols (harness/profile_import.hpp). Prints what was filled and
// what is still missing; exit 0 when written, 2 on an error (nothing written).
#include "command.hpp"

#include "refcheck/harness/profile_import.hpp"

#include <fstream>
#include <iostream>

namespace refcheck::cli {

const Command& profile_command() {
    static const Command command{
        "profile", "Make an image profile from a template and the image's symbols (profile import)",
        [](CLI::App& app) -> std::function<int()> {
            app.require_subcommand(1);
            CLI::App* import = app.add_subcommand(
                "import",
                "Fill a template's addresses from a GNU ld map and/or a name,address CSV (IDA, Ghidra)");
            auto r = std::make_shared<harness::ProfileImportRequest>();
            auto map = std::make_shared<std::string>();
            auto csv = std::make_shared<std::string>();
            auto tpl = std::make_shared<std::string>();
            auto image = std::make_shared<std::string>();
            auto out = std::make_shared<std::string>();
            import->add_option("--map", *map, "GNU ld map file (-Wl,-Map)");
            import->add_option("--csv", *csv, "name,address CSV; wins over the map where both name a symbol");
            import->add_option("--template", *tpl, "The profile template (profiles/real-image.template.json)")
                ->required();
            import->add_option("--image", *image, "The image the profile is for (its base and SHA-256 go in)")
                ->required();
            import->add_option("--out", *out, "Where to write the profile")->required();
            return [r, map, csv, tpl, image, out] {
                r->template_file = *tpl;
                r->image = *image;
                if (!map->empty()) r->map = *map;
                if (!csv->empty()) r->csv = *csv;
                harness::ProfileImport result;
                try {
                    result = harness::import_profile(*r);
                } catch (const harness::ProfileImportError& e) {
                    std::cerr << "refcheck: profile import: " << e.what() << "\n";
                    return kError;
                }
                std::ofstream file(*out, std::ios::binary | std::ios::trunc);
                if (!file || !(file << result.profile.dump(1) << "\n") || !file.flush()) {
                    std::cerr << "refcheck: profile import: cannot write " << *out << "\n";
                    return kError;
                }
                for (const auto& n : result.notes) std::cout << "note: " << n << "\n";
                std::cout << "wrote " << *out << ": " << result.filled.size() << " address(es) filled, "
                          << result.missing.size() << " still missing\n";
                for (const auto& m : result.missing) std::cout << "  missing: " << m << "\n";
                return kEquivalent;
            };
        }};
    return command;
}

} // namespace refcheck::cli
