# cmake -DIN=file -DOUT=file.cpp -DSYMBOL=name -P EmbedFile.cmake
# Writes a C++ source defining `const unsigned char name[]` and `name_size`.
file(READ ${IN} _hex HEX)
string(LENGTH "${_hex}" _len)
math(EXPR _size "${_len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," _bytes "${_hex}")
file(WRITE ${OUT} "// Generated from ${IN}; do not edit.\nextern \"C\" const unsigned char ${SYMBOL}[] = {${_bytes}};\nextern \"C\" const unsigned long ${SYMBOL}_size = ${_size};\n")
