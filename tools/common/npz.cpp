// The container is read with libzip (Debian package libzip-dev); the `.npy` header, a short
// Python dict literal, is parsed here by hand because it is tiny and its format is fixed:
//   {'descr': '<i8', 'fortran_order': False, 'shape': (1, 3, 8, 8), }
#include "npz.hpp"

#include <zip.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <stdexcept>

namespace tessera::tools {
namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw std::runtime_error(where + ": " + what);
}

// ---------------------------------------------------------------------------- npy header

struct npy_header {
  std::string descr;
  bool fortran_order = false;
  std::vector<std::int64_t> shape;
};

/// Position just after `'key':` and any blanks, or npos.
std::size_t value_of(std::string_view dict, std::string_view key) {
  const std::string quoted = "'" + std::string(key) + "'";
  std::size_t at = dict.find(quoted);
  if (at == std::string_view::npos) return at;
  at = dict.find(':', at + quoted.size());
  if (at == std::string_view::npos) return at;
  ++at;
  while (at < dict.size() && dict[at] == ' ') ++at;
  return at;
}

npy_header parse_header(std::string_view dict, const std::string& where) {
  npy_header h;
  std::size_t at = value_of(dict, "descr");
  if (at == std::string_view::npos || at >= dict.size() || (dict[at] != '\'' && dict[at] != '"'))
    fail(where, "npy header has no 'descr'");
  const char quote = dict[at];
  const std::size_t end = dict.find(quote, at + 1);
  if (end == std::string_view::npos) fail(where, "malformed npy header");
  h.descr = std::string(dict.substr(at + 1, end - at - 1));

  at = value_of(dict, "fortran_order");
  if (at == std::string_view::npos) fail(where, "npy header has no 'fortran_order'");
  h.fortran_order = dict.substr(at, 4) == "True";

  at = value_of(dict, "shape");
  if (at == std::string_view::npos || at >= dict.size() || dict[at] != '(') fail(where, "npy header has no 'shape'");
  const std::size_t close = dict.find(')', at);
  if (close == std::string_view::npos) fail(where, "malformed npy shape");
  std::string_view dims = dict.substr(at + 1, close - at - 1);
  while (!dims.empty()) {
    const std::size_t comma = dims.find(',');
    std::string_view item = dims.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == 'L')) item.remove_suffix(1);
    if (!item.empty()) {
      std::int64_t d = 0;
      for (char c : item) {
        if (c < '0' || c > '9')
          fail(where, "malformed npy shape '" + std::string(dict.substr(at, close - at + 1)) + "'");
        // Checked: a 20-digit extent overflowed int64 here (crafted file, UBSan).
        if (__builtin_mul_overflow(d, 10, &d) || __builtin_add_overflow(d, c - '0', &d))
          fail(where, "npy shape '" + std::string(dict.substr(at, close - at + 1)) + "' has an extent beyond int64");
      }
      h.shape.push_back(d);
    }
    if (comma == std::string_view::npos) break;
    dims.remove_prefix(comma + 1);
  }
  return h;
}

// ---------------------------------------------------------------------------- element decoding

enum class element_kind { signed_int, unsigned_int, floating };

struct element_type {
  element_kind kind;
  std::size_t bytes;
};

element_type element_type_of(const std::string& descr, const std::string& where) {
  // '|' means "byte order not applicable" (1-byte types); '=' is native, little-endian here.
  if (descr.size() < 3 || (descr[0] != '<' && descr[0] != '|' && descr[0] != '='))
    fail(where, "unsupported dtype '" + descr + "' (only little-endian integer and float arrays)");
  const char kind = descr[1];
  const std::string size = descr.substr(2);
  const element_type t = [&]() -> element_type {
    if (kind == 'i' && (size == "1" || size == "2" || size == "4" || size == "8"))
      return {element_kind::signed_int, std::stoul(size)};
    if (kind == 'u' && (size == "1" || size == "2" || size == "4"))
      return {element_kind::unsigned_int, std::stoul(size)};
    if (kind == 'f' && (size == "4" || size == "8")) return {element_kind::floating, std::stoul(size)};
    fail(where, "unsupported dtype '" + descr + "'");
  }();
  return t;
}

/// Little-endian load of an unsigned integer of `bytes` bytes.
std::uint64_t load_le(const unsigned char* p, std::size_t bytes) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < bytes; ++i) v |= std::uint64_t{p[i]} << (8 * i);
  return v;
}

/// One element; a float that is no exact integer fails, or with `fraction_error` non-null is
/// noted there (the first one) and truncated toward zero.
std::int64_t decode(const unsigned char* p, element_type t, std::size_t index, const std::string& where,
                    std::string* fraction_error = nullptr) {
  const std::uint64_t raw = load_le(p, t.bytes);
  switch (t.kind) {
    case element_kind::unsigned_int: return static_cast<std::int64_t>(raw);
    case element_kind::signed_int: {
      const unsigned bits = static_cast<unsigned>(8 * t.bytes);
      if (bits == 64) return static_cast<std::int64_t>(raw);
      const std::uint64_t sign = std::uint64_t{1} << (bits - 1);
      return static_cast<std::int64_t>((raw ^ sign) - sign);  // sign-extend
    }
    case element_kind::floating: {
      double v = 0;
      if (t.bytes == 4) {
        const auto bits = static_cast<std::uint32_t>(raw);
        float f = 0;
        std::memcpy(&f, &bits, sizeof f);
        v = f;
      } else {
        std::memcpy(&v, &raw, sizeof v);
      }
      // 2^63 is exactly representable; anything at or above it does not fit int64.
      if (!std::isfinite(v) || std::trunc(v) != v || v >= 9223372036854775808.0 || v < -9223372036854775808.0) {
        const std::string message = "element " + std::to_string(index) + " is not an exact integer (" + std::to_string(v) + ")";
        if (fraction_error == nullptr) fail(where, message);
        if (fraction_error->empty()) *fraction_error = where + ": " + message;
        return std::isfinite(v) && std::fabs(v) < 9.0e18 ? static_cast<std::int64_t>(v) : 0;
      }
      return static_cast<std::int64_t>(v);
    }
  }
  return 0;
}

/// Reorders column-major (Fortran) data to row-major. numpy writes a transposed view in
/// Fortran order rather than copying it; the corpus has such arrays (GEMM weights).
/// `shape`'s product is fortran.size() (parse_npy checked it without overflow), so for a
/// non-empty array every stride below is at most that size; an empty one has nothing to move
/// (and its strides could overflow: (2^32, 2^32, 0)).
std::vector<std::int64_t> to_c_order(const std::vector<std::int64_t>& fortran, const std::vector<std::int64_t>& shape) {
  if (fortran.empty()) return {};
  const std::size_t rank = shape.size();
  std::vector<std::int64_t> stride(rank, 1);  // column-major strides
  for (std::size_t d = 1; d < rank; ++d) stride[d] = stride[d - 1] * shape[d - 1];
  std::vector<std::int64_t> out(fortran.size());
  std::vector<std::int64_t> index(rank, 0);
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::int64_t source = 0;
    for (std::size_t d = 0; d < rank; ++d) source += index[d] * stride[d];
    out[i] = fortran[static_cast<std::size_t>(source)];
    for (std::size_t d = rank; d-- > 0;) {  // advance the row-major index
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------- zip container

/// Largest member read (1 GiB): far above any sample or golden data, far below what would
/// exhaust a host.
constexpr zip_uint64_t max_member_bytes = zip_uint64_t{1} << 30;

struct zip_closer {
  void operator()(zip_t* z) const { zip_discard(z); }  // read-only: nothing to write back
};
struct zip_file_closer {
  void operator()(zip_file_t* f) const { zip_fclose(f); }
};

std::string read_member(zip_t* archive, zip_uint64_t index, const std::string& where) {
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_stat_index(archive, index, 0, &st) != 0 || (st.valid & ZIP_STAT_SIZE) == 0)
    fail(where, std::string("cannot stat member: ") + zip_strerror(archive));
  std::unique_ptr<zip_file_t, zip_file_closer> file(zip_fopen_index(archive, index, 0));
  if (!file) fail(where, std::string("cannot open member: ") + zip_strerror(archive));
  // The size is what the archive claims: a crafted one must not decide how much memory is
  // allocated up front (the npz fuzzer's 540 MB claim over 245 bytes took 13 s), so the
  // member is read in chunks and grows only with the bytes that really come out.
  if (st.size > max_member_bytes)
    fail(where, "member of " + std::to_string(st.size) + " bytes (uncompressed) is larger than the " +
                    std::to_string(max_member_bytes >> 20) + " MiB onnx2hpp reads");
  std::string bytes;
  char chunk[65536];
  while (bytes.size() < st.size) {
    const zip_uint64_t want = std::min<zip_uint64_t>(sizeof chunk, st.size - bytes.size());
    const zip_int64_t n = zip_fread(file.get(), chunk, want);
    if (n <= 0)
      fail(where, "truncated member: " + std::to_string(bytes.size()) + " of the " + std::to_string(st.size) +
                      " bytes it claims");
    bytes.append(chunk, static_cast<std::size_t>(n));
  }
  return bytes;
}

}  // namespace

npy_array parse_npy(std::string_view image, std::string name, const std::string& where, bool fractions_allowed) {
  static constexpr std::string_view magic = "\x93NUMPY";
  if (image.size() < 10 || image.substr(0, magic.size()) != magic) fail(where, "not an .npy array");
  const auto* bytes = reinterpret_cast<const unsigned char*>(image.data());
  const unsigned major = bytes[6];
  // Version 1 has a 2-byte header length, versions 2 and 3 a 4-byte one.
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  if (major < 1 || major > 3) fail(where, "unsupported .npy version " + std::to_string(major));
  if (image.size() < 8 + length_bytes) fail(where, "truncated .npy header");
  const std::uint64_t header_length = load_le(bytes + 8, length_bytes);
  if (header_length > image.size() - 8 - length_bytes) fail(where, "truncated .npy header");
  const std::size_t data_offset = 8 + length_bytes + static_cast<std::size_t>(header_length);
  const npy_header header = parse_header(image.substr(8 + length_bytes, header_length), where);

  const element_type type = element_type_of(header.descr, where);
  // Every size is checked: a shape whose product wrapped size_t (3 * 6148914691236517206 =
  // 2^64 + 2) once passed as 2 elements and the Fortran reorder read past them; a byte count
  // that wrapped to 0 reached vector::resize (crafted files, issue 16).
  const auto shape_text = [&] {
    std::string text;
    for (std::int64_t d : header.shape) text += (text.empty() ? "" : ", ") + std::to_string(d);
    return "(" + text + ")";
  };
  std::size_t count = 1;
  bool empty = false;
  for (std::int64_t d : header.shape) empty = empty || d == 0;
  for (std::int64_t d : header.shape) {
    if (empty) {
      count = 0;
      break;
    }
    if (__builtin_mul_overflow(count, static_cast<std::uint64_t>(d), &count))
      fail(where, "shape " + shape_text() + " has more elements than memory can hold");
  }
  std::size_t data_bytes = 0;
  if (__builtin_mul_overflow(count, type.bytes, &data_bytes) || data_bytes > image.size() - data_offset)
    fail(where, "truncated data: shape " + shape_text() + " of " + header.descr + " needs " + std::to_string(count) +
                    " elements, the file holds " + std::to_string((image.size() - data_offset) / type.bytes));

  npy_array array{std::move(name), header.shape, {}, {}};
  array.values.resize(count);
  const unsigned char* data = bytes + data_offset;
  std::string* fraction_error = fractions_allowed ? &array.fraction_error : nullptr;
  for (std::size_t i = 0; i < count; ++i) array.values[i] = decode(data + i * type.bytes, type, i, where, fraction_error);
  if (header.fortran_order) array.values = to_c_order(array.values, array.shape);
  return array;
}

namespace {

std::vector<npy_array> read_archive(std::unique_ptr<zip_t, zip_closer> archive, const std::string& path,
                                    bool fractions_allowed) {
  const zip_int64_t members = zip_get_num_entries(archive.get(), 0);
  std::vector<npy_array> arrays;
  if (members < 0) fail(path, std::string("cannot read the archive's directory: ") + zip_strerror(archive.get()));
  for (zip_int64_t i = 0; i < members; ++i) {
    const auto index = static_cast<zip_uint64_t>(i);
    const char* member = zip_get_name(archive.get(), index, 0);
    std::string name = member != nullptr ? member : "";
    if (name.size() >= 4 && name.compare(name.size() - 4, 4, ".npy") == 0) name.resize(name.size() - 4);
    const std::string where = path + ": array '" + name + "'";
    arrays.push_back(parse_npy(read_member(archive.get(), index, where), name, where, fractions_allowed));
  }
  return arrays;
}

[[noreturn]] void fail_open(const std::string& path, zip_error_t& ze) {
  const std::string reason = zip_error_strerror(&ze);
  zip_error_fini(&ze);
  fail(path, "cannot open as .npz: " + reason);
}

}  // namespace

std::vector<npy_array> read_npz(const std::string& path, bool fractions_allowed) {
  int error = 0;
  std::unique_ptr<zip_t, zip_closer> archive(zip_open(path.c_str(), ZIP_RDONLY, &error));
  if (!archive) {
    zip_error_t ze;
    zip_error_init_with_code(&ze, error);
    fail_open(path, ze);
  }
  return read_archive(std::move(archive), path, fractions_allowed);
}

std::vector<npy_array> read_npz_image(std::string_view image, const std::string& where, bool fractions_allowed) {
  zip_error_t ze;
  zip_error_init(&ze);
  zip_source_t* source = zip_source_buffer_create(image.data(), image.size(), 0, &ze);
  if (source == nullptr) fail_open(where, ze);
  std::unique_ptr<zip_t, zip_closer> archive(zip_open_from_source(source, ZIP_RDONLY, &ze));
  if (!archive) {
    zip_source_free(source);
    fail_open(where, ze);
  }
  zip_error_fini(&ze);
  return read_archive(std::move(archive), where, fractions_allowed);
}

}  // namespace tessera::tools
