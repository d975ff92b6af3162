# Locate MuJoCo headers and libmujoco, and define the imported target mujoco::mujoco.
#
# Sources, in order: -DMUJOCO_DIR=<release or install tree>, else the `mujoco` Python wheel that
# MJPORTAL_PYTHON imports (the project's .venv). The header's mjVERSION_HEADER decides:
#   < 3.9.0  -> fatal error (no mjPreContact narrowphase contract);
#   != 3.12.0 -> warning (compat mode then refuses to load at run time).

if(MUJOCO_DIR)
  set(_mj_include "${MUJOCO_DIR}/include")
  file(GLOB _mj_libs "${MUJOCO_DIR}/lib/libmujoco.so*" "${MUJOCO_DIR}/lib64/libmujoco.so*")
else()
  if(NOT EXISTS "${MJPORTAL_PYTHON}")
    message(FATAL_ERROR
            "mjportal: no MuJoCo found. Run ./test.sh or ./run.sh (they install mujoco==3.12.0 "
            "into .venv), or pass -DMUJOCO_DIR=<MuJoCo tree> or -DMJPORTAL_PYTHON=<python>.")
  endif()
  execute_process(
    COMMAND "${MJPORTAL_PYTHON}" -c
            "import os, mujoco; print(os.path.dirname(mujoco.HEADERS_DIR)); print(os.path.dirname(mujoco.__file__))"
    OUTPUT_VARIABLE _mj_out RESULT_VARIABLE _mj_rc ERROR_VARIABLE _mj_err
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _mj_rc EQUAL 0)
    message(FATAL_ERROR "mjportal: '${MJPORTAL_PYTHON}' cannot import mujoco: ${_mj_err}")
  endif()
  string(REPLACE "\n" ";" _mj_out "${_mj_out}")
  list(GET _mj_out 0 _mj_include)
  list(GET _mj_out 1 _mj_pkg)
  file(GLOB _mj_libs "${_mj_pkg}/libmujoco.so*")
endif()

if(NOT EXISTS "${_mj_include}/mujoco/mujoco.h")
  message(FATAL_ERROR "mjportal: mujoco/mujoco.h not found under '${_mj_include}'")
endif()
if(NOT _mj_libs)
  message(FATAL_ERROR "mjportal: libmujoco.so not found next to '${_mj_include}'")
endif()
list(SORT _mj_libs)
list(GET _mj_libs -1 MUJOCO_LIBRARY)

# Version from the header.
file(STRINGS "${_mj_include}/mujoco/mujoco.h" _mj_verline REGEX "#define mjVERSION_HEADER")
string(REGEX MATCH "[0-9]+" MUJOCO_VERSION_NUMBER "${_mj_verline}")
math(EXPR _mj_major "${MUJOCO_VERSION_NUMBER} / 1000000")
math(EXPR _mj_minor "(${MUJOCO_VERSION_NUMBER} / 1000) % 1000")
math(EXPR _mj_patch "${MUJOCO_VERSION_NUMBER} % 1000")
set(MUJOCO_VERSION "${_mj_major}.${_mj_minor}.${_mj_patch}")
if(MUJOCO_VERSION_NUMBER LESS 3009000)
  message(FATAL_ERROR
          "mjportal: MuJoCo ${MUJOCO_VERSION} is too old; 3.9.0 or newer is required (mjPreContact "
          "narrowphase contract). Found at ${_mj_include}.")
elseif(NOT MUJOCO_VERSION_NUMBER EQUAL 3012000)
  message(WARNING
          "mjportal: building against MuJoCo ${MUJOCO_VERSION}; compat mode is pinned to 3.12.0 and "
          "will refuse to load (fast mode works).")
endif()
message(STATUS "mjportal: MuJoCo ${MUJOCO_VERSION} at ${MUJOCO_LIBRARY}")

get_filename_component(MUJOCO_LIBRARY_DIR "${MUJOCO_LIBRARY}" DIRECTORY)
get_filename_component(_mj_soname "${MUJOCO_LIBRARY}" NAME)
set(MUJOCO_INCLUDE_DIR "${_mj_include}")
add_library(mujoco::mujoco SHARED IMPORTED)
set_target_properties(mujoco::mujoco PROPERTIES
  IMPORTED_LOCATION "${MUJOCO_LIBRARY}"
  IMPORTED_SONAME "${_mj_soname}"
  INTERFACE_INCLUDE_DIRECTORIES "${_mj_include}")
