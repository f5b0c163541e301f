// Runs a network with float inputs and outputs: the float ends of a quantized ONNX model
// (QuantizeLinear of a float graph input, DequantizeLinear to a float graph output) computed on
// the device, around tessera::executor. The twin of the integer call:
//
//   alignas(16) static std::byte arena[tessera::float_executor<net, model::float_ends>::arena_bytes];
//   tessera::float_executor<net, model::float_ends>::run(arena, {x}, {y});   // const float* x, float* y
//
// `Ends` (graph/float_ends.hpp, emitted by onnx2hpp --float-boundary) says per graph input and
// output whether the caller's buffer is float; an input or output that is not passes its integer
// buffer through as with the executor (a model with one float and one integer input works). Each
// float input is quantized (core/float_boundary.hpp: bit-exact with ONNX Runtime's
// QuantizeLinear, or as the model's own float ops where it is fake-quantized: float_arithmetic)
// into an integer buffer in the arena, the executor runs, and each float output is dequantized
// from an integer buffer in the arena. No heap: the arena is the executor's plus
// one 16-byte-aligned slot per float end (`arena_bytes` says how much).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <tessera/core/float_boundary.hpp>
#include <tessera/graph/float_ends.hpp>
#include <tessera/runtime/executor.hpp>

namespace tessera {

template <class Net, const auto& Ends, kernels::kernel_family Family = kernels::native_family>
struct float_executor {
  using network_executor = executor<Net, Family>;
  static constexpr std::size_t input_count = Net::inputs.size();
  static constexpr std::size_t output_count = Net::outputs.size();
  static_assert(Ends.inputs.size() == input_count && Ends.outputs.size() == output_count,
                "float_executor: Ends describes another network (one float_end per graph input and output)");

 private:
  static constexpr std::size_t align16(std::size_t n) { return (n + 15) / 16 * 16; }

  struct slots {
    std::array<std::size_t, input_count> input{};    ///< arena offset of float input i's integers
    std::array<std::size_t, output_count> output{};  ///< arena offset of float output i's integers
    std::size_t end = 0;
  };
  static constexpr slots layout = [] {
    slots s;
    std::size_t at = align16(network_executor::arena_bytes);
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((s.input[I] = at, at += Ends.inputs[I].is_float
                                   ? align16(Net::template input_elements<I> * sizeof(typename Net::template input_t<I>))
                                   : 0),
       ...);
    }(std::make_index_sequence<input_count>{});
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((s.output[I] = at, at += Ends.outputs[I].is_float
                                    ? align16(Net::template output_elements<I> * sizeof(typename Net::template output_t<I>))
                                    : 0),
       ...);
    }(std::make_index_sequence<output_count>{});
    s.end = at;
    return s;
  }();

 public:
  /// The executor's arena, then the integer slots of the float ends.
  static constexpr std::size_t arena_bytes = layout.end;

  /// One buffer per graph input/output, in the physical shape of its tensor: `const float*` /
  /// `float*` where `Ends` says float, else the tensor's integer type (as for the executor).
  using inputs_t = std::array<const void*, input_count>;
  using outputs_t = std::array<void*, output_count>;

  /// The integers the network read for float input `I` (valid after `quantize_inputs` or `run`).
  template <std::size_t I>
  static const typename Net::template input_t<I>* quantized_input(const std::byte* arena) {
    static_assert(Ends.inputs[I].is_float, "float_executor::quantized_input: input I is not a float end");
    return reinterpret_cast<const typename Net::template input_t<I>*>(arena + layout.input[I]);
  }
  /// The integers the network wrote for float output `I` (valid after `run`).
  template <std::size_t I>
  static const typename Net::template output_t<I>* integer_output(const std::byte* arena) {
    static_assert(Ends.outputs[I].is_float, "float_executor::integer_output: output I is not a float end");
    return reinterpret_cast<const typename Net::template output_t<I>*>(arena + layout.output[I]);
  }

  /// Quantizes the float inputs into their arena slots; returns the executor's input buffers.
  static typename network_executor::inputs_t quantize_inputs(std::byte* arena, const inputs_t& inputs) {
    typename network_executor::inputs_t in = inputs;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (quantize_input<I>(arena, inputs, in), ...);
    }(std::make_index_sequence<input_count>{});
    return in;
  }

  /// `arena`: at least `arena_bytes` bytes, 16-byte aligned. Quantize the float inputs, run the
  /// network (the observer sees what the executor's does), dequantize the float outputs.
  template <class Observer = no_observer>
  static void run(std::byte* arena, const inputs_t& inputs, const outputs_t& outputs, Observer&& observer = {}) {
    const typename network_executor::inputs_t in = quantize_inputs(arena, inputs);
    typename network_executor::outputs_t out = outputs;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((out[I] = Ends.outputs[I].is_float ? static_cast<void*>(arena + layout.output[I]) : outputs[I]), ...);
    }(std::make_index_sequence<output_count>{});
    network_executor::run(arena, in, out, observer);
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (dequantize_output<I>(arena, outputs), ...);
    }(std::make_index_sequence<output_count>{});
  }

 private:
  template <std::size_t I>
  static void quantize_input(std::byte* arena, const inputs_t& inputs, typename network_executor::inputs_t& in) {
    constexpr float_end e = Ends.inputs[I];
    if constexpr (e.is_float) {
      using q_t = typename Net::template input_t<I>;
      auto* q = reinterpret_cast<q_t*>(arena + layout.input[I]);
      const auto* x = static_cast<const float*>(inputs[I]);
      if constexpr (e.arithmetic == float_arithmetic::linear) {
        quantize_linear<q_t>(x, q, Net::template input_elements<I>, e.scale, e.zero_point);
      } else {
        for (std::size_t i = 0; i < Net::template input_elements<I>; ++i)
          q[i] = quantize_fake<q_t>(x[i], e.scale, e.arithmetic == float_arithmetic::multiply, e.zero_point, e.lo, e.hi);
      }
      in[I] = q;
    }
  }

  template <std::size_t I>
  static void dequantize_output(const std::byte* arena, const outputs_t& outputs) {
    constexpr float_end e = Ends.outputs[I];
    if constexpr (e.is_float && e.arithmetic == float_arithmetic::divide) {
      const auto* q = integer_output<I>(arena);
      auto* x = static_cast<float*>(outputs[I]);
      for (std::size_t i = 0; i < Net::template output_elements<I>; ++i) x[i] = dequantize_divide(q[i], e.scale, e.zero_point);
    } else if constexpr (e.is_float) {
      dequantize_linear(integer_output<I>(arena), static_cast<float*>(outputs[I]), Net::template output_elements<I>,
                        e.scale, e.zero_point);
    }
  }
};

}  // namespace tessera
