// Umbrella header: every scalar reference kernel.
//
// These kernels define the numerics; every optimized kernel must be bit-exact with them.
#pragma once

#include <tessera/kernels/reference/binary.hpp>
#include <tessera/kernels/reference/concat.hpp>
#include <tessera/kernels/reference/conv2d.hpp>
#include <tessera/kernels/reference/gemm.hpp>
#include <tessera/kernels/reference/lookup_table.hpp>
#include <tessera/kernels/reference/matmul.hpp>
#include <tessera/kernels/reference/normalization.hpp>
#include <tessera/kernels/reference/pad.hpp>
#include <tessera/kernels/reference/pool.hpp>
#include <tessera/kernels/reference/requant_shift.hpp>
#include <tessera/kernels/reference/slice.hpp>
#include <tessera/kernels/reference/softmax.hpp>
#include <tessera/kernels/reference/transpose.hpp>
#include <tessera/kernels/reference/hardswish.hpp>
#include <tessera/kernels/reference/gelu.hpp>
#include <tessera/kernels/reference/reduce.hpp>
#include <tessera/kernels/reference/integer_div.hpp>
#include <tessera/kernels/reference/gather.hpp>
#include <tessera/kernels/reference/resize.hpp>
