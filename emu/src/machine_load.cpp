// PE32 loading with LIEF: headers and sections mapped with their protections, .bss zero-filled,
// base relocations applied when rebased, imports bound to shim thunks or the trap, exports and
// COFF symbols recorded (the symbol table read from the file itself: coff_symbols.cpp).
#include <LIEF/PE.hpp>
#include <LIEF/exception.hpp>

#include <algorithm>
#include <cstring>
#include <fstream>

#include "coff_symbols.hpp"
#include "machine_impl.hpp"

namespace refcheck::emu {

namespace {

constexpr uint32_t page = 0x1000;
uint32_t page_up(uint64_t v) { return static_cast<uint32_t>((v + page - 1) / page * page); }

std::unique_ptr<LIEF::PE::Binary> parse(const std::filesystem::path& path) {
    std::unique_ptr<LIEF::PE::Binary> bin;
    try {
        bin = LIEF::PE::Parser::parse(path.string());
    } catch (const std::exception& e) {
        throw EmuError("cannot load image " + path.string() + ": " + e.what());
    }
    if (!bin) throw EmuError("cannot load image " + path.string() + ": not a PE file");
    if (bin->type() != LIEF::PE::PE_TYPE::PE32 ||
        bin->header().machine() != LIEF::PE::MACHINE_TYPES::IMAGE_FILE_MACHINE_I386)
        throw EmuError("image " + path.string() + " is not a PE32 for i386");
    return bin;
}

std::vector<uint8_t> file_head(const std::filesystem::path& path, uint32_t size) {
    std::ifstream in(path, std::ios::binary);
    std::vector<uint8_t> out(size);
    in.read(reinterpret_cast<char*>(out.data()), size);
    out.resize(static_cast<size_t>(in.gcount()));
    return out;
}

uint32_t unicorn_protection(const ImageSection& s) {
    return (s.readable ? UC_PROT_READ : 0) | (s.writable ? UC_PROT_WRITE : 0) |
           (s.executable ? UC_PROT_EXEC : 0);
}

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

} // namespace

struct Loader {
    Machine::Impl& impl;
    LIEF::PE::Binary& bin;
    Image& image;
    std::vector<uint8_t> memory; // the image as mapped, built on the host first

    void copy_headers() {
        auto head = file_head(image.path, bin.optional_header().sizeof_headers());
        if (const size_t n = std::min(head.size(), memory.size()); n != 0)
            std::memcpy(memory.data(), head.data(), n);
    }

    void copy_sections() {
        // A section whose file data the file lacks (a truncated copy, a corrupt header) is refused:
        // its missing bytes were left zero and ran as the original's code, and the verdict blamed
        // the original (found by the hostile-input audit). So are sections that overlap in memory.
        const uint64_t file_size = std::filesystem::file_size(image.path);
        std::vector<std::pair<uint64_t, uint64_t>> spans;
        for (const LIEF::PE::Section& s : bin.sections()) {
            ImageSection out;
            out.name = s.name();
            uint32_t va = static_cast<uint32_t>(s.virtual_address());
            uint32_t vsize = std::max(s.virtual_size(), s.sizeof_raw_data());
            if (uint64_t{va} + vsize > memory.size())
                throw EmuError("section " + out.name + " lies outside SizeOfImage in " + image.path.string());
            const uint64_t raw_at = s.pointerto_raw_data(), raw_size = s.sizeof_raw_data();
            if (raw_size != 0 && raw_at + raw_size > file_size)
                throw EmuError("section " + out.name + "'s file data (" + std::to_string(raw_size) +
                               " bytes at file offset " + hex(static_cast<uint32_t>(raw_at)) +
                               ") runs past the end of " + image.path.string() + " (" +
                               std::to_string(file_size) +
                               " bytes): the image is truncated or its section table is corrupt");
            for (const auto& [from, to] : spans)
                if (va < to && from < uint64_t{va} + std::max<uint32_t>(vsize, 1))
                    throw EmuError("section " + out.name + " overlaps another section in memory in " +
                                   image.path.string() + ": the section table is corrupt");
            spans.emplace_back(va, uint64_t{va} + std::max<uint32_t>(vsize, 1));
            std::vector<uint8_t> content = s.content();
            // LIEF gives the file data up to the virtual size (all of it when that is 0).
            const uint64_t expected =
                s.virtual_size() != 0 ? std::min<uint64_t>(raw_size, s.virtual_size()) : raw_size;
            if (content.size() < expected)
                throw EmuError("section " + out.name + " holds " + std::to_string(content.size()) +
                               " of its " + std::to_string(raw_size) + " bytes of file data in " +
                               image.path.string() +
                               ": the image is truncated or its section table is corrupt");
            size_t n = std::min<size_t>(content.size(), vsize);
            if (n != 0) std::memcpy(memory.data() + va, content.data(), n);
            out.data_size = static_cast<uint32_t>(n);
            out.range = {image.base + va, image.base + page_up(uint64_t{va} + std::max<uint32_t>(vsize, 1))};
            uint32_t ch = s.characteristics();
            out.executable = (ch & 0x20000000u) != 0;
            out.readable = (ch & 0x40000000u) != 0 || out.executable;
            out.writable = (ch & 0x80000000u) != 0;
            image.sections.push_back(std::move(out));
        }
    }

    void apply_relocations() {
        uint32_t delta = image.base - image.preferred_base;
        if (delta == 0) return;
        if (!bin.has_relocations())
            throw EmuError("image " + image.path.string() + " has no base relocations and cannot load at " +
                           hex(image.base));
        for (const LIEF::PE::Relocation& block : bin.relocations()) {
            for (const LIEF::PE::RelocationEntry& e : block.entries()) {
                auto type = e.type();
                if (type == LIEF::PE::RELOCATIONS_BASE_TYPES::IMAGE_REL_BASED_ABSOLUTE) continue;
                if (type != LIEF::PE::RELOCATIONS_BASE_TYPES::IMAGE_REL_BASED_HIGHLOW)
                    throw EmuError("unsupported base relocation type " +
                                   std::to_string(static_cast<int>(type)));
                uint32_t rva = block.virtual_address() + e.position();
                if (uint64_t{rva} + 4 > memory.size())
                    throw EmuError("base relocation outside the image at RVA " + hex(rva));
                uint32_t v;
                std::memcpy(&v, memory.data() + rva, 4);
                v += delta;
                std::memcpy(memory.data() + rva, &v, 4);
                ++image.relocations_applied;
            }
        }
    }

    Address thunk_for(const std::string& dll, const std::string& function) {
        std::string key = lower(dll);
        for (size_t i = 0; i < impl.thunks.size(); ++i)
            if (lower(impl.thunks[i].dll) == key && impl.thunks[i].function == function)
                return Machine::shim_base + static_cast<Address>(i) * Machine::thunk_size;
        size_t index = impl.thunks.size();
        if ((index + 1) * Machine::thunk_size > Machine::sentinel - Machine::shim_base)
            throw EmuError("too many imports for the shim page");
        Thunk t{dll, function, win32::find_shim(dll, function)};
        Address at = Machine::shim_base + static_cast<Address>(index) * Machine::thunk_size;
        // The hook runs the shim before this instruction; the instruction then returns to the
        // caller and pops the stdcall arguments. The trap never gets that far.
        uint8_t code[Machine::thunk_size] = {0xc3, 0xf4, 0xf4, 0xf4, 0xf4, 0xf4, 0xf4, 0xf4};
        if (t.shim && info(t.shim->convention).callee_pops) {
            uint16_t pop = static_cast<uint16_t>(4 * stack_arg_count(t.shim->convention, t.shim->arg_count));
            code[0] = 0xc2;
            code[1] = static_cast<uint8_t>(pop);
            code[2] = static_cast<uint8_t>(pop >> 8);
        }
        if (uc_mem_write(impl.uc, at, code, sizeof code) != UC_ERR_OK)
            throw EmuError("cannot write the shim page");
        impl.thunks.push_back(std::move(t));
        return at;
    }

    void bind_imports() {
        if (!bin.has_imports()) return;
        for (const LIEF::PE::Import& imp : bin.imports()) {
            for (const LIEF::PE::ImportEntry& e : imp.entries()) {
                std::string function = e.is_ordinal() ? "#" + std::to_string(e.ordinal()) : e.name();
                uint32_t slot = static_cast<uint32_t>(e.iat_address()); // an RVA in LIEF 0.9
                if (uint64_t{slot} + 4 > memory.size())
                    throw EmuError("IAT slot of " + imp.name() + "!" + function + " outside the image");
                if (const win32::DataImport* d = win32::find_data_import(imp.name(), function)) {
                    std::memcpy(memory.data() + slot, &d->address, 4); // a variable: its cell
                    image.imports.push_back({imp.name(), function, image.base + slot, d->address, true});
                    continue;
                }
                Address thunk = thunk_for(imp.name(), function);
                std::memcpy(memory.data() + slot, &thunk, 4);
                bool shimmed =
                    impl.thunks[(thunk - Machine::shim_base) / Machine::thunk_size].shim != nullptr;
                image.imports.push_back({imp.name(), function, image.base + slot, thunk, shimmed});
            }
        }
    }

    void read_names() {
        if (bin.has_exports())
            for (const LIEF::PE::ExportEntry& e : bin.get_export().entries())
                if (!e.is_extern() && !e.name().empty()) image.exports[e.name()] = image.base + e.address();
        std::vector<uint32_t> section_rva;
        for (const LIEF::PE::Section& s : bin.sections())
            section_rva.push_back(static_cast<uint32_t>(s.virtual_address()));
        const std::vector<uint8_t> file =
            file_head(image.path, static_cast<uint32_t>(std::filesystem::file_size(image.path)));
        for (CoffSymbol& s : read_coff_symbols(file, image.path.string(), image.base, section_rva)) {
            if (s.name[0] == '.') continue; // section and .file names
            image.symbols.emplace(s.name, s.address);
            image.coff_symbols.push_back(std::move(s));
        }
    }

    void map() {
        uc_engine* uc = impl.uc;
        // Per page: the union of the protections of the sections on it; headers read-only.
        std::vector<uint32_t> prot(memory.size() / page, UC_PROT_READ);
        for (const ImageSection& s : image.sections)
            for (Address a = s.range.begin; a < s.range.end; a += page) prot[(a - image.base) / page] = 0;
        for (const ImageSection& s : image.sections)
            for (Address a = s.range.begin; a < s.range.end; a += page)
                prot[(a - image.base) / page] |= unicorn_protection(s);
        // One region per run of pages with the same protection, mapped with it: protecting a single
        // region page by page makes Unicorn split it at every page, copying the rest of it each time
        // (a whole image copied over and over on every boot).
        for (size_t i = 0; i < prot.size();) {
            size_t j = i + 1;
            while (j < prot.size() && prot[j] == prot[i]) ++j;
            const Address at = image.base + static_cast<Address>(i * page);
            const auto size = static_cast<uint32_t>((j - i) * page);
            if (impl.map(at, size, prot[i]) != UC_ERR_OK)
                throw EmuError("cannot map image at " + hex(at) + " (" + with_commas(size) +
                               " bytes): the range is taken or invalid");
            uc_mem_write(uc, at, memory.data() + i * page, size); // writes whatever the protection
            i = j;
        }
    }
};

void Machine::Impl::map_image(const std::filesystem::path& path, std::optional<Address> base) {
    if (image) throw EmuError("this machine already holds " + image->path.string());
    auto bin = parse(path);
    Image img;
    img.path = path;
    img.preferred_base = static_cast<Address>(bin->optional_header().imagebase());
    img.base = base.value_or(img.preferred_base);
    img.size = page_up(bin->optional_header().sizeof_image());
    img.entry = img.base + bin->optional_header().addressof_entrypoint();
    // An image of no size maps nothing (and its headers would be copied into an empty buffer: memcpy
    // from a null pointer, found by fuzz/pe_load).
    if (img.size == 0) throw EmuError("SizeOfImage of " + path.string() + " is 0: nothing to map");
    if (img.base % page != 0)
        throw EmuError("image base " + hex(img.base) + " of " + path.string() + " is not page-aligned");
    if (img.base < 0x10000 || uint64_t{img.base} + img.size > 0xffff0000ull ||
        (img.base < shim_base + shim_size && img.base + img.size > system_base))
        throw EmuError("image " + path.string() + " at " + hex(img.base) + "-" + hex(img.base + img.size) +
                       " overlaps the null page, the system region " + hex(system_base) + "-" +
                       hex(shim_base + shim_size) +
                       " or the top of the address space; load it elsewhere (--base)");
    if (!heap.allocations().empty()) throw EmuError("load the image before the first heap allocation");
    place_around({img.base, img.base + img.size});
    Loader loader{*this, *bin, img, std::vector<uint8_t>(img.size, 0)};
    loader.copy_headers();
    loader.copy_sections();
    loader.apply_relocations();
    loader.bind_imports();
    loader.read_names();
    loader.map();
    // Shown names: exports, then every COFF symbol undecorated (statics of the same name in several
    // files each name their own address; by name, the first resolves).
    for (const auto& [name, address] : img.exports) symbols.add(name, address);
    for (const CoffSymbol& s : img.coff_symbols) symbols.add(undecorate(s.name), s.address);
    for (const auto& [name, address] : img.symbols) symbols.add(name, address);
    for (size_t i = 0; i < thunks.size(); ++i)
        symbols.add(thunks[i].dll + "!" + thunks[i].function,
                    shim_base + static_cast<Address>(i) * thunk_size);
    image = std::move(img);
    update_system();
}

} // namespace refcheck::emu
