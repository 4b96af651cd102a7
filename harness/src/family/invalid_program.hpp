// A program or shadow case on a data root whose record R has a broken draw program (the case's
// "invalid_program"; tools/synth/hostile.hpp writes such roots). Both sides must show the break:
// - the reimplementation refuses R: its own draw (InvalidData::Refuse) of an input that reaches the
//   break throws a FormatError naming 3DOBJS.BIN and record R;
// - the original's draw is compared, as every input is, with the reimplementation's walk under
//   InvalidData::StopThere, which ends the model's draw at the broken instruction: an original that
//   goes on past it (or stops earlier, or elsewhere) diverges there.
// A case none of whose inputs reaches the break compares nothing of it, and is an error.
#pragma once

#include "refcheck/harness/case.hpp"
#include "refcheck/harness/report.hpp"
#include "refcheck/reimpl/program.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace refcheck::harness {

class InvalidProgramCheck {
public:
    explicit InvalidProgramCheck(const Case& c) : record_(c.invalid_program) {}

    // How the family's reimplementation decodes programs for the compared walk.
    reimpl::InvalidData mode() const {
        return record_ ? reimpl::InvalidData::StopThere : reimpl::InvalidData::Refuse;
    }
    bool active() const { return record_.has_value(); }
    // How the family parses 3DOBJS.BIN for the compared walk: a list cut short by record R's end
    // is cut to what fits as the stand-in does (CutLists::Clamp) in an active check.
    reimpl::CutLists cut_lists() const {
        return record_ ? reimpl::CutLists::Clamp : reimpl::CutLists::Refuse;
    }
    // An active check's archive as the reimplementation itself reads it (CutLists::Refuse): when it
    // refuses the archive it must name record R (std::runtime_error otherwise), and that refusal
    // then stands for the reimplementation's own draw of every input (a record whose lists run
    // past its end is refused before any draw).
    void archive(std::span<const std::uint8_t> models);

    // After one input of an active check: the invalid data the compared walk reached (`stops`), and
    // `refuse`, which draws the same input with the reimplementation's own behaviour (it must throw
    // a FormatError naming record R whenever the walk reached invalid data). Throws
    // std::runtime_error when the two disagree or name another record.
    void input(const std::string& input, const std::vector<reimpl::ProgramStop>& stops,
               const std::function<void()>& refuse);

    // The case report's "invalid_program"; an error when no input reached the break, unless
    // `narrowed`: the case's narrowing left some of its inputs out (--only, --filter, a mutant's
    // served or booted inputs), and those need not include the one that reaches it.
    ojson finish(bool narrowed) const;

private:
    std::optional<std::uint32_t> record_;
    std::uint64_t inputs_ = 0, refused_ = 0, reached_ = 0;
    std::optional<std::string> first_input_, first_stop_, reimpl_error_;
    std::optional<std::string> archive_error_; // archive(): the reimplementation's refusal of 3DOBJS.BIN
};

} // namespace refcheck::harness
