// Hostile draw programs: data roots whose last record's face program is replaced by a small program
// written here, appended at the end of 3DOBJS.BIN (the last record's extent runs to the end of the
// file, so the loader accepts the root), that breaks one thing docs/formats/apache-3d.md section 18
// calls invalid in a draw program. Each program draws faces before the break and has more to draw
// after it, so an interpreter that went on past the break would draw something else.
#include "hostile.hpp"

#include <array>
#include <functional>
#include <map>
#include <stdexcept>

#include "writer.hpp"

namespace refcheck::synth {

namespace {

enum Op : uint8_t {
    kPrimary = 0,
    kSecondary = 1,
    kPlane = 2,
    kIfMask = 3,
    kChoose = 4,
    kSelect = 5,
    kAttach = 6
};
constexpr uint8_t kReturn = 7;
constexpr uint8_t kFlat = 2;                    // packet type 2: [type count colour v...]
constexpr uint8_t kLastType = 21;               // packet type 21 (heat haze): [type count v...]
constexpr uint8_t kPastTheList = 200;           // a vertex index no record of the small archive reaches
constexpr std::uint32_t kPlanesToOverflow = 33; // op.nesting: 32 allowed

// A program being written: bytes, and displacements to fill in once their targets are known
// (op.branch.disp: a displacement at k targets k + 2 + d).
class Assembler {
public:
    std::uint32_t here() const { return static_cast<std::uint32_t>(code_.size()); }
    void bytes(std::initializer_list<uint8_t> b) { code_.insert(code_.end(), b); }
    void u32(std::uint32_t v) {
        for (int i = 0; i < 4; ++i) code_.push_back(static_cast<uint8_t>(v >> (8 * i)));
    }
    // A primary flat face over vertices a, b, c.
    void face(uint8_t a, uint8_t b, uint8_t c) {
        bytes({kPrimary, kFlat, 3, static_cast<uint8_t>(16 + a), a, b, c});
    }
    // Room for a displacement to `label`, filled in by finish().
    void disp(int label) {
        fixups_.push_back({here(), label});
        bytes({0, 0});
    }
    void place(int label) { labels_[label] = here(); }
    void ret() { bytes({kReturn}); }
    std::vector<uint8_t> finish() {
        for (const auto& [at, label] : fixups_) {
            const auto it = labels_.find(label);
            if (it == labels_.end()) throw std::logic_error("hostile: a label never placed");
            const auto d = static_cast<std::int16_t>(static_cast<std::int32_t>(it->second) -
                                                     static_cast<std::int32_t>(at + 2));
            code_[at] = static_cast<uint8_t>(d);
            code_[at + 1] = static_cast<uint8_t>(static_cast<std::uint16_t>(d) >> 8);
        }
        return std::move(code_);
    }

private:
    std::vector<uint8_t> code_;
    std::vector<std::pair<std::uint32_t, int>> fixups_;
    std::map<int, std::uint32_t> labels_;
};

// Labels of the programs below.
enum Label : int { kFirst = 1, kSecond, kContinue, kSelf, kPlanes, kNextPlane = 100 };

// `planes` nested decision planes over vertices 0, 1, 2, each running the next as both of its
// branches (so the walk descends one level per plane), continuing at a shared return; the last
// one's branches go to `inner`. Then the return and the faces nobody should reach after it.
void nest(Assembler& a, std::uint32_t planes) {
    for (std::uint32_t k = 0; k < planes; ++k) {
        a.bytes({kPlane, 0, 1, 2});
        const int next = k + 1 < planes ? kNextPlane + static_cast<int>(k) + 1 : kFirst;
        a.disp(next);
        a.disp(next);
        a.disp(kContinue);
        if (k + 1 < planes) a.place(kNextPlane + static_cast<int>(k) + 1);
    }
}

struct ProgramBreak {
    std::string name; // the root's folder: "program-NAME"
    std::string rule; // the section 18 rule that makes it invalid
    std::string breaks;
    // "program": broken inside the file; "program-truncated": the break is the file's end;
    // "program-edge": a valid program whose last instruction ends exactly at the file's end.
    std::string kind;
    std::vector<uint8_t> program;
    // Run on 3DOBJS.BIN after the program is appended (the record at `at`): a break in the record's
    // lists rather than its program.
    std::function<void(std::vector<uint8_t>& objects, std::uint32_t at)> after = {};
};

std::vector<ProgramBreak> program_breaks() {
    std::vector<ProgramBreak> out;
    auto add = [&](std::string name, std::string rule, std::string breaks, bool truncated, auto&& write) {
        Assembler a;
        a.face(0, 1, 2);
        write(a);
        out.push_back({std::move(name), std::move(rule), std::move(breaks),
                       truncated ? "program-truncated" : "program", a.finish()});
    };
    const auto tail = [](Assembler& a) { // faces the walk reaches only past the break, then the end
        a.face(6, 7, 8);
        a.face(9, 10, 11);
        a.ret();
    };
    add("opcode", "valid.program", "after two faces, an opcode byte of 8 (op.unknown)", false,
        [&](Assembler& a) {
            a.face(3, 4, 5);
            a.bytes({8});
            tail(a);
        });
    add("packet-type", "valid.packet", "the second face's packet type is 22 (there are 22 types, 0..21)",
        false, [&](Assembler& a) {
            a.bytes({kPrimary, 22, 3, 16, 3, 4, 5});
            tail(a);
        });
    add("packet-count", "valid.packet", "the second face's packet has a vertex count of 0", false,
        [&](Assembler& a) {
            a.bytes({kPrimary, kFlat, 0, 16, 3, 4, 5});
            tail(a);
        });
    // A secondary face's packet has its own check (checked_packet, apart from the one op_primary
    // inlines): a count of 0 there, with the length byte the packet's type gives a count of 0.
    add("secondary-count", "valid.packet",
        "a secondary face's packet has a vertex count of 0 (its length byte 4, what a flat packet of no "
        "vertices makes it)",
        false, [&](Assembler& a) {
            a.bytes({kSecondary, 4, kFlat, 0, 16});
            tail(a);
        });
    add("secondary-length", "valid.packet", "a secondary face's length byte is 8 where its packet makes it 7",
        false, [&](Assembler& a) {
            a.bytes({kSecondary, 8, kFlat, 3, 16, 3, 4, 5});
            tail(a);
        });
    add("face-vertex", "valid.index",
        "the second face's third vertex index is 200, past the vertex list; a secondary face follows it",
        false, [&](Assembler& a) {
            a.bytes({kPrimary, kFlat, 3, 17, 3, 4, kPastTheList});
            a.bytes({kSecondary, 7, kFlat, 3, 18, 12, 13, 14});
            tail(a);
        });
    add("plane-vertex", "valid.index", "a decision plane's first vertex index is 200, past the vertex list",
        false, [&](Assembler& a) {
            a.bytes({kPlane, kPastTheList, 1, 2});
            a.disp(kFirst);
            a.disp(kSecond);
            a.disp(kContinue);
            a.place(kFirst);
            a.face(3, 4, 5);
            a.ret();
            a.place(kSecond);
            a.face(12, 13, 14);
            a.ret();
            a.place(kContinue);
            tail(a);
        });
    add("nesting-plane", "valid.program", "33 decision planes nested, one more than op.nesting allows", false,
        [&](Assembler& a) {
            nest(a, kPlanesToOverflow);
            a.place(kFirst);
            a.face(3, 4, 5);
            a.ret();
            a.place(kContinue);
            tail(a);
        });
    // 32 planes nested, then a state switch that runs a branch: its continuation is one too many.
    const auto switch_at_depth = [&](std::string name, std::string what, auto&& write) {
        add("nesting-" + name, "valid.program",
            "32 decision planes nested and then " + what +
                " that runs a branch, one level more than op.nesting allows",
            false, [&](Assembler& a) {
                nest(a, kPlanesToOverflow - 1);
                a.place(kFirst);
                write(a);
                a.place(kSecond);
                a.face(3, 4, 5);
                a.ret();
                a.place(kContinue);
                tail(a);
            });
    };
    switch_at_depth("ifmask", "an op 3 whose mask is every bit", [](Assembler& a) {
        a.bytes({kIfMask});
        a.u32(0xffffffff);
        a.disp(kSecond);
        a.disp(kContinue);
    });
    switch_at_depth("choose", "an op 4", [](Assembler& a) {
        a.bytes({kChoose});
        a.u32(0xffffffff);
        a.disp(kSecond);
        a.disp(kSecond);
        a.disp(kContinue);
    });
    switch_at_depth("select", "an op 5 whose value (state bit 0) has a case", [](Assembler& a) {
        a.bytes({kSelect, 0});
        a.u32(1);
        a.bytes({2});
        a.disp(kContinue);
        a.disp(kSecond);
        a.disp(kSecond);
    });
    // The branch stack's bound on each push of a plane (64 entries, 2 a plane, 1 an op 3 running its
    // branch): an op 3, then 32 nested planes, whose last finds 63 entries, so that its second push
    // is the one refused; and (valid) 32 nested planes alone, whose last fills the stack exactly.
    add("nesting-after-ifmask", "valid.program",
        "an op 3 whose mask is every bit runs 32 nested decision planes: the last one's second push finds "
        "the "
        "stack full (63 + 1), one level more than op.nesting allows",
        false, [&](Assembler& a) {
            a.bytes({kIfMask});
            a.u32(0xffffffff);
            a.disp(kPlanes);
            a.disp(kContinue);
            a.place(kPlanes);
            nest(a, kPlanesToOverflow - 1);
            a.place(kFirst);
            a.face(3, 4, 5);
            a.ret();
            a.place(kContinue);
            tail(a);
        });
    {
        // Linear nests: in the first each plane's back branch is the next plane (its front an empty
        // return), in the second its front, so that whichever branch a view runs first (the back
        // when the winding is >= 0), one of the two nests grows the stack by 2 a level and its last
        // plane fills the 64 entries exactly.
        Assembler a;
        a.face(0, 1, 2);
        for (const bool back_is_next : {true, false}) {
            const int base = back_is_next ? 0 : 10, planes = kNextPlane + (back_is_next ? 0 : 100);
            for (std::uint32_t k = 0; k + 1 < kPlanesToOverflow; ++k) {
                a.bytes({kPlane, 0, 1, 2});
                const int next = k + 2 < kPlanesToOverflow ? planes + static_cast<int>(k) + 1 : kFirst + base;
                a.disp(back_is_next ? kSecond + base : next);
                a.disp(back_is_next ? next : kSecond + base);
                a.disp(k == 0 ? kContinue + base : kSecond + base); // inner planes continue at a return
                if (k + 2 < kPlanesToOverflow) a.place(planes + static_cast<int>(k) + 1);
            }
            a.place(kFirst + base);
            a.face(3, 4, 5);
            a.place(kSecond + base);
            a.ret();
            a.place(kContinue + base);
        }
        a.face(6, 7, 8);
        a.ret();
        out.push_back({"edge-nesting-32-planes", "op.nesting",
                       "two nests of 32 decision planes, as many as op.nesting allows, the first's back "
                       "branches and the second's front branches the next plane: the last plane of the nest "
                       "whose next plane runs first fills the branch stack's 64 entries exactly (valid)",
                       "program-edge", a.finish()});
    }
    add("steps", "valid.program",
        "an op 3 whose mask is 0 continues at itself: the program never ends (op.steps: 65,536 instructions)",
        false, [&](Assembler& a) {
            a.place(kSelf);
            a.bytes({kIfMask});
            a.u32(0);
            a.disp(kContinue);
            a.disp(kSelf);
            a.place(kContinue);
            tail(a);
        });
    // The archive's end, each bound of the stand-in's in_archive checks tested from both sides: an
    // instruction ending exactly at the file's end (valid where the instruction does not fall
    // through: its branches and continuation lead back to a face and a return before it), and the
    // same one byte short (its check fails: the draw stops there). Before it, an op 3 with mask 0
    // continues past that face and return to the last instruction.
    const auto at_end = [&](const std::string& name, const std::string& what, bool valid_whole, auto&& last) {
        for (const std::uint32_t short_by : {0u, 1u}) {
            if (short_by == 0 && !valid_whole) continue;
            Assembler a;
            a.face(0, 1, 2);
            a.bytes({kIfMask});
            a.u32(0);
            a.disp(kFirst);
            a.disp(kContinue);
            a.place(kFirst);
            a.face(3, 4, 5);
            a.place(kSecond);
            a.ret();
            a.place(kContinue);
            last(a);
            std::vector<uint8_t> program = a.finish();
            program.resize(program.size() - short_by);
            out.push_back(short_by ? ProgramBreak{"end-" + name, "valid.extent",
                                                  "the file ends one byte short of the end of " + what,
                                                  "program-truncated", std::move(program)}
                                   : ProgramBreak{"edge-end-" + name, "valid.extent",
                                                  what + " ends exactly at the file's end (valid)",
                                                  "program-edge", std::move(program)});
        }
    };
    at_end("plane", "a decision plane running the face before it as both branches", true, [](Assembler& a) {
        a.bytes({kPlane, 0, 1, 2});
        a.disp(kFirst);
        a.disp(kFirst);
        a.disp(kSecond);
    });
    at_end("ifmask", "an op 3 whose mask is every bit, running the face before it", true, [](Assembler& a) {
        a.bytes({kIfMask});
        a.u32(0xffffffff);
        a.disp(kFirst);
        a.disp(kSecond);
    });
    at_end("choose", "an op 4 running the face before it either way", true, [](Assembler& a) {
        a.bytes({kChoose});
        a.u32(0xffffffff);
        a.disp(kFirst);
        a.disp(kFirst);
        a.disp(kSecond);
    });
    at_end("select", "an op 5 with two cases, both the face before it", true, [](Assembler& a) {
        a.bytes({kSelect, 0});
        a.u32(1);
        a.bytes({2});
        a.disp(kSecond);
        a.disp(kFirst);
        a.disp(kFirst);
    });
    at_end("select-head", "an op 5's first 9 bytes (its count 0: no case table)", true, [](Assembler& a) {
        a.bytes({kSelect, 0});
        a.u32(1);
        a.bytes({0});
        a.disp(kSecond);
    });
    at_end("return", "the program's last return", true, [](Assembler& a) { a.ret(); });
    // Instructions that fall through: whole at the file's end the walk runs into the end after them
    // (invalid: the draw stops there, after drawing them); one byte short, at them.
    at_end("primary", "a primary face's packet", false, [](Assembler& a) { a.face(6, 7, 8); });
    at_end("secondary", "a secondary face's packet", false, [](Assembler& a) {
        a.bytes({kSecondary, 7, kFlat, 3, 22, 6, 7, 8});
    });
    add("end-after-primary", "valid.extent",
        "a primary face ends exactly at the file's end, no return after it", true,
        [](Assembler& a) { a.face(3, 4, 5); });
    add("end-packet-header", "valid.extent", "the file ends after a primary face's packet type (no count)",
        true, [](Assembler& a) {
            a.bytes({kPrimary, kFlat});
        });
    add("end-secondary-opcode", "valid.extent", "the file ends after a secondary face's opcode", true,
        [](Assembler& a) { a.bytes({kSecondary}); });
    add("end-attach", "valid.extent", "the file ends after an op 6's opcode", true,
        [](Assembler& a) { a.bytes({kAttach}); });
    return out;
}

constexpr uint8_t u8c(std::uint32_t v) { return static_cast<uint8_t>(v); }

// Appends `bytes` at the end of 3DOBJS.BIN as a block of the record at `record_at`, its header word
// `field` (a record-relative offset) pointing at it.
void append_block(std::vector<uint8_t>& objects, std::uint32_t record_at, std::uint32_t field,
                  const std::vector<uint8_t>& bytes) {
    set32(objects, record_at + field, static_cast<std::uint32_t>(objects.size()) - record_at);
    objects.insert(objects.end(), bytes.begin(), bytes.end());
}

// The first populated 64-wide texture of OBJTEXT.BIN (type 2: a 12-byte header, then 64 texels a
// row, tex.stride) and its two most frequent nonzero texel values, the masks of the masked program.
struct MaskTexture {
    std::uint32_t slot = 0;
    uint8_t masks[2] = {0, 0};
};
MaskTexture mask_texture(const std::vector<uint8_t>& textures) {
    const std::uint32_t count = get32(textures, 0);
    for (std::uint32_t slot = 0; slot < count; ++slot) {
        const std::uint32_t at = get32(textures, 4 + 4 * slot);
        if (at == 0 || get32(textures, at) != 2) continue;
        const std::uint32_t height = get32(textures, at + 4);
        if (height == 0 || at + 12 + 64ull * height > textures.size()) continue;
        std::uint32_t seen[256] = {};
        for (std::uint32_t k = 0; k < 64 * height; ++k) ++seen[textures[at + 12 + k]];
        MaskTexture t{slot, {0, 0}};
        for (int v = 1; v < 256; ++v) {
            if (seen[v] > seen[t.masks[0]] || t.masks[0] == 0) {
                t.masks[1] = t.masks[0];
                t.masks[0] = static_cast<uint8_t>(v);
            } else if (seen[v] > seen[t.masks[1]] || t.masks[1] == 0) {
                t.masks[1] = static_cast<uint8_t>(v);
            }
        }
        if (seen[t.masks[0]] && seen[t.masks[1]]) return t;
    }
    throw std::logic_error("hostile: OBJTEXT.BIN has no 64-wide texture of two nonzero texel values");
}

// A valid program the generator never writes (its masks are all 0): masked textured faces (types
// 8, 16, 20) whose mask is a texel value their texture holds, each after a face of another kind or
// another mask, over faces drawn before them (rast.mask: a texel equal to the mask is not drawn).
std::vector<uint8_t> masked_program(const MaskTexture& t) {
    Assembler a;
    const uint8_t lo = static_cast<uint8_t>(t.slot), hi = static_cast<uint8_t>(t.slot >> 8);
    // Texture corners for the three vertices of a face.
    const uint8_t uv[3][2] = {{0, 0}, {63, 0}, {63, 62}};
    auto masked = [&](uint8_t type, uint8_t mask, std::initializer_list<uint8_t> face) {
        a.bytes({kPrimary, type, 3, lo, hi});
        if (type == 8) a.bytes({mask});
        if (type == 16) a.bytes({mask, 0}); // m, then the face normal
        if (type == 20) a.bytes({0, mask}); // the face normal, then m
        int k = 0;
        for (const uint8_t v : face) {
            a.bytes({v, uv[k][0], uv[k][1]});
            if (type == 20) a.bytes({0}); // the vertex normal
            ++k;
        }
    };
    for (const bool reversed : {false, true}) { // one winding of each face is the front one
        const uint8_t p = reversed ? 2 : 0, q = 1, r = reversed ? 0 : 2;
        a.face(p, q, r);
        masked(8, t.masks[0], {p, q, r});
        masked(16, t.masks[1], {p, q, r});
        masked(20, t.masks[0],
               {static_cast<uint8_t>(p + 3), static_cast<uint8_t>(q + 3), static_cast<uint8_t>(r + 3)});
        a.face(static_cast<uint8_t>(p + 6), static_cast<uint8_t>(q + 6), static_cast<uint8_t>(r + 6));
        masked(8, t.masks[1],
               {static_cast<uint8_t>(p + 6), static_cast<uint8_t>(q + 6), static_cast<uint8_t>(r + 6)});
    }
    a.ret();
    return a.finish();
}

} // namespace

void add_program_roots(std::vector<HostileRoot>& out, const DataRootFiles& base) {
    const std::uint32_t count = get32(base.objects, 0);
    const std::uint32_t record = count - 1;
    const std::uint32_t at = get32(base.objects, 4 + 4 * record);
    if (at == 0) throw std::logic_error("hostile: the last record is empty");
    if (get32(base.objects, at + hdr::encoding) != 0)
        throw std::logic_error("hostile: the last record is not signed-16-bit");
    // The faces name vertices 0..14 (the small archive's last record has 26).
    const std::uint32_t vertices = get32(base.objects, at + hdr::vertices);
    if (base.objects.at(at + vertices) + (base.objects.at(at + vertices + 1) << 8) < 15)
        throw std::logic_error("hostile: the last record has fewer than 15 vertices");
    std::vector<ProgramBreak> programs = program_breaks();
    const MaskTexture masks = mask_texture(base.textures);
    programs.push_back(
        {"edge-masks", "rast.mask",
         "masked textured faces (types 8, 16, 20) whose masks are texture " + std::to_string(masks.slot) +
             "'s two most frequent nonzero texels (" + std::to_string(masks.masks[0]) + ", " +
             std::to_string(masks.masks[1]) +
             "), each after a face of another kind or mask (valid: the generator writes mask 0 only)",
         "program-edge", masked_program(masks)});
    // Secondary faces on the bounds of their packet check, valid: the last type (21, heat haze:
    // [21 count v...]) and the least count (1), each after a primary face and before more faces.
    {
        Assembler a;
        a.bytes({kSecondary, 7, kFlat, 3, 23, 9, 10, 11}); // before any primary: the last winding is -1
        a.face(0, 1, 2);
        a.bytes({kSecondary, 6, kLastType, 3, 3, 4, 5});
        a.face(6, 7, 8);
        a.bytes({kSecondary, 5, kFlat, 1, 19, 9});
        a.face(9, 10, 11);
        a.bytes({kSecondary, 4, kLastType, 1, 12});
        a.face(12, 13, 14);
        // Primary flat faces of 2 vertices (long edges, whose shadow rows round to spans) and of 1.
        a.bytes({kPrimary, kFlat, 2, 20, 0, 14});
        a.bytes({kPrimary, kFlat, 2, 21, 2, 12});
        a.bytes({kPrimary, kFlat, 1, 22, 7});
        a.face(3, 4, 5);
        a.ret();
        programs.push_back({"edge-secondary-bounds", "valid.packet",
                            "a secondary face before any primary (not drawn: op.last_wind starts at -1), "
                            "secondary faces of type 21 (the last type) with 3 and 1 vertices, and a flat "
                            "secondary face of 1 vertex, each after a primary face, then primary flat faces "
                            "of 2 and 1 vertices (valid: types 0..21, counts from 1)",
                            "program-edge", a.finish()});
    }
    // State bits the generator's programs never test, and displacements it never writes backward
    // (valid). Its selects read bits 5..15 and its masks are low, so an original shifting the state
    // arithmetically, or testing a mask's high bits wrongly, drew the same; and no displacement was
    // negative, so one reading them unsigned drew the same too (op.select.value, op.ifmask,
    // op.choose, op.branch.disp: a case on states with bit 31 set and clear tells them apart).
    {
        enum : int { kHigh = 200, kCases, kCase0, kCase1, kCase2, kCase3, kBack, kChooseAt, kSet, kClear };
        Assembler a;
        auto leaf = [&a](int label, uint8_t p, uint8_t q, uint8_t r) { // a face, then a return
            a.place(label);
            a.face(p, q, r);
            a.ret();
        };
        a.bytes({kIfMask}); // bit 31 alone: the select runs only with it set
        a.u32(0x80000000);
        a.disp(kHigh);
        a.disp(kChooseAt);
        leaf(kBack, 12, 13, 14); // reached only backward: the choose's continuation
        leaf(kCase0, 0, 1, 2);   // two select cases before the select
        leaf(kCase1, 3, 4, 5);
        a.place(kHigh);
        a.bytes({kSelect, 31}); // (state >> 31) & 3, logical: 0 or 1; arithmetic: 0 or 3
        a.u32(3);
        a.bytes({4});
        a.disp(kCases); // its continuation: a return
        for (const int label : {kCase0, kCase1, kCase2, kCase3}) a.disp(label);
        leaf(kCase2, 6, 7, 8);
        leaf(kCase3, 9, 10, 11);
        a.place(kCases);
        a.ret();
        a.place(kChooseAt);
        a.bytes({kChoose}); // bit 30 or 31: set, else clear; then, backward, the face at kBack
        a.u32(0xc0000000);
        a.disp(kSet);
        a.disp(kClear);
        a.disp(kBack);
        leaf(kSet, 0, 2, 4);
        leaf(kClear, 1, 3, 5);
        programs.push_back({"edge-high-bits-backward", "op.select.value",
                            "an op 3 on state bit 31 alone running an op 5 on (state >> 31) & 3 (four "
                            "cases, two of them before it), then an op 4 on bits 30 and 31 whose "
                            "continuation is before it (valid: displacements are signed, the shift logical)",
                            "program-edge", a.finish()});
    }
    // Vertex lists the stand-in cuts to what fits before the archive's end (valid.extent.clamp):
    // faces on vertices past the cut, past the list, or with no list at all are behind
    // (valid.index.behind); the draw goes on.
    const std::uint32_t n = base.objects.at(at + vertices) + (base.objects.at(at + vertices + 1) << 8);
    const auto lists_program = [&](std::initializer_list<std::array<uint8_t, 3>> faces) {
        Assembler a;
        for (const auto& f : faces) a.face(f[0], f[1], f[2]);
        a.ret();
        return a.finish();
    };
    const auto u8 = [](std::uint32_t v) { return static_cast<uint8_t>(v); };
    programs.push_back(
        {"vertices-cut", "valid.extent",
         "the vertex list moved to the file's end with a count of 300 where its " + std::to_string(n) +
             " vertices fit; faces on vertices below the cut, in its upper half, and past it",
         "program",
         lists_program({{0, 1, 2},
                        {3, 4, 5},
                        {u8(n - 6), u8(n - 5), u8(n - 4)},
                        {u8(n), u8(n + 1), u8(n + 2)},
                        {6, 7, 8}}),
         [n, vertices](std::vector<uint8_t>& objects, std::uint32_t record_at) {
             const std::uint32_t list = record_at + vertices;
             std::vector<uint8_t> moved(objects.begin() + list, objects.begin() + list + 2 + 6 * n);
             moved[0] = u8c(300);
             moved[1] = u8c(300 >> 8);
             append_block(objects, record_at, hdr::vertices, moved);
         }});
    programs.push_back({"vertices-header-cut", "valid.extent",
                        "the vertex list's offset is the file's last byte (3): its 2-byte count does not fit",
                        "program",
                        [] { // an op 3 first, so that the draw compares its control flow with no face drawn
                            Assembler a;
                            a.bytes({kIfMask});
                            a.u32(0);
                            a.disp(kContinue);
                            a.disp(kContinue);
                            a.place(kContinue);
                            a.face(0, 1, 2);
                            a.face(3, 4, 5);
                            a.ret();
                            return a.finish();
                        }(),
                        [](std::vector<uint8_t>& objects, std::uint32_t record_at) {
                            append_block(objects, record_at, hdr::vertices, {3});
                        }});
    programs.push_back({"vertex-past-list", "valid.index",
                        "a face names vertex " + std::to_string(n) +
                            ", the first past the list, with more bytes than a vertex after the list",
                        "program", lists_program({{0, 1, 2}, {0, 1, u8(n)}, {3, 4, 5}})});
    // Attachment lists the stand-in cuts (valid.extent.clamp): at the file's end, one counting 7 where
    // 4 fit (ids 1..4, each 100 units further along x) and one counting 300 where 257 fit; and one of
    // 257 empty entries with room for more, of which the engine uses 256 (its two clamps to 256,
    // where the count is cut to what fits and where it is not).
    const auto attachment_list = [](std::uint32_t count, std::uint32_t entries, bool ids) {
        return [count, entries, ids](std::vector<uint8_t>& objects, std::uint32_t record_at) {
            std::vector<uint8_t> list(4 + 52 * static_cast<std::size_t>(entries), 0);
            set32(list, 0, count);
            for (std::uint32_t k = 0; k < entries && ids; ++k) {
                const std::size_t e = 4 + 52 * static_cast<std::size_t>(k);
                set32(list, e, k + 1);
                set32(list, e + 4, 100 * (k + 1));
                for (const std::size_t d : {0, 4, 8})
                    set32(list, e + 16 + 4 * d, 0x7fffffff); // identity, Q31
            }
            append_block(objects, record_at, hdr::attachments, list);
        };
    };
    programs.push_back({"attachments-cut", "valid.extent",
                        "an attachment list at the file's end counting 7 entries where 4 fit (ids 1 to 4)",
                        "program", lists_program({{0, 1, 2}}), attachment_list(7, 4, true)});
    programs.push_back(
        {"attachments-257", "valid.attach",
         "an attachment list of 257 empty entries, all in the file with room for one more: one "
         "more than the engine's 256",
         "program", lists_program({{0, 1, 2}}), attachment_list(257, 258, false)});
    programs.push_back({"attachments-cut-257", "valid.extent",
                        "an attachment list at the file's end counting 300 empty entries where 257 fit",
                        "program", lists_program({{0, 1, 2}}), attachment_list(300, 257, false)});
    // shadow.geometry's in_archive(block, 4) on its edge: the shadow block is the file's last 4 bytes
    // (-1: the record's own geometry). Valid.
    programs.push_back({"edge-shadow-block-at-end", "hdr.shadow_ofs",
                        "the shadow block is the file's last 4 bytes, holding -1 (its own geometry)",
                        "program-edge", lists_program({{0, 1, 2}, {3, 4, 5}, {6, 7, 8}}),
                        [](std::vector<uint8_t>& objects, std::uint32_t record_at) {
                            append_block(objects, record_at, hdr::shadow, {0xff, 0xff, 0xff, 0xff});
                        }});
    // valid.shadow.none: the shadow block is the file's last 3 bytes (20, 0, 0): its 4 do not fit, so
    // the stand-in draws no shadow (a reading one byte further would take record 20's geometry).
    programs.push_back(
        {"shadow-block-cut", "valid.extent",
         "the shadow block is the file's last 3 bytes (20, 0, 0): its 4-byte index does not fit", "program",
         lists_program({{0, 1, 2}, {3, 4, 5}, {6, 7, 8}}),
         [](std::vector<uint8_t>& objects, std::uint32_t record_at) {
             append_block(objects, record_at, hdr::shadow, {20, 0, 0});
         }});
    for (ProgramBreak& b : programs) {
        HostileRoot r{"program-" + b.name,
                      "3DOBJS.BIN",
                      record,
                      b.rule,
                      "record " + std::to_string(record) + "'s face program: " + b.breaks,
                      b.kind == "program-edge",
                      base};
        std::vector<uint8_t>& objects = r.files.objects;
        set32(objects, at + hdr::program, static_cast<std::uint32_t>(objects.size()) - at);
        set32(objects, at + hdr::properties, get32(objects, at + hdr::properties) | 1); // it casts a shadow
        set32(objects, at + hdr::shadow, 0);                                            // its own geometry
        objects.insert(objects.end(), b.program.begin(), b.program.end());
        if (b.after) b.after(objects, at);
        r.kind = b.kind;
        out.push_back(std::move(r));
    }
}

} // namespace refcheck::synth
