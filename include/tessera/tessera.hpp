// Umbrella header: everything a generated model header and its caller need.
#pragma once

#include <tessera/core/dtype.hpp>
#include <tessera/core/fixed_name.hpp>
#include <tessera/core/requant.hpp>
#include <tessera/core/shape.hpp>
#include <tessera/graph/constant.hpp>
#include <tessera/graph/network.hpp>
#include <tessera/graph/node.hpp>
#include <tessera/graph/tensor.hpp>
#include <tessera/ops/binary.hpp>
#include <tessera/ops/concat.hpp>
#include <tessera/ops/conv.hpp>
#include <tessera/ops/gemm.hpp>
#include <tessera/ops/matmul.hpp>
#include <tessera/ops/pad.hpp>
#include <tessera/ops/pool.hpp>
#include <tessera/ops/requant_shift.hpp>
#include <tessera/ops/reshape.hpp>
#include <tessera/ops/slice.hpp>
#include <tessera/ops/transpose.hpp>
#include <tessera/planning/arena_plan.hpp>
#include <tessera/runtime/executor.hpp>
#include <tessera/graph/origin.hpp>
