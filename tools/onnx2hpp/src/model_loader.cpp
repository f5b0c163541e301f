#include "model_loader.hpp"

#include <fstream>
#include <queue>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "diagnostics.hpp"

namespace tessera::onnx2hpp {

onnx::ModelProto read_model(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) fail("cannot open model '" + path + "'");
  std::ostringstream bytes;
  bytes << file.rdbuf();
  return parse_model(bytes.str(), path);
}

onnx::ModelProto parse_model(const std::string& bytes, const std::string& path) {
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes))
    fail("cannot parse '" + path + "' as an ONNX model (truncated or not a model file)");
  if (!model.has_graph() || model.graph().node_size() == 0)
    fail("'" + path + "' holds no graph (truncated or not a model file)");
  return model;
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
  if (static_cast<int>(order.size()) != count) fail("the graph has a cycle");

  google::protobuf::RepeatedPtrField<onnx::NodeProto> sorted;
  for (int n : order) *sorted.Add() = graph.node(n);
  graph.mutable_node()->Swap(&sorted);
}

}  // namespace tessera::onnx2hpp
