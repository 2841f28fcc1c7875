//===- PrintfFormat.h - CUDA's vprintf argument buffer, for every runtime --===//
// Part of ZLUDA for C++. Licensed under the Apache License v2.0.
/// \file Freestanding (no headers): the CPU executor and the AMDGPU device
/// runtime both walk a printf format with it, so the two targets read
/// CUDA's packed argument buffer the same way.
///
/// nvcc passes vprintf a buffer holding the arguments after the format, each
/// at an offset aligned to its size: integers up to int are promoted to 4
/// bytes, long/long long/size_t/pointers/strings take 8, float is promoted to
/// an 8-byte double. A `*` width or precision takes a 4-byte int before the
/// value.
#ifndef ZLUDA_PTX_CODEGEN_PRINTFFORMAT_H
#define ZLUDA_PTX_CODEGEN_PRINTFFORMAT_H

namespace zluda::ptx::printf {

enum class Arg : unsigned char { None, Int32, Int64, Double, String, Pointer };

struct Conversion {
  unsigned Start = 0, End = 0; ///< the spec, Fmt[Start, End): '%' to the conversion character
  char Conv = 0;               ///< 'd', 'f', 's' ...; '%' for "%%"
  Arg Kind = Arg::None;        ///< the value's argument (None for "%%" and unknown conversions)
  unsigned Stars = 0;          ///< '*' width/precision: 4-byte ints before the value
  unsigned LengthStart = 0;    ///< where the length modifier (l, ll, h, z ...) starts in the spec
};

inline bool isFlagOrDigit(char C) {
  return C == '-' || C == '+' || C == ' ' || C == '#' || C == '.' || C == '*' || (C >= '0' && C <= '9');
}
inline bool isLength(char C) { return C == 'l' || C == 'h' || C == 'z' || C == 'j' || C == 't' || C == 'L'; }
inline bool isOneOf(char C, const char *Set) {
  for (; *Set; ++Set)
    if (*Set == C)
      return true;
  return false;
}

/// The next conversion of \p Fmt at or after \p Pos (advanced past it).
/// False at the end of the format; a '%' at the very end is no conversion.
inline bool next(const char *Fmt, unsigned &Pos, Conversion &Out) {
  while (Fmt[Pos] && Fmt[Pos] != '%')
    ++Pos;
  if (!Fmt[Pos] || !Fmt[Pos + 1])
    return false;
  Conversion C;
  C.Start = Pos++;
  if (Fmt[Pos] == '%') {
    C.Conv = '%';
    C.End = ++Pos;
    C.LengthStart = C.End - 1;
    Out = C;
    return true;
  }
  while (Fmt[Pos] && isFlagOrDigit(Fmt[Pos])) {
    C.Stars += Fmt[Pos] == '*';
    ++Pos;
  }
  C.LengthStart = Pos;
  bool Long = false;
  while (Fmt[Pos] && isLength(Fmt[Pos])) {
    Long |= Fmt[Pos] != 'h';
    ++Pos;
  }
  if (!Fmt[Pos])
    return false;
  C.Conv = Fmt[Pos];
  C.End = ++Pos;
  if (isOneOf(C.Conv, "diouxXc"))
    C.Kind = Long ? Arg::Int64 : Arg::Int32;
  else if (isOneOf(C.Conv, "fFeEgGaA"))
    C.Kind = Arg::Double;
  else if (C.Conv == 's')
    C.Kind = Arg::String;
  else if (C.Conv == 'p')
    C.Kind = Arg::Pointer;
  else
    C.Stars = 0; // unknown (or %n): printed as written, consumes nothing
  Out = C;
  return true;
}

inline unsigned size(Arg K) { return K == Arg::None ? 0 : K == Arg::Int32 ? 4 : 8; }

/// The offset of the next argument of \p Bytes bytes, advancing \p Off.
inline unsigned take(unsigned &Off, unsigned Bytes) {
  Off = (Off + Bytes - 1) / Bytes * Bytes;
  unsigned At = Off;
  Off += Bytes;
  return At;
}

/// CUDA's printf takes at most 32 arguments after the format (a `*` width or
/// precision counts as one); conversions past them print as they are written.
constexpr unsigned MaxArgs = 32;

/// Whether conversion \p C of a format that has used \p Used arguments so far
/// prints as text: an unknown conversion (such as %n, never acted on) or one
/// past the \p Limit arguments there are (MaxArgs; 0 when no argument buffer
/// was passed). Advances \p Used past the arguments \p C takes.
inline bool printsAsText(const Conversion &C, unsigned &Used, unsigned Limit = MaxArgs) {
  if (C.Conv == '%')
    return false;
  if (C.Kind == Arg::None)
    return true;
  if (Used + C.Stars + 1 > Limit) {
    Used = Limit;
    return true;
  }
  Used += C.Stars + 1;
  return false;
}

/// Whether \p Fmt has a conversion that printsAsText.
inline bool hasTextConversions(const char *Fmt, unsigned Limit = MaxArgs) {
  unsigned Pos = 0, Used = 0;
  Conversion C;
  while (next(Fmt, Pos, C))
    if (printsAsText(C, Used, Limit))
      return true;
  return false;
}

} // namespace zluda::ptx::printf

#endif // ZLUDA_PTX_CODEGEN_PRINTFFORMAT_H
