# zluda_compiler_stamp(HEADER MACRO DIR...): generates HEADER defining MACRO,
# the SHA-256 of every source file (.cpp .h .def .inc) under the DIRs, so that
# the compile cache never reuses what another build of the compiler made.
function(zluda_compiler_stamp header macro)
  set(_globs)
  foreach(_dir IN LISTS ARGN)
    foreach(_ext cpp h def inc)
      list(APPEND _globs ${_dir}/*.${_ext})
    endforeach()
  endforeach()
  file(GLOB_RECURSE _sources CONFIGURE_DEPENDS ${_globs})
  list(SORT _sources)
  string(REPLACE ";" "\n" _list "${_sources}")
  get_filename_component(_name ${header} NAME_WE)
  set(_list_file ${CMAKE_CURRENT_BINARY_DIR}/${_name}-sources.txt)
  file(CONFIGURE OUTPUT ${_list_file} CONTENT "${_list}\n")
  add_custom_command(OUTPUT ${header}
    COMMAND ${CMAKE_COMMAND} -DOUT=${header} -DLIST=${_list_file} -DNAME=${macro}
            -P ${PROJECT_SOURCE_DIR}/cmake/HashFiles.cmake
    DEPENDS ${_sources} ${PROJECT_SOURCE_DIR}/cmake/HashFiles.cmake
    COMMENT "Compiler build stamp ${macro} for the compile cache" VERBATIM)
endfunction()
