# umac_add_model(<target> MODEL <file> CPU <target string> [NAME <name>] [OPT speed|size]
#                [POOLS <name:size[:fast][:cpu]>...] [ARGS <more umac compile arguments>...])
#
# Compiles MODEL (TOSA MLIR, MLIR bytecode or .tflite) for CPU (a CPU, or a target string naming
# accelerators first: "vanilla,cortex-m4") with `umac compile` at build time, again whenever the
# model or the umac executable changes, and adds to <target> the object, the C kernels it calls
# (the accelerators', gathered in one generated umac_kernels.c) and the directories of its header
# (<name>.h) and of the kernels' headers to <target>'s include path. NAME (default: the model file's
# stem as a C identifier) prefixes the symbols: <name>_run, <NAME>_WORKSPACE_SIZE, ... The output
# goes to ${CMAKE_CURRENT_BINARY_DIR}/umac/<name>/ (metadata.json beside the header). POOLS splits
# the workspace over memory pools (`umac compile --pool`, once each): <name>_run then takes one
# workspace per pool and the header defines <NAME>_POOL_<POOL>_SIZE.
#
# umac is found as UMAC_EXECUTABLE (a cache variable: -DUMAC_EXECUTABLE=/path/to/umac), else on
# the PATH.
include_guard(GLOBAL)
set(UMAC_CMAKE_DIR "${CMAKE_CURRENT_LIST_DIR}")

find_program(UMAC_EXECUTABLE umac DOC "the umac compiler")

function(umac_add_model target)
  cmake_parse_arguments(PARSE_ARGV 1 UMAC "" "MODEL;CPU;NAME;OPT" "POOLS;ARGS")
  if(UMAC_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "umac_add_model: unknown arguments ${UMAC_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT UMAC_MODEL OR NOT UMAC_CPU)
    message(FATAL_ERROR "umac_add_model(${target} MODEL <file> CPU <cpu> ...): MODEL and CPU are required")
  endif()
  if(NOT UMAC_EXECUTABLE)
    message(FATAL_ERROR "umac_add_model: umac was not found; set UMAC_EXECUTABLE")
  endif()
  get_filename_component(model "${UMAC_MODEL}" ABSOLUTE)
  if(NOT UMAC_NAME)
    get_filename_component(UMAC_NAME "${model}" NAME_WE)
    string(MAKE_C_IDENTIFIER "${UMAC_NAME}" UMAC_NAME)
  endif()
  if(NOT UMAC_OPT)
    set(UMAC_OPT speed)
  endif()
  set(pools)
  foreach(pool IN LISTS UMAC_POOLS)
    list(APPEND pools --pool "${pool}")
  endforeach()
  set(out "${CMAKE_CURRENT_BINARY_DIR}/umac/${UMAC_NAME}")
  set(object "${out}/${UMAC_NAME}.o")
  add_custom_command(
    OUTPUT "${object}" "${out}/${UMAC_NAME}.h" "${out}/metadata.json" "${out}/umac_kernels.c"
    COMMAND "${UMAC_EXECUTABLE}" compile "${model}" "--target=${UMAC_CPU}" --name "${UMAC_NAME}"
            "--opt=${UMAC_OPT}" -o "${out}" ${pools} ${UMAC_ARGS}
    COMMAND "${CMAKE_COMMAND}" "-DOUT=${out}" -P "${UMAC_CMAKE_DIR}/umac_kernels.cmake"
    DEPENDS "${model}" "${UMAC_EXECUTABLE}" "${UMAC_CMAKE_DIR}/umac_kernels.cmake"
    COMMENT "umac: compiling ${UMAC_MODEL} for ${UMAC_CPU} as ${UMAC_NAME}"
    VERBATIM)
  set_source_files_properties("${object}" PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  target_sources(${target} PRIVATE "${object}" "${out}/umac_kernels.c")
  target_include_directories(${target} PRIVATE "${out}" "${out}/include")
endfunction()
