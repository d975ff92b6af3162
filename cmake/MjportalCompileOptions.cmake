# Project-wide compile options: strict IEEE arithmetic (bit-exactness across CPU and GPU depends on
# it), warnings, optional sanitizers.

add_library(mjportal_options INTERFACE)
target_compile_options(mjportal_options INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-ffp-contract=off -fno-fast-math -Wall -Wextra -Wpedantic -Wshadow>
  $<$<COMPILE_LANGUAGE:CUDA>:-fmad=false --Werror=all-warnings -Xcompiler=-ffp-contract=off>)
# AVX (VEX-encoded scalar double arithmetic, no FMA) as MuJoCo's own wheel is built: the same IEEE
# results, fewer register copies. Off for a CPU without AVX (libmujoco itself needs it).
include(CheckCXXCompilerFlag)
check_cxx_compiler_flag(-mavx MJPORTAL_COMPILER_HAS_AVX)
option(MJPORTAL_AVX "Compile host code with -mavx (as MuJoCo's wheel is)" ${MJPORTAL_COMPILER_HAS_AVX})
if(MJPORTAL_AVX)
  target_compile_options(mjportal_options INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-mavx>)
endif()
# No straight-line (SLP) vectorization: on our 3-vector code it packs pairs of lanes and pays
# for it in shuffles and spills (callgrind: ~8% more instructions in EPA; fast-mode cylinder
# pairs ~1.4x slower). Loop vectorization stays on.
check_cxx_compiler_flag(-fno-tree-slp-vectorize MJPORTAL_COMPILER_HAS_NO_SLP)
if(MJPORTAL_COMPILER_HAS_NO_SLP)
  target_compile_options(mjportal_options INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-fno-tree-slp-vectorize>)
endif()
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
