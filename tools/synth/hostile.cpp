#include "hostile.hpp"

#include <algorithm>
#include <fstream>
#include <stdexcept>
#include <tuple>

#include <nlohmann/json.hpp>

#include "writer.hpp"

namespace refcheck::synth {

std::uint32_t get32(const std::vector<uint8_t>& b, std::size_t at) {
    if (at + 4 > b.size()) throw std::logic_error("hostile: read past the archive");
    return b[at] | b[at + 1] << 8 | b[at + 2] << 16 | static_cast<std::uint32_t>(b[at + 3]) << 24;
}
void set32(std::vector<uint8_t>& b, std::size_t at, std::uint32_t v) {
    if (at + 4 > b.size()) throw std::logic_error("hostile: write past the archive");
    for (int i = 0; i < 4; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

namespace {
std::uint32_t slot_offset(const std::vector<uint8_t>& b, std::uint32_t slot) {
    return get32(b, 4 + 4 * slot);
}

// The last populated slot of a counted offset table (a texture archive has empty slots).
std::uint32_t last_populated(const std::vector<uint8_t>& b) {
    for (std::uint32_t i = get32(b, 0); i-- > 0;)
        if (slot_offset(b, i)) return i;
    throw std::logic_error("hostile: no populated slot");
}

// The archive with its table made `count` slots long: the populated slots keep their records (moved
// after the longer table, offsets shifted), the new slots are empty. Offsets inside records are
// relative to the record (model archive) or absent (texture archive), so the records move whole.
std::vector<uint8_t> with_slot_count(const std::vector<uint8_t>& b, std::uint32_t count) {
    const std::uint32_t old = get32(b, 0);
    if (count < old) throw std::logic_error("hostile: the table only grows");
    const std::uint32_t shift = 4 * (count - old);
    std::vector<uint8_t> out(4 + 4 * static_cast<std::size_t>(count), 0);
    set32(out, 0, count);
    for (std::uint32_t i = 0; i < old; ++i)
        if (const std::uint32_t at = slot_offset(b, i)) set32(out, 4 + 4 * i, at + shift);
    out.insert(out.end(), b.begin() + 4 + 4 * static_cast<std::ptrdiff_t>(old), b.end());
    return out;
}

// The first record with an attachment list whose first entry names a record (52-byte entries
// after a u32 count, the list's offset relative to the record).
std::uint32_t first_attaching(const std::vector<uint8_t>& b) {
    for (std::uint32_t i = 1; i < get32(b, 0); ++i) {
        const std::uint32_t at = slot_offset(b, i);
        if (at == 0) continue;
        const std::uint32_t list = get32(b, at + hdr::attachments);
        if (list != 0 && get32(b, at + list) != 0 && get32(b, at + list + 4) != 0) return i;
    }
    throw std::logic_error("hostile: no record attaches another");
}

// A slot appended to the model archive whose record is record 1's header with its seven internal
// offsets 0 (its blocks absent), `bytes` long (a whole header, or cut short) and ending the file;
// `last`: its next-record field -1.
void append_bare_header(std::vector<uint8_t>& b, std::uint32_t bytes, bool last) {
    const std::uint32_t count = get32(b, 0);
    b = with_slot_count(b, count + 1);
    const std::uint32_t first = slot_offset(b, 1);
    std::vector<uint8_t> header(b.begin() + first, b.begin() + first + kHeaderSize);
    for (const std::uint32_t at : {hdr::attachments, hdr::bbox, hdr::vertices, hdr::normals, hdr::program,
                                   hdr::shadow, hdr::grid_lighting})
        set32(header, at, 0);
    if (last) set32(header, hdr::next, 0xffffffff);
    header.resize(bytes);
    set32(b, 4 + 4 * count, static_cast<std::uint32_t>(b.size()));
    b.insert(b.end(), header.begin(), header.end());
}

// The first populated slot whose record another record follows in the file: its extent ends at the
// next greater offset (arc.extent), not at the file's end.
std::uint32_t followed_slot(const std::vector<uint8_t>& b) {
    const std::uint32_t count = get32(b, 0);
    for (std::uint32_t i = 0; i < count; ++i) {
        const std::uint32_t at = slot_offset(b, i);
        if (at == 0) continue;
        for (std::uint32_t k = 0; k < count; ++k)
            if (slot_offset(b, k) > at) return i;
    }
    throw std::logic_error("hostile: no record is followed by another");
}

// arc.capacity: the engine's tables (the stand-in's object_table and texture_table).
constexpr std::uint32_t kObjectCapacity = 2048, kTextureCapacity = 1024;

// A record in the middle of the small archive: past record 0 (the null model) and not the last.
constexpr std::uint32_t kRecord = 5;

} // namespace

std::vector<HostileRoot> hostile_roots(const DataRootFiles& base) {
    std::vector<HostileRoot> out;
    auto add = [&](std::string name, std::string archive, std::optional<std::uint32_t> record,
                   std::string rule, std::string breaks, auto&& edit) {
        HostileRoot r{
            std::move(name), std::move(archive), record, std::move(rule), std::move(breaks), false, base};
        edit(r.archive == "3DOBJS.BIN"    ? r.files.objects
             : r.archive == "OBJTEXT.BIN" ? r.files.textures
                                          : r.files.palette);
        out.push_back(std::move(r));
    };
    const std::uint32_t objects_size = static_cast<std::uint32_t>(base.objects.size());
    const std::uint32_t textures_size = static_cast<std::uint32_t>(base.textures.size());
    const std::uint32_t texture = last_populated(base.textures);

    add("objects-table-short", "3DOBJS.BIN", std::nullopt, "valid.table",
        "the file is 3 bytes long: no room for the record count",
        [](std::vector<uint8_t>& b) { b.resize(3); });
    add("objects-table-count", "3DOBJS.BIN", std::nullopt, "valid.table",
        "the record count is one more than the file has room for: the offset table runs past the end",
        [&](std::vector<uint8_t>& b) { set32(b, 0, (objects_size - 4) / 4 + 1); });
    add("objects-record-past-end", "3DOBJS.BIN", std::nullopt, "valid.table",
        "slot 5's offset is the file's size: its header starts at the end",
        [&](std::vector<uint8_t>& b) { set32(b, 4 + 4 * kRecord, objects_size); });
    add("objects-record-short", "3DOBJS.BIN", std::nullopt, "valid.table",
        "the last slot's offset is 187 bytes before the file end: its 188-byte header does not fit",
        [&](std::vector<uint8_t>& b) {
            set32(b, 4 + 4 * (get32(b, 0) - 1), objects_size - (kHeaderSize - 1));
        });
    add("objects-offset-past-record", "3DOBJS.BIN", kRecord, "valid.extent",
        "the record's vertex-list offset (+0x34) is its extent: the list starts at the record's end",
        [&](std::vector<uint8_t>& b) {
            const std::uint32_t at = slot_offset(b, kRecord), next = slot_offset(b, kRecord + 1);
            set32(b, at + hdr::vertices, next - at);
        });
    add("objects-offset-in-header", "3DOBJS.BIN", kRecord, "valid.extent",
        "the record's face-program offset (+0x3c) is 187: inside its own header",
        [&](std::vector<uint8_t>& b) { set32(b, slot_offset(b, kRecord) + hdr::program, kHeaderSize - 1); });

    // Two checks of the loader taken on their edges, for refcheck mutate: the check loop must go on
    // past an empty slot to the broken record after it, and a header 187 bytes long is refused by
    // its length alone (its seven internal offsets all 0, so no offset check refuses it).
    add("objects-empty-then-broken", "3DOBJS.BIN", kRecord, "valid.extent",
        "slot 4 is empty (offset 0) and slot 5's vertex-list offset (+0x34) is its extent: the broken record "
        "comes after an empty slot",
        [&](std::vector<uint8_t>& b) {
            const std::uint32_t at = slot_offset(b, kRecord), next = slot_offset(b, kRecord + 1);
            set32(b, at + hdr::vertices, next - at);
            set32(b, 4 + 4 * (kRecord - 1), 0);
        });
    add("objects-header-187", "3DOBJS.BIN", std::nullopt, "valid.table",
        "a slot appended whose record is record 1's header cut to 187 bytes, its internal offsets all 0, "
        "ending at the file's end: one byte short of a header, with no offset to refuse",
        [](std::vector<uint8_t>& b) { append_bare_header(b, kHeaderSize - 1, false); });
    add("textures-table-short", "OBJTEXT.BIN", std::nullopt, "valid.table",
        "the file is 3 bytes long: no room for the slot count", [](std::vector<uint8_t>& b) { b.resize(3); });
    add("textures-table-count", "OBJTEXT.BIN", std::nullopt, "valid.table",
        "the slot count is one more than the file has room for: the offset table runs past the end",
        [&](std::vector<uint8_t>& b) { set32(b, 0, (textures_size - 4) / 4 + 1); });
    add("texture-past-end", "OBJTEXT.BIN", std::nullopt, "valid.table",
        "the last populated slot's offset is the file's size: its header starts at the end",
        [&](std::vector<uint8_t>& b) { set32(b, 4 + 4 * texture, textures_size); });
    add("texture-header-short", "OBJTEXT.BIN", std::nullopt, "valid.table",
        "the last populated slot starts 11 bytes before the file end: its 12-byte header does not fit",
        [&](std::vector<uint8_t>& b) { set32(b, 4 + 4 * texture, textures_size - 11); });
    add("texture-type", "OBJTEXT.BIN", texture, "valid.texture", "the last populated slot's type is 3",
        [&](std::vector<uint8_t>& b) { set32(b, slot_offset(b, texture), 3); });
    // The broken texture in the table's last slot (the loop ends on the count, not on the error)
    // and in its first (the release after the failure frees one slot).
    add("texture-last-slot", "OBJTEXT.BIN", texture, "valid.texture",
        "the table ends at the last populated slot (its count cut to " + std::to_string(texture + 1) +
            ") and that slot's type is 3",
        [&](std::vector<uint8_t>& b) {
            set32(b, 0, texture + 1);
            set32(b, slot_offset(b, texture), 3);
        });
    add("texture-first-slot", "OBJTEXT.BIN", 0u, "valid.texture",
        "the last populated slot's texture moved to slot 0 (its own slot emptied) with its type 3",
        [&](std::vector<uint8_t>& b) {
            const std::uint32_t at = slot_offset(b, texture);
            set32(b, 4, at);
            set32(b, 4 + 4 * texture, 0);
            set32(b, at, 3);
        });
    add("texture-height-zero", "OBJTEXT.BIN", texture, "valid.texture",
        "the last populated slot's height is 0",
        [&](std::vector<uint8_t>& b) { set32(b, slot_offset(b, texture) + 4, 0); });
    add("texture-height-huge", "OBJTEXT.BIN", texture, "valid.extent",
        "the last populated slot's height is 4097: its pixels would run past the file end",
        [&](std::vector<uint8_t>& b) { set32(b, slot_offset(b, texture) + 4, 4097); });
    // The last populated slot rewritten as a texture whose pixels all fit (the file grown to hold
    // them), so that only the type or the height is out of bounds: type 3 (valid.texture: 0..2) and
    // height 4097 (1..4096) are refused by their bound alone; height 4096 is the edge, accepted.
    const auto fitting = [&](std::uint32_t type, std::uint32_t height) {
        return [&, type, height](std::vector<uint8_t>& b) {
            const std::uint32_t at = slot_offset(b, texture);
            set32(b, at, type);
            set32(b, at + 4, height);
            const std::size_t end = at + 12 + (std::size_t{16} << type) * height;
            const std::size_t old = b.size();
            b.resize(std::max(old, end));
            for (std::size_t i = old; i < b.size(); ++i) b[i] = static_cast<uint8_t>(1 + i % 251);
        };
    };
    add("texture-type-fits", "OBJTEXT.BIN", texture, "valid.texture",
        "the last populated slot's type is 3, with the 128 bytes a row of that type would take for each of "
        "its rows (the file grown): refused by the type's bound alone",
        fitting(3, 4));
    add("texture-height-over-max", "OBJTEXT.BIN", texture, "valid.texture",
        "the last populated slot's height is 4097 (type 0), with its pixels all in the file (grown to hold "
        "them): refused by the height's bound alone",
        fitting(0, 4097));
    add("texture-pixels-short", "OBJTEXT.BIN", texture, "valid.extent",
        "the last populated slot's height is one row more than its pixels hold",
        [&](std::vector<uint8_t>& b) {
            const std::size_t at = slot_offset(b, texture) + 4;
            set32(b, at, get32(b, at) + 1);
        });
    // arc.extent at the next record: the slot's pixels would run into the next texture's bytes, the
    // file going on past them (texture-pixels-short breaks at the file's end, which an original
    // running every record to the file's end also refuses).
    const std::uint32_t followed = followed_slot(base.textures);
    add("texture-pixels-into-next", "OBJTEXT.BIN", followed, "valid.extent",
        "slot " + std::to_string(followed) +
            "'s height is one row more than its pixels hold: the row would be the next texture's bytes",
        [&](std::vector<uint8_t>& b) {
            const std::size_t at = slot_offset(b, followed) + 4;
            set32(b, at, get32(b, at) + 1);
        });
    add("palette-short", "3DPAL.RGB", std::nullopt, "valid.refuse",
        "the palette file is 671 bytes: one short of its 224 colours",
        [](std::vector<uint8_t>& b) { b.resize(224 * 3 - 1); });
    // arc.capacity, from both sides: one slot more than the engine's table holds (refused), exactly
    // as many (an edge, accepted).
    add("objects-over-capacity", "3DOBJS.BIN", std::nullopt, "arc.capacity",
        "the table counts 2049 slots (the records moved after it, the new slots empty): one more than the "
        "engine's 2048",
        [](std::vector<uint8_t>& b) { b = with_slot_count(b, kObjectCapacity + 1); });
    add("textures-over-capacity", "OBJTEXT.BIN", std::nullopt, "arc.capacity",
        "the table counts 1025 slots (the textures moved after it, the new slots empty): one more than the "
        "engine's 1024",
        [](std::vector<uint8_t>& b) { b = with_slot_count(b, kTextureCapacity + 1); });
    // Each archive empty (0 bytes), then missing from the root (valid.missing).
    for (const char* archive : {"3DOBJS.BIN", "OBJTEXT.BIN", "3DPAL.RGB"}) {
        const std::string stem = std::string(archive) == "3DOBJS.BIN"    ? "objects"
                                 : std::string(archive) == "OBJTEXT.BIN" ? "textures"
                                                                         : "palette";
        add(stem + "-empty-file", archive, std::nullopt, stem == "palette" ? "valid.refuse" : "valid.table",
            "the file is empty (0 bytes)", [](std::vector<uint8_t>& b) { b.clear(); });
        add(stem + "-missing", archive, std::nullopt, "valid.missing", "the data root has no such file",
            [](std::vector<uint8_t>& b) { b.clear(); });
        out.back().missing = true;
    }
    // Valid edges: the loader accepts them (arc.table: a zero offset is an empty slot).
    add("edge-objects-empty-slot", "3DOBJS.BIN", kRecord, "arc.table",
        "slot 5's offset is 0: an empty slot (its bytes stay, inside record 4's extent)",
        [&](std::vector<uint8_t>& b) { set32(b, 4 + 4 * kRecord, 0); });
    out.back().valid = true;
    add("edge-objects-at-capacity", "3DOBJS.BIN", std::nullopt, "arc.capacity",
        "the table counts 2048 slots, as many as the engine's table holds (the new slots empty)",
        [](std::vector<uint8_t>& b) { b = with_slot_count(b, kObjectCapacity); });
    out.back().valid = true;
    add("edge-textures-at-capacity", "OBJTEXT.BIN", std::nullopt, "arc.capacity",
        "the table counts 1024 slots, as many as the engine's table holds (the new slots empty)",
        [](std::vector<uint8_t>& b) { b = with_slot_count(b, kTextureCapacity); });
    out.back().valid = true;
    // The smallest sizes the loader's checks accept: a table of no slots (4 bytes), and a last
    // record that is a header alone ending exactly at the file's end.
    add("edge-objects-no-slots", "3DOBJS.BIN", std::nullopt, "arc.table",
        "the model archive is a count of 0 and nothing else",
        [](std::vector<uint8_t>& b) { b.assign(4, 0); });
    out.back().valid = true;
    add("edge-objects-header-at-end", "3DOBJS.BIN", std::nullopt, "arc.records",
        "a slot appended whose record is record 1's 188-byte header alone, its blocks absent, ending exactly "
        "at "
        "the file's end",
        [](std::vector<uint8_t>& b) { append_bare_header(b, kHeaderSize, true); });
    out.back().valid = true;
    add("edge-texture-height-max", "OBJTEXT.BIN", texture, "valid.texture",
        "the last populated slot's height is 4096 (type 0), the greatest the loader accepts, with its pixels "
        "all in the file (grown to hold them)",
        fitting(0, 4096));
    out.back().valid = true;
    // att.depth from both sides: a record whose first attachment names the record itself, so that
    // construction nests it as deep as the engine allows (depth 7, eight levels) and the draw and
    // shadow walk eight levels of it. Valid: the id names a populated record.
    const std::uint32_t attaching = first_attaching(base.objects);
    add("edge-self-attach", "3DOBJS.BIN", attaching, "att.depth",
        "record " + std::to_string(attaching) + "'s first attachment names record " +
            std::to_string(attaching) + " itself: a chain as deep as construction nests",
        [&](std::vector<uint8_t>& b) {
            const std::uint32_t at = slot_offset(b, attaching);
            set32(b, at + get32(b, at + hdr::attachments) + 4, attaching);
        });
    out.back().valid = true;
    // hdr.absent: a record without a normal list (its offset 0), of each encoding: the first grid and
    // the first s16 record after record 8 that have one lose it. Valid: a grid model without normals
    // is lit at full intensity; an s16 model's levels are then the stack's (fault.normal.standin).
    const auto without_normals = [&](std::uint32_t encoding) {
        for (std::uint32_t i = 9; i < get32(base.objects, 0); ++i) {
            const std::uint32_t at = slot_offset(base.objects, i);
            if (at && get32(base.objects, at + hdr::encoding) == encoding &&
                get32(base.objects, at + hdr::normals))
                return i;
        }
        throw std::logic_error("hostile: no record of that encoding has normals");
    };
    const std::uint32_t grid_record = without_normals(1), s16_record = without_normals(0);
    add("edge-no-normals", "3DOBJS.BIN", grid_record, "hdr.absent",
        "records " + std::to_string(grid_record) + " (grid) and " + std::to_string(s16_record) +
            " (s16) have no normal list: their normal-list offsets (+0x38) are 0",
        [&](std::vector<uint8_t>& b) {
            for (const std::uint32_t r : {grid_record, s16_record})
                set32(b, slot_offset(b, r) + hdr::normals, 0);
        });
    out.back().valid = true;
    // shadow.substitute on the small data: the table grown to 0x4bd slots, with copies of four
    // shadow-casting s16 records without attachments (22, 27, 29, 30; each copy's offsets are
    // relative to itself) in slots 0x40a (the substitute geometry), 0x4ba and 0x4bb (the two
    // substituted models) and 0x4bc (the next one, not substituted). Valid.
    add("edge-shadow-substitutes", "3DOBJS.BIN", 0x4ba, "shadow.substitute",
        "the table grown to 0x4bd slots, with copies of records 22, 27, 29 and 30 in slots 0x40a, 0x4ba, "
        "0x4bb "
        "and 0x4bc",
        [&](std::vector<uint8_t>& b) {
            const std::uint32_t count = get32(b, 0);
            const auto extent = [&](const std::vector<uint8_t>& a, std::uint32_t slot) {
                const std::uint32_t at = slot_offset(a, slot);
                std::uint32_t end = static_cast<std::uint32_t>(a.size());
                for (std::uint32_t i = 0; i < get32(a, 0); ++i)
                    if (const std::uint32_t o = slot_offset(a, i); o > at && o < end) end = o;
                return std::pair{at, end};
            };
            b = with_slot_count(b, 0x4bd);
            for (const auto [slot, source] : {std::pair{0x40au, 22u}, std::pair{0x4bau, 27u},
                                              std::pair{0x4bbu, 29u}, std::pair{0x4bcu, 30u}}) {
                if (source >= count) throw std::logic_error("hostile: the archive lacks a source record");
                const auto [at, end] = extent(b, source);
                const std::vector<uint8_t> copy(b.begin() + at, b.begin() + end);
                set32(b, 4 + 4 * slot, static_cast<std::uint32_t>(b.size()));
                b.insert(b.end(), copy.begin(), copy.end());
            }
        });
    out.back().valid = true;
    add("edge-textures-empty", "OBJTEXT.BIN", std::nullopt, "arc.table",
        "the texture archive is a count of 0 and nothing else",
        [](std::vector<uint8_t>& b) { b.assign(4, 0); });
    out.back().valid = true;
    // pal.file.layout: bytes after the 224 colours are ignored (every generated palette is 672 bytes).
    add("edge-palette-long", "3DPAL.RGB", std::nullopt, "pal.file.layout",
        "the palette file is 701 bytes: 29 bytes follow its 224 colours", [](std::vector<uint8_t>& b) {
            b.resize(224 * 3);
            for (std::uint8_t k = 0; k < 29; ++k) b.push_back(static_cast<uint8_t>(0xa5 ^ (k * 37)));
        });
    out.back().valid = true;
    add_program_roots(out, base);
    return out;
}

void write_hostile_roots(const std::vector<HostileRoot>& roots, const std::filesystem::path& dir) {
    auto write = [](const std::filesystem::path& p, const std::vector<uint8_t>& bytes) {
        std::ofstream out(p, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        if (!out) throw std::runtime_error("cannot write " + p.string());
    };
    nlohmann::ordered_json manifest = {{"schema", "refcheck-hostile/1"},
                                       {"roots", nlohmann::ordered_json::array()}};
    for (const HostileRoot& r : roots) {
        const auto root = dir / r.name;
        std::filesystem::create_directories(root / "3DDATA");
        // A root written over an earlier one may hold the file it must lack: removed first.
        for (const auto& [name, path, bytes] :
             {std::tuple{"3DOBJS.BIN", root / "3DDATA" / "3DOBJS.BIN", &r.files.objects},
              std::tuple{"OBJTEXT.BIN", root / "3DDATA" / "OBJTEXT.BIN", &r.files.textures},
              std::tuple{"3DPAL.RGB", root / "3DPAL.RGB", &r.files.palette}}) {
            std::filesystem::remove(path);
            if (!(r.missing && r.archive == name)) write(path, *bytes);
        }
        nlohmann::ordered_json e = {{"name", r.name}, {"archive", r.archive}};
        e["record"] = r.record ? nlohmann::ordered_json(*r.record) : nlohmann::ordered_json(nullptr);
        e["rule"] = r.rule;
        e["breaks"] = r.breaks;
        e["valid"] = r.valid;
        e["kind"] = r.kind;
        e["missing"] = r.missing;
        manifest["roots"].push_back(e);
    }
    const std::string text = manifest.dump(2) + "\n";
    write(dir / "hostile.json", std::vector<uint8_t>(text.begin(), text.end()));
}

} // namespace refcheck::synth
