// The system region: a GDT whose entry 3 is FS's segment (base = the TEB), the TEB and PEB that
// CRT start-up and SEH prologs read through FS, the runtime code page (guest code the msvcrt
// shims hand over to: the _initterm loop) and the process data page (argv, errno, FILE objects).
#include <cstring>

#include "machine_impl.hpp"
#include "system_layout.hpp"

namespace refcheck::emu {

namespace {

void put32(std::vector<uint8_t>& page, size_t at, uint32_t v) { std::memcpy(page.data() + at, &v, 4); }

// A 32-bit segment descriptor. access: 0x9b flat code (P, DPL 0, readable), 0x93 data (P, DPL 0,
// writable), 0xf3 data at DPL 3; flags 0xc: 4 KiB granular and 32-bit, 0x4: byte granular.
uint64_t descriptor(uint32_t base, uint32_t limit, uint8_t access, uint8_t flags) {
    uint64_t d = limit & 0xffff;
    d |= uint64_t{base & 0xffffff} << 16;
    d |= uint64_t{access} << 40;
    d |= uint64_t{(limit >> 16) & 0xf} << 48;
    d |= uint64_t{flags} << 52;
    d |= uint64_t{base >> 24} << 56;
    return d;
}

// void _initterm(_PVFV* begin, _PVFV* end): calls every non-null pointer in [begin, end).
constexpr uint8_t initterm_loop[] = {
    0x56,                   // push esi
    0x57,                   // push edi
    0x8b, 0x74, 0x24, 0x0c, // mov esi, [esp+12]
    0x8b, 0x7c, 0x24, 0x10, // mov edi, [esp+16]
    0x39, 0xfe,             // loop: cmp esi, edi
    0x73, 0x0d,             // jae done
    0x8b, 0x06,             // mov eax, [esi]
    0x85, 0xc0,             // test eax, eax
    0x74, 0x02,             // jz next
    0xff, 0xd0,             // call eax
    0x83, 0xc6, 0x04,       // next: add esi, 4
    0xeb, 0xef,             // jmp loop
    0x5f,                   // done: pop edi
    0x5e,                   // pop esi
    0xc3,                   // ret
};

} // namespace

void Machine::Impl::map_system() {
    if (map(system_base, shim_base - system_base, UC_PROT_READ | UC_PROT_WRITE) != UC_ERR_OK)
        throw EmuError("cannot map the system region");
    std::vector<uint8_t> gdt_page(0x1000, 0);
    const uint64_t entries[][2] = {{sys::code_selector, descriptor(0, 0xfffff, 0x9b, 0xc)},
                                   {sys::data_selector, descriptor(0, 0xfffff, 0x93, 0xc)},
                                   {sys::fs_selector, descriptor(teb_address, 0xfff, 0xf3, 0x4)}};
    for (const auto& [selector, d] : entries) std::memcpy(gdt_page.data() + 8 * (selector >> 3), &d, 8);
    uc_mem_write(uc, sys::gdt, gdt_page.data(), gdt_page.size());
    uc_x86_mmr gdtr{};
    gdtr.base = sys::gdt;
    gdtr.limit = 0x1000 - 1;
    if (uc_reg_write(uc, UC_X86_REG_GDTR, &gdtr) != UC_ERR_OK) throw EmuError("Unicorn: cannot set the GDT");
    // Loading a selector makes Unicorn recompute its segment state from the descriptors, so every
    // segment register gets one: flat 32-bit code and data (ring 0, as Unicorn runs), FS the TEB.
    struct Load {
        int reg;
        uint16_t selector;
    };
    for (Load l : {Load{UC_X86_REG_CS, sys::code_selector}, Load{UC_X86_REG_SS, sys::data_selector},
                   Load{UC_X86_REG_DS, sys::data_selector}, Load{UC_X86_REG_ES, sys::data_selector},
                   Load{UC_X86_REG_GS, sys::data_selector}, Load{UC_X86_REG_FS, sys::fs_selector}}) {
        uint32_t selector = l.selector;
        if (uc_reg_write(uc, l.reg, &selector) != UC_ERR_OK)
            throw EmuError("Unicorn: cannot load segment selector " + hex(selector));
    }

    std::vector<uint8_t> code(0x1000, 0xf4); // hlt around the routines
    std::memcpy(code.data(), initterm_loop, sizeof initterm_loop);
    uc_mem_write(uc, sys::runtime_code, code.data(), code.size());
    protect(sys::runtime_code, 0x1000, UC_PROT_READ | UC_PROT_EXEC);

    std::vector<uint8_t> data(0x1000, 0);
    put32(data, sys::argv_array - sys::process_data, sys::program_name);
    put32(data, sys::initenv_cell - sys::process_data, sys::envp_array);
    put32(data, sys::acmdln_cell - sys::process_data, sys::program_name);
    put32(data, sys::argc_cell - sys::process_data, 1);
    put32(data, sys::argv_cell - sys::process_data, sys::argv_array);
    put32(data, sys::environ_cell - sys::process_data, sys::envp_array);
    for (uint32_t i = 0; i < 3; ++i) // _iob[i]._file = i
        put32(data, sys::iob - sys::process_data + i * sys::file_object_size + 0x10, i);
    const char name[] = "C:\\image.exe"; // replaced by the image's file name at load
    std::memcpy(data.data() + (sys::program_name - sys::process_data), name, sizeof name);
    uc_mem_write(uc, sys::process_data, data.data(), data.size());
    update_system();
}

void Machine::Impl::update_system() {
    std::vector<uint8_t> teb(0x1000, 0);
    put32(teb, 0x00, 0xffffffff);      // ExceptionList: the end of the SEH chain
    put32(teb, 0x04, stack.end);       // StackBase
    put32(teb, 0x08, stack.begin);     // StackLimit
    put32(teb, 0x18, teb_address);     // Self
    put32(teb, 0x20, sys::process_id); // ClientId.UniqueProcess
    put32(teb, 0x24, sys::thread_id);  // ClientId.UniqueThread
    put32(teb, 0x2c, sys::tls_array);  // ThreadLocalStoragePointer (zero slots)
    put32(teb, 0x30, peb_address);     // ProcessEnvironmentBlock
    uc_mem_write(uc, teb_address, teb.data(), teb.size());
    std::vector<uint8_t> peb(0x1000, 0);
    put32(peb, 0x08, image ? image->base : 0);    // ImageBaseAddress
    put32(peb, 0x18, win32::process_heap_handle); // ProcessHeap
    uc_mem_write(uc, peb_address, peb.data(), peb.size());
    if (image) {
        std::string name = options.mount + image->path.filename().string();
        if (name.size() > 255) name.resize(255);
        std::vector<uint8_t> bytes(name.begin(), name.end());
        bytes.push_back(0);
        uc_mem_write(uc, sys::program_name, bytes.data(), bytes.size());
    }
}

void Machine::Impl::reset_thread_state() {
    uint32_t end_of_chain = 0xffffffff;
    uc_mem_write(uc, teb_address, &end_of_chain, 4);
}

} // namespace refcheck::emu
