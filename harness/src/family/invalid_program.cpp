#include "family/invalid_program.hpp"

#include "refcheck/reimpl/format_error.hpp"
#include "refcheck/reimpl/model_archive.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace refcheck::harness {

namespace {
std::string named(std::uint32_t record) { return "3DOBJS.BIN record " + std::to_string(record); }
} // namespace

void InvalidProgramCheck::archive(std::span<const std::uint8_t> models) {
    if (!record_) return;
    try {
        (void)reimpl::ModelArchive::parse(models);
    } catch (const reimpl::FormatError& e) {
        if (e.where().archive != "3DOBJS.BIN" || e.where().record != *record_)
            throw std::runtime_error("the reimplementation refuses another place than " + named(*record_) +
                                     ": " + e.what());
        archive_error_ = e.what();
    }
}

void InvalidProgramCheck::input(const std::string& input, const std::vector<reimpl::ProgramStop>& stops,
                                const std::function<void()>& refuse) {
    ++inputs_;
    for (const reimpl::ProgramStop& s : stops)
        if (s.record != *record_)
            throw std::runtime_error(fmt::format(
                "{}: the reimplementation's walk stopped at record {} +0x{:x} ({}); the case names {} as the "
                "broken one",
                input, s.record, s.offset, s.why, named(*record_)));
    std::optional<std::string> error = archive_error_;
    if (!error) try {
            refuse();
        } catch (const reimpl::FormatError& e) {
            if (e.where().archive != "3DOBJS.BIN" || e.where().record != *record_)
                throw std::runtime_error(input + ": the reimplementation refuses another place than " +
                                         named(*record_) + ": " + e.what());
            error = e.what();
        }
    refused_ += error ? 1 : 0;
    if (stops.empty()) return; // the walk did not reach the break (the decoder may still refuse it)
    if (!error)
        throw std::runtime_error(
            fmt::format("{}: the reimplementation's stop-there walk reached invalid data "
                        "(+0x{:x}: {}) but its own draw accepts {}",
                        input, stops.front().offset, stops.front().why, named(*record_)));
    ++reached_;
    if (!first_input_) {
        first_input_ = input;
        first_stop_ = fmt::format("+0x{:x}: {}{}", stops.front().offset, stops.front().why,
                                  stops.front().ends_draw ? " (the draw ends there)"
                                                          : " (taken as behind, the draw goes on)");
        reimpl_error_ = error;
    }
}

ojson InvalidProgramCheck::finish(bool narrowed) const {
    if (reached_ == 0 && !narrowed)
        throw std::runtime_error("\"invalid_program\": none of the " + std::to_string(inputs_) +
                                 " inputs reaches the broken part of " + named(*record_) +
                                 ", so the case compares nothing of it");
    return {{"record", *record_},
            {"inputs", inputs_},
            {"inputs_refused_by_the_reimplementation", refused_},
            {"inputs_reaching_the_break", reached_},
            {"first_input", first_input_ ? ojson(*first_input_) : ojson(nullptr)},
            {"reimpl_error", reimpl_error_ ? ojson(*reimpl_error_) : ojson(nullptr)},
            {"stop_there_walk_reached", first_stop_ ? ojson(*first_stop_) : ojson(nullptr)}};
}

} // namespace refcheck::harness
