// The system region's fixed addresses (internal): what machine_system.cpp maps and the msvcrt
// shims use. Everything lies in [Machine::system_base, Machine::shim_base).
#pragma once

#include "refcheck/emu/machine.hpp"

namespace refcheck::emu::sys {

inline constexpr Address gdt = Machine::system_base;                   // one page, read/write
inline constexpr Address runtime_code = Machine::system_base + 0x1000; // one page, read/execute
inline constexpr Address initterm_code = runtime_code;                 // the _initterm loop
inline constexpr Address process_data = Machine::system_base + 0x2000; // read/write
// Inside process_data:
inline constexpr Address errno_cell = process_data + 0x00;
inline constexpr Address fmode_cell = process_data + 0x04;
inline constexpr Address commode_cell = process_data + 0x08;
inline constexpr Address argv_array = process_data + 0x10;         // argv[0], NULL
inline constexpr Address envp_array = process_data + 0x20;         // NULL
inline constexpr Address initenv_cell = process_data + 0x40;       // msvcrt's __initenv (data import)
inline constexpr Address acmdln_cell = process_data + 0x44;        // _acmdln: the command line
inline constexpr Address argc_cell = process_data + 0x48;          // __argc
inline constexpr Address argv_cell = process_data + 0x4c;          // __argv
inline constexpr Address environ_cell = process_data + 0x50;       // _environ
inline constexpr Address program_name = process_data + 0x100;      // argv[0]'s characters (256 bytes)
inline constexpr Address iob = process_data + 0x200;               // _iob: stdin, stdout, stderr FILEs
inline constexpr Address environment_block = process_data + 0x300; // GetEnvironmentStrings: "\0\0"
inline constexpr Address command_line_w = process_data + 0x400;    // GetCommandLineW's UTF-16 copy
inline constexpr uint32_t command_line_w_chars = 256;              // (to process_data + 0x600)
inline constexpr Address file_objects = process_data + 0x1000;     // FILE objects, 32 bytes each
inline constexpr uint32_t file_object_size = 32;
inline constexpr uint32_t file_object_count = 128;
inline constexpr Address tls_array = Machine::teb_address + 0xe10; // TEB.TlsSlots (zero)

inline constexpr uint16_t code_selector = 1 << 3;     // GDT entry 1: flat code
inline constexpr uint16_t data_selector = 2 << 3;     // GDT entry 2: flat data (DS, ES, SS, GS)
inline constexpr uint16_t fs_selector = (3 << 3) | 3; // GDT entry 3, RPL 3: the TEB
inline constexpr uint32_t process_id = 0x100, thread_id = 0x104;
// GetStdHandle's answers: below the first handle a file gets (Kernel32State::next_handle).
inline constexpr uint32_t stdin_handle = 0x10, stdout_handle = 0x14, stderr_handle = 0x18;

} // namespace refcheck::emu::sys
