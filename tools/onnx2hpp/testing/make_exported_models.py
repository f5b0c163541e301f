#!/usr/bin/python3
"""Quantized ONNX models as people export them (issue 14), as onnx2hpp test cases.

    make_exported_models.py export MODELDIR [MODEL...]  (needs python3-torch and python3-torchvision)
    make_exported_models.py cases MODELDIR OUTDIR (needs onnx + numpy only)

`export` writes MODELDIR/<model>/{network.onnx, inputs.npz}: the model exactly as its exporter
wrote it (float input -> QuantizeLinear ... DequantizeLinear -> float output) and SAMPLES float
input samples (numpy seeds SEED + 200 + index). Two families:

- torch_*: torch 1.13 eager-mode post-training static quantization (qnnpack, MinMax observers,
  quint8 activations, qint8 symmetric weights; per channel where PER_CHANNEL says) of
  torchvision's quantizable architectures at small widths and resolutions, random weights
  (torch.manual_seed(SEED)), random BatchNorm affine parameters with statistics measured on the
  calibration data, exported with torch.onnx.export(opset_version=13) -- exported_torch.py;
- ort_*_{qoperator,qdq}: the graphs ONNX Runtime's quantizer writes, in both of its formats
  (exported_ort.py: that quantizer is a Python package this machine cannot install).

The files are committed under tests/models/exported; `export` reproduces them (all, or the
MODELs named). The Resize models (torch_upsample_*: exported_torch.upsample_networks, no
torchvision needed; ort_upsampler_*) also get outputs_integer.npz: the integer rule of
docs/semantics.md ("Resize") evaluated by integer_reference.py, which Tessera must equal exactly.

`cases` writes one case per sample, OUTDIR/cases/<model>_sample<i>/{network.onnx, inputs.npz,
outputs.npz, tolerance, classifier} for the models onnx2hpp converts (CONVERTS). network.onnx
is the export as it is: onnx2hpp takes its float ends off (the network takes the integer input
of the leading QuantizeLinear and returns the integer input of the trailing DequantizeLinear),
so inputs.npz holds the samples quantized with the input's scale and zero point (round half to
even, as QuantizeLinear) and outputs.npz the integer output of the float reference of the ONNX
semantics (quantized_reference.py, evaluated on the model with those ends cut). The tolerance is
END_TO_END_TOLERANCE (one-unit differences of early layers grow through deep networks); each op
is held to one unit against ONNX Runtime by ort_oracle.py.
"""
import os
import shutil
import sys

import numpy as np
import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import integer_reference as iref  # noqa: E402
import quantized_reference as qref  # noqa: E402

SEED = 2025
SAMPLES = 4
CALIBRATION = 16
TORCH_MODELS = ('torch_resnet18', 'torch_googlenet', 'torch_mobilenet_v2', 'torch_squeezenet', 'torch_mobilenet_v3',
                'torch_ecg_cnn_1d', 'torch_mlp')
PER_CHANNEL = ('torch_mobilenet_v2', 'torch_mobilenet_v3')
# Exported with a dynamic batch dimension, converted with --batch 1 (the case's onnx2hpp_options).
DYNAMIC_BATCH = ('torch_ecg_cnn_1d',)
ORT_NETWORKS = ('resnet8', 'kws_1d', 'inception', 'gemm_head', 'upsampler')
ORT_MODELS = tuple('ort_%s_%s' % (n, f) for n in ORT_NETWORKS for f in ('qoperator', 'qdq'))
# Appended last, so that every earlier model keeps its index (its seeds).
TORCH_RESIZE_MODELS = ('torch_upsample_nearest', 'torch_upsample_bilinear', 'torch_upsample_align_corners')
MODELS = TORCH_MODELS + ORT_MODELS + TORCH_RESIZE_MODELS
# Models checked against the integer rule too (outputs_integer.npz; integer_reference.py reads QDQ).
INTEGER_RULE = TORCH_RESIZE_MODELS + ('ort_upsampler_qdq',)
# Models whose output is a feature map, not class scores (no top-1 check).
FEATURE_MAPS = TORCH_RESIZE_MODELS
# End-to-end bound against the float reference, per model: the largest difference measured on
# these samples (each op is within one unit of ONNX Runtime, ort_oracle.py; through deep
# networks with random weights one-unit differences of early layers -- the int16 rescale of
# residual Adds, near-ties -- grow: MobileNetV2's 17 inverted residual blocks take a handful of
# one-unit Add differences to 57 at the logits, where ONNX Runtime's own optimised path differs
# from its reference by 12).
END_TO_END_TOLERANCE = {m: 1 for m in MODELS}
END_TO_END_TOLERANCE.update({'torch_resnet18': 6, 'torch_mobilenet_v2': 57, 'torch_mobilenet_v3': 22})
# Models whose top-1 class ort_oracle.py reports without holding it (a `top1_not_held` file in
# the case says why). The samples where ONNX Runtime's two paths agree are held for all others.
TOP1_NOT_HELD = {'torch_mobilenet_v2': 'one-unit differences of its residual Adds (every op within one unit of '
                                       'ONNX Runtime) change the class of one sample of four through 17 random '
                                       'inverted residual blocks',
                'torch_mobilenet_v3': 'its logits move by up to 15 units between ONNX Runtime\'s own optimised and '
                                      'reference paths (every op of Tessera within one unit of ONNX Runtime): no '
                                      'sample has a stable class'}
CONVERTS = ('torch_resnet18', 'torch_mobilenet_v2', 'torch_mlp', 'torch_googlenet', 'torch_squeezenet',
            'torch_mobilenet_v3', 'torch_ecg_cnn_1d', 'ort_resnet8_qdq', 'ort_kws_1d_qdq', 'ort_inception_qdq',
            'ort_gemm_head_qdq', 'ort_resnet8_qoperator', 'ort_kws_1d_qoperator', 'ort_inception_qoperator',
            'ort_gemm_head_qoperator', 'ort_upsampler_qdq', 'ort_upsampler_qoperator') + TORCH_RESIZE_MODELS
NOT_YET = {}


def export(model_dir, wanted=MODELS):
    import exported_ort
    import exported_torch
    models = {}
    try:
        import torch
        torch.set_num_threads(1)
        torch.backends.quantized.engine = 'qnnpack'
        torch.manual_seed(SEED)
        try:
            networks = exported_torch.networks()
        except ImportError as e:
            print('torchvision models skipped (%s): install python3-torchvision' % e)
            networks = {}
        torch.manual_seed(SEED + 1000)  # their weights do not depend on torchvision being there
        networks.update(exported_torch.upsample_networks())
        for name, (net, shape) in networks.items():
            if name not in wanted:
                continue
            index = MODELS.index(name)
            calibration = exported_torch.float_samples(shape, CALIBRATION, SEED + 100 + index)
            samples = exported_torch.float_samples(shape, SAMPLES, SEED + 200 + index)
            qnet = exported_torch.quantize(net, SEED + index, calibration, name in PER_CHANNEL)
            model = exported_torch.export(qnet, samples[:1], name in DYNAMIC_BATCH)
            model.doc_string = 'torch %s eager-mode PTQ (qnnpack), tools/onnx2hpp/testing/make_exported_models.py' % \
                torch.__version__.split('a')[0]
            models[name] = (model, samples)
    except ImportError as e:
        print('torch models skipped (%s): install python3-torch and python3-torchvision' % e)
    for net in ORT_NETWORKS:
        _, shape = exported_ort.NETWORKS[net]
        for fmt in ('qoperator', 'qdq'):
            name = 'ort_%s_%s' % (net, fmt)
            if name not in wanted:
                continue
            index = MODELS.index(name)
            rng = np.random.default_rng(SEED + 100 + index)
            calibration = float_samples(rng, (CALIBRATION,) + shape)
            samples = float_samples(np.random.default_rng(SEED + 200 + index), (SAMPLES,) + shape)
            models[name] = (exported_ort.build(net, fmt, calibration, SEED + ORT_NETWORKS.index(net)), samples)
    for name, (model, samples) in models.items():
        directory = os.path.join(model_dir, name)
        os.makedirs(directory, exist_ok=True)
        onnx.save(model, os.path.join(directory, 'network.onnx'))
        np.savez(os.path.join(directory, 'inputs.npz'), *[s[None].astype(np.float32) for s in samples])
        print('%s: exported (%d nodes)' % (name, len(model.graph.node)))


def float_samples(rng, shape):
    """Smooth random inputs in [-1, 1]: random walks along the last axis plus noise."""
    x = rng.normal(0, 0.25, shape).cumsum(axis=-1) + rng.normal(0, 0.1, shape)
    return np.clip(x, -1, 1).astype(np.float32)


def load_npz(path):
    with np.load(path) as z:
        return [z['arr_%d' % i] for i in range(len(z.files))]


def cut_float_ends(model):
    """The export with its leading QuantizeLinear and trailing DequantizeLinear removed: the
    graph starts at the quantized input and ends at the quantized output. Returns the input's
    (scale, zero point)."""
    from make_torch_models import strip_float_ends
    input_name, output_name = model.graph.input[0].name, model.graph.output[0].name
    (in_scale, in_zp), _ = strip_float_ends(model, input_name, output_name)
    return in_scale, in_zp


def cases(model_dir, out_dir):
    shutil.rmtree(os.path.join(out_dir, 'cases'), ignore_errors=True)
    for name in MODELS:
        source = os.path.join(model_dir, name)
        if name not in CONVERTS or not os.path.exists(os.path.join(source, 'network.onnx')):
            continue
        exported = onnx.load(os.path.join(source, 'network.onnx'))
        model = onnx.load(os.path.join(source, 'network.onnx'))
        in_scale, in_zp = cut_float_ends(model)
        samples = load_npz(os.path.join(source, 'inputs.npz'))
        worst = 0
        for i, x in enumerate(samples):
            q = qref.quantize(x.astype(np.float64), in_scale, in_zp)
            want = qref.run(model, [q])[0]
            directory = os.path.join(out_dir, 'cases', '%s_sample%d' % (name, i))
            os.makedirs(directory, exist_ok=True)
            onnx.save(exported, os.path.join(directory, 'network.onnx'))
            np.savez(os.path.join(directory, 'inputs.npz'), q.astype(np.int64))
            np.savez(os.path.join(directory, 'outputs.npz'), want.astype(np.int64))
            if name in INTEGER_RULE:
                exact = iref.run(model, [q])[0]
                np.savez(os.path.join(directory, 'outputs_integer.npz'), exact.astype(np.int64))
            with open(os.path.join(directory, 'tolerance'), 'w') as f:
                f.write('%d\n' % END_TO_END_TOLERANCE[name])
            if name not in TOP1_NOT_HELD and name not in FEATURE_MAPS:  # the corpus runner holds top-1
                open(os.path.join(directory, 'classifier'), 'w').close()
            if name in TOP1_NOT_HELD:
                with open(os.path.join(directory, 'top1_not_held'), 'w') as f:
                    f.write(TOP1_NOT_HELD[name] + '\n')
            if name in DYNAMIC_BATCH:
                with open(os.path.join(directory, 'onnx2hpp_options'), 'w') as f:
                    f.write('--batch 1\n')
        print('%s: %d samples' % (name, len(samples)))


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == 'export':
        export(sys.argv[2], sys.argv[3:] or MODELS)
    elif len(sys.argv) == 4 and sys.argv[1] == 'cases':
        cases(sys.argv[2], sys.argv[3])
    else:
        raise SystemExit(__doc__)


if __name__ == '__main__':
    main()
