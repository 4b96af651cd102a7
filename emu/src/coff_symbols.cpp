#include "coff_symbols.hpp"

#include <cstring>

namespace refcheck::emu {

namespace {

constexpr size_t record_size = 18; // IMAGE_SYMBOL and its auxiliary records

struct Reader {
    std::span<const uint8_t> file;
    const std::string& name;

    [[noreturn]] void fail(const std::string& what) const {
        throw EmuError("COFF symbol table of " + name + ": " + what);
    }
    void need(uint64_t offset, uint64_t size, const char* what) const {
        if (offset + size > file.size())
            fail(std::string(what) + " at file offset " + std::to_string(offset) +
                 " runs past the end of the file (" + std::to_string(file.size()) + " bytes)");
    }
    uint32_t u32(uint64_t offset) const {
        need(offset, 4, "a field");
        uint32_t v;
        std::memcpy(&v, file.data() + offset, 4);
        return v;
    }
    uint16_t u16(uint64_t offset) const {
        need(offset, 2, "a field");
        return static_cast<uint16_t>(file[offset] | file[offset + 1] << 8);
    }
    // Bytes up to the first NUL, at most `max`.
    std::string text(uint64_t offset, size_t max) const {
        const auto* p = reinterpret_cast<const char*>(file.data() + offset);
        return std::string(p, strnlen(p, max));
    }
};

} // namespace

std::vector<CoffSymbol> read_coff_symbols(std::span<const uint8_t> file, const std::string& file_name,
                                          Address base, const std::vector<uint32_t>& section_rva) {
    Reader r{file, file_name};
    const uint32_t pe = r.u32(0x3c);
    if (r.u32(pe) != 0x00004550) r.fail("no PE signature at offset " + std::to_string(pe));
    const uint32_t table = r.u32(pe + 4 + 8), count = r.u32(pe + 4 + 12);
    std::vector<CoffSymbol> out;
    if (table == 0 || count == 0) return out;
    r.need(table, uint64_t{count} * record_size, "the symbol table");
    const uint64_t strings = table + uint64_t{count} * record_size;
    const uint32_t strings_size = r.u32(strings);
    r.need(strings, strings_size, "the string table");
    std::string file_now;
    for (uint32_t i = 0; i < count; ++i) {
        const uint64_t at = table + uint64_t{i} * record_size;
        const uint8_t aux = file[at + 17], storage = file[at + 16];
        const auto section = static_cast<int16_t>(r.u16(at + 12));
        std::string name;
        if (r.u32(at) == 0) { // long name: an offset into the string table
            const uint32_t offset = r.u32(at + 4);
            if (offset < 4 || offset >= strings_size)
                r.fail("symbol " + std::to_string(i) + " names string table offset " +
                       std::to_string(offset) + ", outside its " + std::to_string(strings_size) + " bytes");
            name = r.text(strings + offset, strings_size - offset);
        } else {
            name = r.text(at, 8);
        }
        if (i + aux >= count) r.fail("symbol " + std::to_string(i) + " has auxiliary records past the table");
        if (storage == coff_file && aux != 0)
            file_now = r.text(at + record_size, size_t{aux} * record_size);
        else if (section > 0 && static_cast<size_t>(section) <= section_rva.size() && !name.empty())
            out.push_back({name, file_now, base + section_rva[section - 1] + r.u32(at + 8), storage});
        i += aux;
    }
    return out;
}

} // namespace refcheck::emu
