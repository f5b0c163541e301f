#include "model_loader.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <queue>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "diagnostics.hpp"

namespace tessera::onnx2hpp {

namespace {

/// Largest external data block read (1 GiB): far above any microcontroller's weights.
constexpr std::uintmax_t max_external_bytes = std::uintmax_t{1} << 30;

std::uintmax_t external_number(const std::string& text, const std::string& what) {
  std::uintmax_t v = 0;
  if (text.empty()) fail(what + " is empty");
  for (char c : text) {
    if (c < '0' || c > '9') fail(what + " '" + text + "' is not a number");
    if (__builtin_mul_overflow(v, 10u, &v) || __builtin_add_overflow(v, static_cast<unsigned>(c - '0'), &v))
      fail(what + " '" + text + "' is too large");
  }
  return v;
}

/// Reads the external data of `t` (ONNX's `location`, `offset`, `length` keys) from a file
/// in the model's directory into raw_data.
void load_external_tensor(onnx::TensorProto& t, const std::filesystem::path& model_dir, const std::string& what) {
  std::string location, offset_text, length_text;
  for (const auto& entry : t.external_data()) {
    if (entry.key() == "location") location = entry.value();
    if (entry.key() == "offset") offset_text = entry.value();
    if (entry.key() == "length") length_text = entry.value();
  }
  if (location.empty()) fail(what + ": external data without a 'location'");
  const std::filesystem::path relative(location);
  bool escapes = relative.is_absolute() || relative.has_root_name();
  for (const auto& part : relative) escapes = escapes || part == "..";
  if (escapes)
    fail(what + ": external data location '" + location +
         "' must be a relative path inside the model's directory (ONNX's rule)");
  const std::filesystem::path file_path = model_dir / relative;
  std::ifstream file(file_path, std::ios::binary);
  if (!file)
    fail(what + ": cannot open its external data file '" + file_path.string() +
         "' (the location is relative to the model's directory): " + std::strerror(errno));
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(file_path, error);
  if (error) fail(what + ": cannot read the size of '" + file_path.string() + "': " + error.message());
  const std::uintmax_t offset = offset_text.empty() ? 0 : external_number(offset_text, what + ": external data offset");
  if (offset > size)
    fail(what + ": external data offset " + std::to_string(offset) + " lies beyond the end of '" +
         file_path.string() + "' (" + std::to_string(size) + " bytes)");
  const std::uintmax_t length =
      length_text.empty() ? size - offset : external_number(length_text, what + ": external data length");
  if (length > size - offset)
    fail(what + ": external data of " + std::to_string(length) + " bytes at offset " + std::to_string(offset) +
         " runs past the end of '" + file_path.string() + "' (" + std::to_string(size) + " bytes)");
  if (length > max_external_bytes)
    fail(what + ": external data of " + std::to_string(length) + " bytes is more than onnx2hpp reads (1 GiB)");
  std::string bytes(static_cast<std::size_t>(length), '\0');
  file.seekg(static_cast<std::streamoff>(offset));
  if (!file.read(bytes.data(), static_cast<std::streamsize>(length)))
    fail(what + ": cannot read " + std::to_string(length) + " bytes of external data from '" + file_path.string() +
         "'");
  t.set_raw_data(std::move(bytes));
  t.clear_external_data();
  t.set_data_location(onnx::TensorProto::DEFAULT);
}

}  // namespace

onnx::ModelProto read_model(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) fail("cannot open model '" + path + "': " + std::strerror(errno));
  std::ostringstream bytes;
  bytes << file.rdbuf();
  onnx::ModelProto model = parse_model(bytes.str(), path);
  load_external_data(model, std::filesystem::path(path).parent_path());
  return model;
}

onnx::ModelProto parse_model(const std::string& bytes, const std::string& path) {
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes))
    fail("cannot parse '" + path + "' as an ONNX model (truncated or not a model file)");
  if (!model.has_graph()) fail("'" + path + "' holds no graph (truncated or not a model file)");
  if (model.graph().node_size() == 0)
    fail("the graph of '" + path +
         "' has no nodes (its outputs are graph inputs or constants): onnx2hpp converts graphs of at least one "
         "operator");
  return model;
}

void load_external_data(onnx::ModelProto& model, const std::filesystem::path& model_dir) {
  auto& g = *model.mutable_graph();
  for (auto& init : *g.mutable_initializer())
    if (init.data_location() == onnx::TensorProto::EXTERNAL)
      load_external_tensor(init, model_dir, "initializer '" + init.name() + "'");
  for (auto& node : *g.mutable_node())
    for (auto& a : *node.mutable_attribute())
      if (a.has_t() && a.t().data_location() == onnx::TensorProto::EXTERNAL)
        load_external_tensor(*a.mutable_t(), model_dir,
                             "node '" + node.name() + "' (" + node.op_type() + "): attribute '" + a.name() + "'");
}

void sort_nodes_topologically(onnx::GraphProto& graph) {
  std::unordered_set<std::string> available;
  for (const auto& input : graph.input()) available.insert(input.name());
  for (const auto& init : graph.initializer()) available.insert(init.name());

  const int count = graph.node_size();
  std::unordered_map<std::string, int> producer;  // tensor name -> node index
  for (int n = 0; n < count; ++n) {
    const auto& node = graph.node(n);
    for (const auto& out : node.output()) {
      if (out.empty()) continue;
      if (available.count(out) != 0 || !producer.emplace(out, n).second)
        throw conversion_error(node.name(), node.op_type(), "output '" + out + "' is defined twice");
    }
  }

  // Kahn's algorithm; the ready set is ordered by file position so a sorted file is unchanged.
  std::vector<int> pending(static_cast<std::size_t>(count), 0);
  std::vector<std::vector<int>> dependents(static_cast<std::size_t>(count));
  for (int n = 0; n < count; ++n) {
    const auto& node = graph.node(n);
    for (const auto& in : node.input()) {
      if (in.empty() || available.count(in) != 0) continue;  // "" is an omitted optional input
      const auto it = producer.find(in);
      if (it == producer.end())
        throw conversion_error(node.name(), node.op_type(),
                               "input '" + in + "' is not a graph input, an initializer or another node's output");
      dependents[static_cast<std::size_t>(it->second)].push_back(n);
      ++pending[static_cast<std::size_t>(n)];
    }
  }
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (int n = 0; n < count; ++n)
    if (pending[static_cast<std::size_t>(n)] == 0) ready.push(n);
  std::vector<int> order;
  order.reserve(static_cast<std::size_t>(count));
  while (!ready.empty()) {
    const int n = ready.top();
    ready.pop();
    order.push_back(n);
    for (int d : dependents[static_cast<std::size_t>(n)])
      if (--pending[static_cast<std::size_t>(d)] == 0) ready.push(d);
  }
  if (static_cast<int>(order.size()) != count) {
    // Every node left over waits for another left-over node; walking from one to a producer
    // it waits for must come back to a node already seen: that loop is a cycle.
    const auto waits_for = [&](int n) {
      for (const auto& in : graph.node(n).input()) {
        const auto it = in.empty() ? producer.end() : producer.find(in);
        if (it != producer.end() && pending[static_cast<std::size_t>(it->second)] > 0) return it->second;
      }
      return -1;
    };
    int n = -1;
    for (int m = 0; m < count && n < 0; ++m)
      if (pending[static_cast<std::size_t>(m)] > 0) n = m;
    std::vector<int> path, seen_at(static_cast<std::size_t>(count), -1);
    while (n >= 0 && seen_at[static_cast<std::size_t>(n)] < 0) {
      seen_at[static_cast<std::size_t>(n)] = static_cast<int>(path.size());
      path.push_back(n);
      n = waits_for(n);
    }
    std::string loop;
    if (n >= 0) {
      // path from seen_at[n] is the cycle, each node waiting for the next: print it in data order.
      std::vector<int> cycle(path.begin() + seen_at[static_cast<std::size_t>(n)], path.end());
      for (auto it = cycle.rbegin(); it != cycle.rend(); ++it)
        loop += "node '" + graph.node(*it).name() + "' (" + graph.node(*it).op_type() + ") -> ";
      loop += "node '" + graph.node(cycle.back()).name() + "'";
    }
    fail("the graph has a cycle: " + loop + " (each feeds the next)");
  }

  google::protobuf::RepeatedPtrField<onnx::NodeProto> sorted;
  for (int n : order) *sorted.Add() = graph.node(n);
  graph.mutable_node()->Swap(&sorted);
}

}  // namespace tessera::onnx2hpp
