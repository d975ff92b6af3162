# Project-wide compile options: strict IEEE arithmetic (bit-exactness across CPU and GPU depends on
# it), warnings, optional sanitizers.

add_library(mjportal_options INTERFACE)
target_compile_options(mjportal_options INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-ffp-contract=off -fno-fast-math -Wall -Wextra -Wpedantic -Wshadow>
  $<$<COMPILE_LANGUAGE:CUDA>:-fmad=false --Werror=all-warnings -Xcompiler=-ffp-contract=off>)
if(MJPORTAL_WERROR)
  target_compile_options(mjportal_options INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
endif()
if(MJPORTAL_SANITIZE)
  target_compile_options(mjportal_options INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined -fno-omit-frame-pointer
    -fno-sanitize-recover=all>)
  target_link_options(mjportal_options INTERFACE -fsanitize=address,undefined)
  # The wheel's libmujoco is not built with ASan: skip mjsan.h (by its include guard) so that
  # mujoco.h declares the plain mj_markStack/mj_freeStack instead of the ASan-only variants.
  target_compile_definitions(mjportal_options INTERFACE MUJOCO_INCLUDE_MJSAN_H_)
endif()
