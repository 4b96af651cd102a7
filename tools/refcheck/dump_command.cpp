// refcheck dump RECORD [--data DIR]: the draw-program listing of one record (offsets, opcodes,
// operands, packet fields, branch targets), from the reimplementation's decoder.
#include "command.hpp"

#include "refcheck/harness/run.hpp"
#include "refcheck/reimpl/disassembler.hpp"
#include "refcheck/reimpl/model_archive.hpp"
#include "refcheck/reimpl/texture_archive.hpp"

#include <iostream>

namespace refcheck::cli {

const Command& dump_command() {
    static const Command command{
        "dump", "Print a record's draw program: offsets, opcodes, operands, packets, branch targets",
        [](CLI::App& app) -> std::function<int()> {
            auto record = std::make_shared<std::uint32_t>(0);
            auto data = std::make_shared<std::string>(REFCHECK_DEFAULT_DATA);
            app.add_option("record", *record, "Record index in 3DDATA/3DOBJS.BIN")->required();
            app.add_option("--data", *data, "Data root holding 3DDATA/")->capture_default_str();
            return [record, data] {
                const std::filesystem::path root = *data;
                // Found as the guest finds them (harness::read_data_archive), regular files only.
                const auto models = reimpl::ModelArchive::parse(
                    harness::read_data_archive(root, "3DDATA\\3DOBJS.BIN", "3DOBJS.BIN"));
                const auto textures = reimpl::TextureArchive::parse(
                    harness::read_data_archive(root, "3DDATA\\OBJTEXT.BIN", "OBJTEXT.BIN"));
                std::cout << reimpl::dump_record(models, *record, &textures);
                return kEquivalent;
            };
        }};
    return command;
}

} // namespace refcheck::cli
