# The emu/ test image: freestanding C cross-compiled with ${MINGW_CC} into a PE32 at a pinned
# image base (mingw's ld emits .reloc by default, so it can also be rebased). Used by the emu
# tests, emu_bench and emudemo; built once per build tree.
function(refcheck_emu_test_image out_var)
  set(dir ${CMAKE_SOURCE_DIR}/tests/emu/guest)
  set(image ${CMAKE_BINARY_DIR}/emu_test_image/emu_test_image.exe)
  if(NOT TARGET emu_test_image)
    set(sources ${dir}/entry.c ${dir}/conventions.c ${dir}/files.c ${dir}/memory.c ${dir}/faults.c ${dir}/bench.c)
    add_custom_command(OUTPUT ${image}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/emu_test_image
      COMMAND ${MINGW_CC} -nostdlib -ffreestanding -fno-asynchronous-unwind-tables -O2 -Wall -Wextra
              -Wl,--image-base=0x00400000 -Wl,-e,_guest_entry@0 -Wl,--kill-at
              -o ${image} ${sources} -lkernel32
      DEPENDS ${sources} ${dir}/guest.h
      COMMENT "Cross-compiling the emu/ test image"
      VERBATIM)
    add_custom_target(emu_test_image ALL DEPENDS ${image})
  endif()
  set(${out_var} ${image} PARENT_SCOPE)
endfunction()
