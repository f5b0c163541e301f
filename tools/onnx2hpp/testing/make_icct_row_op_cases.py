#!/usr/bin/python3
"""Cuts the row ops of the corpus models ICCT and ICCT_ITA out into cases of their own (run with
/usr/bin/python3), so that Tessera's kernels are compared with the activations QuantLib stored:

    make_icct_row_op_cases.py CORPUS_ROOT OUTDIR

CORPUS_ROOT is …/corpus/deeploy. The whole models also need iGELU, IntegerMean and Gather; these
cases need only the row ops. OUTDIR/<case>/ holds network.onnx, inputs.npz and outputs.npz, laid
out like a corpus case, with stored activations as inputs and golden outputs:
- <model>_layernorm<k>: each iLayerNorm (weight, bias, attributes from the model) from its
  stored input to its stored output (layernorm0 reads the uint8 MaxPool output, transposed and
  reshaped as the model does);
- <model>_attention: ITAMax (ICCT) or ITAPartialMax (ICCT_ITA) of the stored attention logits,
  the MatMul with the stored values V and the model's RequantShift, to the stored head output
  (the softmax itself is not stored).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper


def save(directory, nodes, initializers, inputs, outputs):
    def info(name, v):
        return helper.make_tensor_value_info(name, TensorProto.FLOAT, list(v.shape))
    graph = helper.make_graph(nodes, os.path.basename(directory), [info(n, v) for n, v in inputs],
                              [info(n, v) for n, v in outputs], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)])
    model.ir_version = 8
    os.makedirs(directory, exist_ok=True)
    onnx.save(model, os.path.join(directory, 'network.onnx'))
    np.savez(os.path.join(directory, 'inputs.npz'), *[v.astype(np.int64) for _, v in inputs])
    np.savez(os.path.join(directory, 'outputs.npz'), *[v.astype(np.int64) for _, v in outputs])


def copy_of(node, op_inputs, op_outputs, name):
    out = helper.make_node(node.op_type, op_inputs, op_outputs, name=name)
    out.attribute.extend(node.attribute)
    return out


def cut(corpus, model_name, outdir):
    d = os.path.join(corpus, 'Models/CCT/Int', model_name)
    model = onnx.load(os.path.join(d, 'network.onnx'))
    init = {i.name: i for i in model.graph.initializer}
    stored = np.load(os.path.join(d, 'activations.npz'))
    nodes = list(model.graph.node)
    tokens = stored['tokenizer_conv_layers_0_3']  # (1, C, H, W) -> Transpose(0, 3, 2, 1) -> (1, W*H, C)
    norm_inputs = [tokens.transpose(0, 3, 2, 1).reshape(1, -1, tokens.shape[1]),
                   stored['_ql_op_tree_replace_addition_0__ql_replaced__integerize_signed_act_pass_6'],
                   stored['_ql_op_tree_replace_addition_1__ql_replaced__integerize_signed_act_pass_12']]
    norm_outputs = [stored['transformer_layers_0_0__ql_replaced__integer_layernorm_pass_0'],
                    stored['transformer_layers_0_1__ql_replaced__integer_layernorm_pass_1'],
                    stored['_ql_replaced__integer_layernorm_pass_2']]
    norms = [n for n in nodes if n.op_type == 'iLayerNorm']
    assert len(norms) == 3, model_name
    for k, (n, x, y) in enumerate(zip(norms, norm_inputs, norm_outputs)):
        save(os.path.join(outdir, f'{model_name}_layernorm{k}'),
             [copy_of(n, ['x', n.input[1], n.input[2]], ['y'], 'layernorm')],
             [init[n.input[1]], init[n.input[2]]], [('x', x)], [('y', y)])
    softmax = next(n for n in nodes if n.op_type in ('ITAMax', 'ITAPartialMax'))
    rq = next(n for n in nodes if n.op_type == 'RequantShift' and n.input[0] == next(
        m.output[0] for m in nodes if m.op_type == 'MatMul' and m.input[0] == softmax.output[0]))
    logits = stored['transformer_layers_0_0_fn_mhsa_attention__ql_replaced__integer_softmax_pass_0_rq']
    v = stored['transformer_layers_0_0_fn_mhsa__ql_replaced__integerize_signed_act_pass_2']  # (1, N, heads*dv)
    heads = logits.shape[1]
    v = v.reshape(1, v.shape[1], heads, -1).transpose(0, 2, 1, 3)
    save(os.path.join(outdir, f'{model_name}_attention'),
         [copy_of(softmax, ['x'], ['p'], 'softmax'), helper.make_node('MatMul', ['p', 'v'], ['acc'], name='matmul'),
          copy_of(rq, ['acc', rq.input[1], rq.input[2]], ['y'], 'requant')],
         [init[rq.input[1]], init[rq.input[2]]], [('x', logits), ('v', v)],
         [('y', stored['_ql_replaced__integerize_signed_act_pass_3'])])


def main():
    corpus, outdir = sys.argv[1], sys.argv[2]
    for name in ('ICCT', 'ICCT_ITA'):
        if os.path.exists(os.path.join(corpus, 'Models/CCT/Int', name, 'activations.npz')):
            cut(corpus, name, outdir)


if __name__ == '__main__':
    main()
