# cmake -DIN=cuda_runtime.def -DOUT=libcudart.map -P VersionScript.cmake
# Every CUDART_EXPORT(Name) row gets the symbol version node libcudart.so.13.
file(STRINGS ${IN} _rows REGEX "^CUDART_EXPORT\\(")
set(_out "libcudart.so.13 {\n  global:\n")
foreach(_row ${_rows})
  string(REGEX REPLACE "^CUDART_EXPORT\\(([A-Za-z0-9_]+)\\).*" "\\1" _name "${_row}")
  string(APPEND _out "    ${_name};\n")
endforeach()
string(APPEND _out "  local:\n    *;\n};\n")
file(WRITE ${OUT} "${_out}")
