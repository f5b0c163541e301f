#!/usr/bin/python3
"""MLPerf-Tiny-shaped networks quantized by PyTorch, as onnx2hpp test cases.

    make_torch_models.py export MODELDIR      (needs python3-torch)
    make_torch_models.py cases MODELDIR OUTDIR (needs onnx + numpy only)
    make_torch_models.py check-layers MODELDIR (needs onnx + numpy only; exit 1 on failure)

`export` builds four float networks in torch with fixed seeds, quantizes them with torch's
eager-mode post-training static quantization (fused Conv+BN+ReLU and Linear+ReLU, backend
qnnpack, MinMax observers calibrated on fixed-seed data), exports them with torch.onnx.export
(opset 13: QuantizeLinear/DequantizeLinear around float ops) and cuts the float ends off: the
leading QuantizeLinear goes (the graph input is its uint8 output, batch 1) and so does the
trailing DequantizeLinear (the graph output is the uint8 tensor). It writes
MODELDIR/<model>/{network.onnx, inputs.npz, torch_outputs.npz, input_quantization}: the
samples are quantized with the input's scale and zero point (recorded in `input_quantization`
and in the model's metadata), torch_outputs.npz holds what torch's own quantized model gives.
The files are committed under tests/models/torch and regenerate bit for bit.

`cases` turns them into case directories laid out like make_quantized_models.py's,
OUTDIR/cases/<model>_sample<i>/{network.onnx, inputs.npz, outputs.npz, outputs_integer.npz,
tolerance[, classifier]}: outputs.npz is the float reference of the ONNX semantics
(quantized_reference.py; Tessera may differ by one unit), outputs_integer.npz the integer rule
of docs/semantics.md evaluated independently (integer_reference.py; Tessera must equal it).
It prints, per model, how both references and torch agree.

`check-layers` evaluates every quantized tensor of every sample twice: by the integer rule, and
by the float reference of its op applied to the integer rule's inputs of that op
(quantized_reference.run's `forced`). Each op must be within one unit: the bound
docs/semantics.md promises per requantization. End to end the units of successive layers
compound, so `cases` compares the network outputs with the float reference within
END_TO_END_TOLERANCE, a fixed bound per model, not one measured at generation time.

    ds_cnn_kws            DS-CNN keyword spotting, 49x10x1 MFCC, 12 classes, per-channel weights
    mobilenet_v1_025_vww  MobileNetV1 x0.25, 96x96x3, 2 classes (visual wake words), per-channel
    resnet8_cifar         ResNet-8, 32x32x3, 10 classes (CIFAR-10), per-tensor weights
    toyadmos_autoencoder  FC autoencoder 640-128x4-8-128x4-640 (anomaly detection), per-tensor
"""
import io
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import integer_reference as iref  # noqa: E402
import quantized_reference as qref  # noqa: E402

SAMPLES = 8          # test samples per model
CALIBRATION = 32     # calibration samples per model
SEED = 2024          # torch.manual_seed for the weights; numpy seeds below derive from it
CLASSIFIERS = ('ds_cnn_kws', 'mobilenet_v1_025_vww', 'resnet8_cifar')
MODELS = CLASSIFIERS + ('toyadmos_autoencoder',)
# End-to-end bound against the float reference, per model: one unit where nothing compounds;
# more where one-unit differences of early layers grow through later ones (MobileNet: a tie
# 7e-7 away in layer 1, from the exporter's float32 bias scale, grows to 6 at the logits;
# ResNet-8: the int16 rescale of the residual Adds, docs/semantics.md). check-layers holds
# every op of these models to one unit.
END_TO_END_TOLERANCE = {'ds_cnn_kws': 1, 'mobilenet_v1_025_vww': 6, 'resnet8_cifar': 2, 'toyadmos_autoencoder': 1}
INPUT_SHAPES = {'ds_cnn_kws': (1, 1, 49, 10), 'mobilenet_v1_025_vww': (1, 3, 96, 96),
                'resnet8_cifar': (1, 3, 32, 32), 'toyadmos_autoencoder': (1, 640)}


# ---------------------------------------------------------------------------- data

def float_samples(name, count, seed):
    """Synthetic float inputs: MFCC-like rows, smooth images, log-mel frames."""
    rng = np.random.default_rng(seed)
    shape = INPUT_SHAPES[name][1:]
    out = []
    for _ in range(count):
        if name == 'ds_cnn_kws':  # coefficients with their own mean and spread, smooth in time
            x = rng.normal(0, 1, (49, 10)).cumsum(axis=0) * 0.3 + rng.normal(0, 2, 10) * np.linspace(1.5, 0.3, 10)
            x = x[None]
        elif name == 'toyadmos_autoencoder':  # 5 frames of 128 log-mel bands
            x = np.tile(rng.normal(0, 1, 128).cumsum() * 0.2, 5) + rng.normal(0, 0.4, 640)
        else:  # a coarse random image upsampled, plus fine noise, in [-1, 1]
            size = shape[1]
            coarse = rng.uniform(-1, 1, (3, size // 8, size // 8))
            x = np.clip(np.kron(coarse, np.ones((8, 8))) + rng.normal(0, 0.15, shape), -1, 1)
        out.append(np.asarray(x, np.float32).reshape(shape))
    return np.stack(out)


# ---------------------------------------------------------------------------- torch networks

def torch_networks():
    """The float networks (random init with seed SEED) and the module lists to fuse."""
    import torch
    from torch import nn
    from torch.ao import quantization as tq

    def conv_bn_relu(cin, cout, kernel, stride=1, padding=0, groups=1):
        return nn.Sequential(nn.Conv2d(cin, cout, kernel, stride, padding, groups=groups, bias=False),
                             nn.BatchNorm2d(cout), nn.ReLU())

    class quantized_net(nn.Module):
        def __init__(self, body):
            super().__init__()
            self.quant, self.body, self.dequant = tq.QuantStub(), body, tq.DeQuantStub()

        def forward(self, x):
            return self.dequant(self.body(self.quant(x)))

    class ds_cnn(nn.Module):  # MLPerf Tiny KWS: conv 10x4/2, 4 x (dw 3x3, pw 64), avg pool, fc 12
        def __init__(self):
            super().__init__()
            layers = [conv_bn_relu(1, 64, (10, 4), 2, (5, 1))]
            for _ in range(4):
                layers += [conv_bn_relu(64, 64, 3, 1, 1, groups=64), conv_bn_relu(64, 64, 1)]
            self.features = nn.Sequential(*layers)
            self.pool = nn.AvgPool2d((25, 5))
            self.fc = nn.Linear(64, 12)

        def forward(self, x):
            return self.fc(torch.flatten(self.pool(self.features(x)), 1))

    class mobilenet_v1(nn.Module):  # width 0.25 at 96x96: 8..256 channels, global pool, fc 2
        def __init__(self):
            super().__init__()
            plan = [(8, 16, 1), (16, 32, 2), (32, 32, 1), (32, 64, 2), (64, 64, 1), (64, 128, 2)] + \
                [(128, 128, 1)] * 5 + [(128, 256, 2), (256, 256, 1)]
            layers = [conv_bn_relu(3, 8, 3, 2, 1)]
            for cin, cout, stride in plan:
                layers += [conv_bn_relu(cin, cin, 3, stride, 1, groups=cin), conv_bn_relu(cin, cout, 1)]
            self.features = nn.Sequential(*layers)
            self.pool = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(256, 2)

        def forward(self, x):
            return self.fc(torch.flatten(self.pool(self.features(x)), 1))

    class residual(nn.Module):  # two 3x3 convs and a shortcut (1x1/2 conv when it downsamples)
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.a = conv_bn_relu(cin, cout, 3, stride, 1)
            self.b = nn.Sequential(nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout))
            self.shortcut = None if stride == 1 and cin == cout else \
                nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
            self.add = nn.quantized.FloatFunctional()

        def forward(self, x):
            return self.add.add_relu(self.b(self.a(x)), x if self.shortcut is None else self.shortcut(x))

    class resnet8(nn.Module):  # MLPerf Tiny IC: conv 16, stacks of 16, 32/2, 64/2, avg pool 8, fc 10
        def __init__(self):
            super().__init__()
            self.stem = conv_bn_relu(3, 16, 3, 1, 1)
            self.stacks = nn.Sequential(residual(16, 16, 1), residual(16, 32, 2), residual(32, 64, 2))
            self.pool = nn.AvgPool2d(8)
            self.fc = nn.Linear(64, 10)

        def forward(self, x):
            return self.fc(torch.flatten(self.pool(self.stacks(self.stem(x))), 1))

    class autoencoder(nn.Module):  # MLPerf Tiny AD: 640-128x4-8-128x4-640, Linear+BN+ReLU
        def __init__(self):
            super().__init__()
            sizes = [640, 128, 128, 128, 128, 8, 128, 128, 128, 128]
            self.layers = nn.Sequential(*[nn.Sequential(nn.Linear(a, b), nn.BatchNorm1d(b), nn.ReLU())
                                          for a, b in zip(sizes, sizes[1:])])
            self.out = nn.Linear(128, 640)

        def forward(self, x):
            return self.out(self.layers(x))

    def fuse_lists(model):
        """Module names to fuse: [conv, bn(, relu)] and [linear, bn]. The ReLU after a Linear stays
        a quantized ReLU of its own: torch 1.13 has no Linear+BN+ReLU fuser and cannot export
        quantized::linear_relu to ONNX."""
        groups = []
        for name, m in model.named_modules():
            if isinstance(m, nn.Sequential) and len(m) >= 2 and isinstance(m[0], (nn.Conv2d, nn.Linear)) and \
                    isinstance(m[1], (nn.BatchNorm2d, nn.BatchNorm1d)):
                count = 2 if isinstance(m[0], nn.Linear) else len(m)
                groups.append(['%s.%d' % (name, i) for i in range(count)])
        return groups

    torch.manual_seed(SEED)
    nets = {'ds_cnn_kws': ds_cnn(), 'mobilenet_v1_025_vww': mobilenet_v1(), 'resnet8_cifar': resnet8(),
            'toyadmos_autoencoder': autoencoder()}
    return {k: (quantized_net(v), fuse_lists) for k, v in nets.items()}


def quantize_with_torch(name, net, fuse_lists, calibration):
    """Eager-mode post-training static quantization: BN statistics from the calibration data
    (so that random weights give a healthy network), random BN affine parameters, fusion,
    MinMax observers (activations quint8, weights qint8 symmetric), calibration, convert."""
    import torch
    from torch import nn
    from torch.ao import quantization as tq

    generator = torch.Generator().manual_seed(SEED + MODELS.index(name))
    data = torch.from_numpy(calibration)
    for m in net.modules():
        if isinstance(m, (nn.BatchNorm2d, nn.BatchNorm1d)):
            m.momentum = None  # cumulative average over the calibration batches
            m.weight.data = torch.rand(m.num_features, generator=generator) + 0.5
            m.bias.data = torch.randn(m.num_features, generator=generator) * 0.3
    net.train()
    with torch.no_grad():
        for batch in data.split(8):
            net(batch)
    net.eval()
    net = tq.fuse_modules(net, fuse_lists(net))
    per_channel = name in ('ds_cnn_kws', 'mobilenet_v1_025_vww')
    weight = tq.PerChannelMinMaxObserver.with_args(dtype=torch.qint8, qscheme=torch.per_channel_symmetric) \
        if per_channel else tq.MinMaxObserver.with_args(dtype=torch.qint8, qscheme=torch.per_tensor_symmetric)
    net.qconfig = tq.QConfig(activation=tq.MinMaxObserver.with_args(dtype=torch.quint8), weight=weight)
    tq.prepare(net, inplace=True)
    with torch.no_grad():
        for batch in data.split(8):
            net(batch)
    tq.convert(net, inplace=True)
    return net


# ---------------------------------------------------------------------------- graph surgery

def strip_float_ends(model, input_name, output_name):
    """Removes the QuantizeLinear of the graph input and the DequantizeLinear of the graph
    output: the network starts at the integer tensor and ends with one. Returns the input's
    (scale, zero point) and the output's."""
    g = model.graph
    constants = {n.output[0]: onnx.numpy_helper.to_array(n.attribute[0].t) for n in g.node if n.op_type == 'Constant'}
    constants.update({t.name: onnx.numpy_helper.to_array(t) for t in g.initializer})
    quant = next(n for n in g.node if n.op_type == 'QuantizeLinear' and n.input[0] == input_name)
    dequant = next(n for n in g.node if n.op_type == 'DequantizeLinear' and n.output[0] == output_name)
    in_q = (np.float32(constants[quant.input[1]]), constants[quant.input[2]])
    out_q = (np.float32(constants[dequant.input[1]]), constants[dequant.input[2]])
    last = dequant.input[0]
    g.node.remove(quant)
    g.node.remove(dequant)
    for n in g.node:
        for i, x in enumerate(n.input):
            if x == quant.output[0]:
                n.input[i] = input_name
        for i, x in enumerate(n.output):
            if x == last:
                n.output[i] = output_name
    while True:  # Constant nodes nothing reads any more
        used = {x for n in g.node for x in n.input}
        dead = [n for n in g.node if n.op_type == 'Constant' and n.output[0] not in used]
        if not dead:
            break
        for n in dead:
            g.node.remove(n)
    elem = {np.dtype(np.uint8): TensorProto.UINT8, np.dtype(np.int8): TensorProto.INT8}
    shape_in = [d.dim_value for d in g.input[0].type.tensor_type.shape.dim]
    shape_out = [d.dim_value for d in g.output[0].type.tensor_type.shape.dim]
    g.ClearField('input')
    g.ClearField('output')
    g.input.append(helper.make_tensor_value_info(input_name, elem[in_q[1].dtype], shape_in))
    g.output.append(helper.make_tensor_value_info(output_name, elem[out_q[1].dtype], shape_out))
    g.ClearField('value_info')
    return in_q, out_q


def export(model_dir):
    import torch
    torch.set_num_threads(1)
    torch.backends.quantized.engine = 'qnnpack'
    for name, (net, fuse_lists) in torch_networks().items():
        index = MODELS.index(name)
        calibration = float_samples(name, CALIBRATION, SEED + 100 + index)
        samples = float_samples(name, SAMPLES, SEED + 200 + index)
        qnet = quantize_with_torch(name, net, fuse_lists, calibration)
        buffer = io.BytesIO()
        example = torch.from_numpy(samples[:1])
        torch.onnx.export(qnet, example, buffer, opset_version=13, do_constant_folding=True,
                          input_names=['input'], output_names=['output'])
        model = onnx.load_from_string(buffer.getvalue())
        (in_scale, in_zp), (out_scale, out_zp) = strip_float_ends(model, 'input', 'output')
        model.doc_string = 'torch %s eager-mode PTQ (qnnpack), tools/onnx2hpp/testing/make_torch_models.py' % \
            torch.__version__.split('a')[0]
        helper.set_model_props(model, {'input_scale': repr(float(in_scale)), 'input_zero_point': str(int(in_zp))})
        onnx.checker.check_model(model)
        # Samples quantized as torch's QuantStub does; torch's integer outputs on them.
        q_inputs, q_torch = [], []
        with torch.no_grad():
            for x in samples:
                qx = torch.quantize_per_tensor(torch.from_numpy(x[None]), float(in_scale), int(in_zp), torch.quint8)
                q_inputs.append(qx.int_repr().numpy().astype(in_zp.dtype))
                y = qnet(qx.dequantize()).numpy()
                q = np.rint(y / out_scale) + np.float64(out_zp)
                q_torch.append(np.clip(q, 0, 255).astype(out_zp.dtype))
        directory = os.path.join(model_dir, name)
        os.makedirs(directory, exist_ok=True)
        onnx.save(model, os.path.join(directory, 'network.onnx'))
        np.savez(os.path.join(directory, 'inputs.npz'), *q_inputs)
        np.savez(os.path.join(directory, 'torch_outputs.npz'), *q_torch)
        with open(os.path.join(directory, 'input_quantization'), 'w') as f:
            f.write('scale %r zero_point %d type %s\n' % (float(in_scale), int(in_zp), in_zp.dtype))
        print('%s: exported, input scale %g zero point %d' % (name, in_scale, in_zp))


# ---------------------------------------------------------------------------- cases

def macs(model):
    """Multiply-accumulates of the Conv and Gemm nodes (batch 1)."""
    shapes = onnx.shape_inference.infer_shapes(model)
    dims = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim]
            for v in list(shapes.graph.value_info) + list(shapes.graph.output)}
    consts = {n.output[0]: onnx.numpy_helper.to_array(n.attribute[0].t).shape for n in model.graph.node
              if n.op_type == 'Constant'}
    consts.update({t.name: tuple(t.dims) for t in model.graph.initializer})
    weights = {n.output[0]: consts.get(n.input[0]) for n in model.graph.node if n.op_type == 'DequantizeLinear'}
    total = 0
    for n in model.graph.node:
        if n.op_type in ('Conv', 'Gemm'):
            w = weights[n.input[1]]
            total += int(np.prod(dims[n.output[0]])) * int(np.prod(w[1:]))
    return total


def load_npz(path):
    with np.load(path) as z:
        return [z['arr_%d' % i] for i in range(len(z.files))]


def cases(model_dir, out_dir):
    for name in MODELS:
        source = os.path.join(model_dir, name)
        model = onnx.load(os.path.join(source, 'network.onnx'))
        inputs = load_npz(os.path.join(source, 'inputs.npz'))
        torch_out = load_npz(os.path.join(source, 'torch_outputs.npz'))
        goldens = [(qref.run(model, [x])[0], iref.run(model, [x])[0]) for x in inputs]
        diff_max = diff_count = total = torch_max = 0
        top1_float = top1_torch = 0
        for want, exact in goldens:
            d = np.abs(exact.astype(np.int64) - want.astype(np.int64))
            diff_max, diff_count, total = max(diff_max, int(d.max())), diff_count + int((d != 0).sum()), total + d.size
        # Tessera must equal the integer rule exactly (outputs_integer.npz) and the float
        # reference within the model's declared end-to-end bound (see check-layers for per op).
        tolerance = END_TO_END_TOLERANCE[name]
        if diff_max > tolerance:
            print('warning: %s differs from the float reference by %d > %d' % (name, diff_max, tolerance))
        for i, (x, t, (want, exact)) in enumerate(zip(inputs, torch_out, goldens)):
            torch_max = max(torch_max, int(np.abs(t.astype(np.int64) - want.astype(np.int64)).max()))
            top1_float += int(np.argmax(exact) == np.argmax(want))
            top1_torch += int(np.argmax(exact) == np.argmax(t))
            directory = os.path.join(out_dir, 'cases', '%s_sample%d' % (name, i))
            os.makedirs(directory, exist_ok=True)
            shutil.copyfile(os.path.join(source, 'network.onnx'), os.path.join(directory, 'network.onnx'))
            np.savez(os.path.join(directory, 'inputs.npz'), x.astype(np.int64))
            np.savez(os.path.join(directory, 'outputs.npz'), want.astype(np.int64))
            np.savez(os.path.join(directory, 'outputs_integer.npz'), exact.astype(np.int64))
            with open(os.path.join(directory, 'tolerance'), 'w') as f:
                f.write('%d\n' % tolerance)
            if name in CLASSIFIERS:
                open(os.path.join(directory, 'classifier'), 'w').close()
        top1 = ', top-1 of the integer rule = float reference %d/%d, = torch %d/%d' % (
            top1_float, len(inputs), top1_torch, len(inputs)) if name in CLASSIFIERS else ''
        print('%s: %d MACs; integer rule vs float reference: max |diff| %d, %d of %d elements differ '
              '(tolerance %d); torch vs float reference: max |diff| %d%s' % (
                  name, macs(model), diff_max, diff_count, total, tolerance, torch_max, top1))


def check_layers(model_dir):
    """Every quantized tensor within one unit of the float reference of its op (see above)."""
    failed = False
    for name in MODELS:
        model = onnx.load(os.path.join(model_dir, name, 'network.onnx'))
        worst, tensors = 0, 0
        for x in load_npz(os.path.join(model_dir, name, 'inputs.npz')):
            exact, differences = {}, {}
            iref.run(model, [x], quantized_tensors=exact)
            qref.run(model, [x], forced=exact, differences=differences)
            tensors = len(differences)
            for tensor, d in differences.items():
                worst = max(worst, d)
                if d > 1:
                    failed = True
                    print('%s: %s differs from the float reference of its op by %d' % (name, tensor, d))
        print('%s: %d quantized tensors per sample, largest per-op difference %d' % (name, tensors, worst))
    if failed:
        raise SystemExit(1)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == 'export':
        export(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == 'check-layers':
        check_layers(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == 'cases':
        cases(sys.argv[2], sys.argv[3])
    else:
        raise SystemExit(__doc__)


if __name__ == '__main__':
    main()
