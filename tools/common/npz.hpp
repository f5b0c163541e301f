// Reader for NumPy `.npz` archives: the corpus' golden data (inputs.npz, outputs.npz,
// activations.npz) and onnx2hpp's `--sample-inputs`.
//
// An `.npz` is a zip of `.npy` files. The corpus stores integer tensors as int8..int64, or as
// float32/float64 that hold exact integers; every value is returned widened to int64 so that
// callers compare true values without caring how the file happened to store them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::tools {

struct npy_array {
  std::string name;                  ///< archive member name without its ".npy" suffix
  std::vector<std::int64_t> shape;   ///< outermost first; empty for a 0-d array
  std::vector<std::int64_t> values;  ///< row-major (C order)
  /// Read with `fractions_allowed`: the error a float that is no exact integer would have
  /// raised ("FILE: array 'x': element 3 is not an exact integer (0.5)"), empty when every value
  /// is one (`values` then holds them truncated toward zero, for the shape's sake only).
  std::string fraction_error;
};

/// Reads every array of the archive at `path`, in archive order.
/// Supported element types: int8, uint8, int16, uint16, int32, uint32, int64, float32 and
/// float64, little-endian; C order, or Fortran order (returned reordered to C order). Throws std::runtime_error naming
/// the file, the array and, for a float that is not an exact integer, the element's flat index.
/// Hostile files are errors too, never a crash or a huge allocation: every size (extents,
/// element and byte counts, header length) is checked for overflow and against the bytes the
/// file holds, and a member larger than 1 GiB uncompressed is refused.
/// With `fractions_allowed` a float array of fractions is read too, its `fraction_error` set
/// (onnx2hpp: the float samples of an input the device quantizes).
std::vector<npy_array> read_npz(const std::string& path, bool fractions_allowed = false);

/// The same for an archive already in memory (the npz fuzz target, tests/fuzz); `where`
/// names it in messages.
std::vector<npy_array> read_npz_image(std::string_view image, const std::string& where, bool fractions_allowed = false);

/// Decodes one `.npy` image. `where` prefixes error messages (e.g. "file.npz: array 'x'").
/// Exposed for tests and for readers of stand-alone `.npy` files.
npy_array parse_npy(std::string_view image, std::string name, const std::string& where, bool fractions_allowed = false);

}  // namespace tessera::tools
