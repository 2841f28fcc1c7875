# cmake -DIN=table.def -DOUT=lib.map [-DMACRO=LIB_EXPORT -DNODE=libfoo.so.N] -P VersionScript.cmake
# Every MACRO(Name) row of the table gets the symbol version node NODE
# (defaults: CUDART_EXPORT rows, libcudart.so.13).
if(NOT MACRO)
  set(MACRO CUDART_EXPORT)
endif()
if(NOT NODE)
  set(NODE libcudart.so.13)
endif()
file(STRINGS ${IN} _rows REGEX "^${MACRO}\\(")
set(_out "${NODE} {\n  global:\n")
foreach(_row ${_rows})
  string(REGEX REPLACE "^${MACRO}\\(([A-Za-z0-9_]+)\\).*" "\\1" _name "${_row}")
  string(APPEND _out "    ${_name};\n")
endforeach()
string(APPEND _out "  local:\n    *;\n};\n")
file(WRITE ${OUT} "${_out}")
