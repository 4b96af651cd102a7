# The emu/ test image: freestanding C (kernel32 and msvcrt imports, no CRT start-up) cross-compiled with ${MINGW_CC} into a PE32 at a pinned
# image base (mingw's ld emits .reloc by default, so it can also be rebased). Used by the emu
# tests, emu_bench and emudemo; built once per build tree.
function(refcheck_emu_test_image out_var)
  set(dir ${CMAKE_SOURCE_DIR}/tests/emu/guest)
  set(image ${CMAKE_BINARY_DIR}/emu_test_image/emu_test_image.exe)
  # The same code linked at 0x63080000 (Debian's i686 zlib1.dll's preferred base, above the
  # default heap's start): the real-image tests load it there and rebase it.
  set(high ${CMAKE_BINARY_DIR}/emu_test_image/emu_test_image_high.exe)
  set(crt ${CMAKE_BINARY_DIR}/emu_test_image/emu_crt_image.exe)
  # Its linker map: the only place its (stripped) routines are named (the boot-mode test reads it).
  set(crt_map ${CMAKE_BINARY_DIR}/emu_test_image/emu_crt_image.map)
  if(NOT TARGET emu_test_image)
    set(sources ${dir}/entry.c ${dir}/conventions.c ${dir}/files.c ${dir}/memory.c ${dir}/faults.c ${dir}/bench.c
                ${dir}/crt.c ${dir}/fs.c ${dir}/coverage.c ${dir}/startup.c)
    set(flags -nostdlib -ffreestanding -fno-asynchronous-unwind-tables -O2 -Wall -Wextra)
    add_custom_command(OUTPUT ${image} ${high}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/emu_test_image
      COMMAND ${MINGW_CC} ${flags} -Wl,--image-base=0x00400000 -Wl,-e,_guest_entry@0 -Wl,--kill-at
              -o ${image} ${sources} -lkernel32 -lmsvcrt
      COMMAND ${MINGW_CC} ${flags} -Wl,--image-base=0x63080000 -Wl,-e,_guest_entry@0 -Wl,--kill-at
              -o ${high} ${sources} -lkernel32 -lmsvcrt
      DEPENDS ${sources} ${dir}/guest.h
      COMMENT "Cross-compiling the emu/ test image (at 0x00400000 and at 0x63080000)"
      VERBATIM)
    # Built like a retail image: mingw's CRT start-up against msvcrt.dll, no exports, stripped.
    add_custom_command(OUTPUT ${crt} ${crt_map}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/emu_test_image
      COMMAND ${MINGW_CC} -O1 -s -Wall -Wextra -Wl,--image-base=0x20000000 -Wl,-Map,${crt_map}
              -o ${crt} ${dir}/crt_main.c
      DEPENDS ${dir}/crt_main.c
      COMMENT "Cross-compiling the emu/ CRT test image (mingw start-up, msvcrt, stripped, at 0x20000000)"
      VERBATIM)
    add_custom_target(emu_test_image ALL DEPENDS ${image} ${high} ${crt})
  endif()
  set(${out_var} ${image} PARENT_SCOPE)
  set(${out_var}_HIGH ${high} PARENT_SCOPE)
  set(${out_var}_CRT ${crt} PARENT_SCOPE)
  set(${out_var}_CRT_MAP ${crt_map} PARENT_SCOPE)
endfunction()
