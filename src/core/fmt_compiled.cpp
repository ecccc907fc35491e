// fmt's compiled part, built once into d4r_core instead of linking libfmt.so (docs/packaging.md,
// "Dependencies of the release files"): a release must load on systems whose libfmt has another soname
// or none. Every other file includes fmt's headers as usual (not header-only mode, which costs about
// 4.5 s more per file, docs/performance.md); this file compiles the system's fmt/format-inl.h, which
// defines fmt's non-template functions (vformat, vprint, format_error, ...), and instantiates the
// templates that fmt/format.h declares but leaves to the library. Inside libd4rcuda.so these
// definitions stay hidden (--exclude-libs).
#include <fmt/format-inl.h>

#include <locale>

#if FMT_VERSION < 90000 || FMT_VERSION >= 100000
#error \
    "d4r compiles fmt 9's implementation (fmt/format-inl.h) here; for another fmt version, check the explicit instantiations below against its src/format.cc"
#endif

FMT_BEGIN_NAMESPACE
namespace detail {

// Floating-point formatting (shortest round-trip digits).
template auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;

// Locale-aware formatting ({:L}) of char strings.
template locale_ref::locale_ref(const std::locale& loc);
template auto locale_ref::get<std::locale>() const -> std::locale;
template auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template auto decimal_point_impl(locale_ref) -> char;

} // namespace detail
FMT_END_NAMESPACE
