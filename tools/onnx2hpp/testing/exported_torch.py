"""Torch networks for make_exported_models.py: torchvision's quantizable architectures (and a few
small ones written the same way) at small widths and resolutions, random weights with fixed
seeds, quantized by torch's eager-mode post-training static quantization and exported as a user
would: `torch.onnx.export(model, example, opset_version=13)`, nothing cut or edited.

Needs Debian's python3-torch and python3-torchvision (torch 1.13, torchvision 0.14).
"""
import importlib
import io

import numpy as np


def networks():
    """name -> (float network with QuantStub/DeQuantStub, input shape, fuse function)."""
    import torch
    from torch import nn
    from torch.ao import quantization as tq
    from torchvision.models import quantization as tvq
    # The modules (the package's attributes `googlenet`, ... are the builder functions).
    tv_googlenet = importlib.import_module('torchvision.models.quantization.googlenet')
    tv_mnv3 = importlib.import_module('torchvision.models.quantization.mobilenetv3')
    tv_resnet = importlib.import_module('torchvision.models.quantization.resnet')

    class resnet18(nn.Module):
        """torchvision ResNet-18 (stem 7x7/2, max pool 3x3/2, four stages of two
        QuantizableBasicBlocks, global average pool, fc) at widths 8, 16, 32, 64."""

        def __init__(self, widths=(8, 16, 32, 64), classes=10):
            super().__init__()
            self.quant, self.dequant = tq.QuantStub(), tq.DeQuantStub()
            self.conv1 = nn.Conv2d(3, widths[0], 7, 2, 3, bias=False)
            self.bn1, self.relu = nn.BatchNorm2d(widths[0]), nn.ReLU()
            self.maxpool = nn.MaxPool2d(3, 2, 1)
            layers, cin = [], widths[0]
            for i, w in enumerate(widths):
                stride = 1 if i == 0 else 2
                down = None if stride == 1 and cin == w else nn.Sequential(nn.Conv2d(cin, w, 1, stride, bias=False),
                                                                          nn.BatchNorm2d(w))
                layers.append(nn.Sequential(tv_resnet.QuantizableBasicBlock(cin, w, stride, down),
                                            tv_resnet.QuantizableBasicBlock(w, w)))
                cin = w
            self.layers = nn.Sequential(*layers)
            self.avgpool = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(cin, classes)

        def forward(self, x):
            x = self.maxpool(self.relu(self.bn1(self.conv1(self.quant(x)))))
            x = self.avgpool(self.layers(x))
            return self.dequant(self.fc(torch.flatten(x, 1)))

        def fuse_model(self):
            tq.fuse_modules(self, ['conv1', 'bn1', 'relu'], inplace=True)
            for m in self.modules():
                if type(m) is tv_resnet.QuantizableBasicBlock:
                    m.fuse_model()

    class googlenet(nn.Module):
        """torchvision GoogLeNet's structure (QuantizableBasicConv2d, QuantizableInception with its
        concatenation, max pools with ceil_mode = 1) with two inception blocks of a few channels."""

        def __init__(self, classes=10):
            super().__init__()
            conv, inception = tv_googlenet.QuantizableBasicConv2d, tv_googlenet.QuantizableInception
            self.quant, self.dequant = tq.QuantStub(), tq.DeQuantStub()
            self.conv1 = conv(3, 8, kernel_size=7, stride=2, padding=3)
            self.maxpool1 = nn.MaxPool2d(3, stride=2, ceil_mode=True)
            self.conv2 = conv(8, 8, kernel_size=1)
            self.conv3 = conv(8, 16, kernel_size=3, padding=1)
            self.maxpool2 = nn.MaxPool2d(3, stride=2, ceil_mode=True)
            self.inception3a = inception(16, 8, 8, 12, 4, 4, 4)     # 28 channels
            self.inception3b = inception(28, 12, 8, 16, 4, 8, 8)    # 44
            self.maxpool3 = nn.MaxPool2d(3, stride=2, ceil_mode=True)
            self.inception4a = inception(44, 16, 8, 16, 4, 8, 8)    # 48
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(48, classes)

        def forward(self, x):
            x = self.maxpool1(self.conv1(self.quant(x)))
            x = self.maxpool2(self.conv3(self.conv2(x)))
            x = self.maxpool3(self.inception3b(self.inception3a(x)))
            x = self.avgpool(self.inception4a(x))
            return self.dequant(self.fc(torch.flatten(x, 1)))

        def fuse_model(self):
            for m in self.modules():
                if type(m) is tv_googlenet.QuantizableBasicConv2d:
                    m.fuse_model()

    class fire(nn.Module):
        def __init__(self, cin, squeeze, e1, e3):
            super().__init__()
            self.squeeze, self.squeeze_relu = nn.Conv2d(cin, squeeze, 1), nn.ReLU()
            self.e1, self.e1_relu = nn.Conv2d(squeeze, e1, 1), nn.ReLU()
            self.e3, self.e3_relu = nn.Conv2d(squeeze, e3, 3, padding=1), nn.ReLU()
            self.cat = nn.quantized.FloatFunctional()

        def forward(self, x):
            x = self.squeeze_relu(self.squeeze(x))
            return self.cat.cat([self.e1_relu(self.e1(x)), self.e3_relu(self.e3(x))], 1)

    class squeezenet(nn.Module):
        """SqueezeNet 1.1 (torchvision's layout: max pools with ceil_mode = 1, Fire modules whose
        expand branches are concatenated, a 1x1 conv classifier and a global average pool) at a
        quarter of the width."""

        def __init__(self, classes=10):
            super().__init__()
            self.quant, self.dequant = tq.QuantStub(), tq.DeQuantStub()
            self.features = nn.Sequential(
                nn.Conv2d(3, 16, 3, 2), nn.ReLU(), nn.MaxPool2d(3, 2, ceil_mode=True),
                fire(16, 4, 8, 8), fire(16, 4, 8, 8), nn.MaxPool2d(3, 2, ceil_mode=True),
                fire(16, 8, 16, 16), fire(32, 8, 16, 16), nn.MaxPool2d(3, 2, ceil_mode=True),
                fire(32, 12, 24, 24), fire(48, 16, 32, 32))
            self.classifier = nn.Sequential(nn.Conv2d(64, classes, 1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))

        def forward(self, x):
            return self.dequant(torch.flatten(self.classifier(self.features(self.quant(x))), 1))

        def fuse_model(self):
            for m in self.modules():
                if isinstance(m, fire):
                    tq.fuse_modules(m, [['squeeze', 'squeeze_relu'], ['e1', 'e1_relu'], ['e3', 'e3_relu']],
                                    inplace=True)
            tq.fuse_modules(self.features, ['0', '1'], inplace=True)
            tq.fuse_modules(self.classifier, ['0', '1'], inplace=True)

    class ecg_cnn(nn.Module):
        """A 1-D CNN over one ECG lead, written as torch 1.13 users must (its exporter has no
        quantized conv1d): 1xK Conv2d + BN + ReLU blocks with 1x2 max pools over (N, 1, 1, L),
        `flatten(2)` back to (N, C, L) (a Shape-driven Reshape), a mean over time as torch writes
        it (`x.mean(-1)`, ReduceMean) and a linear classifier; exported with a dynamic batch
        dimension (make_exported_models.py DYNAMIC_BATCH)."""

        def __init__(self, classes=5):
            super().__init__()
            self.quant, self.dequant = tq.QuantStub(), tq.DeQuantStub()
            blocks, cin = [], 1
            for cout, k in ((8, 7), (16, 5), (16, 5), (32, 3)):
                blocks += [nn.Sequential(nn.Conv2d(cin, cout, (1, k), padding=(0, k // 2), bias=False),
                                         nn.BatchNorm2d(cout), nn.ReLU()), nn.MaxPool2d((1, 2))]
                cin = cout
            self.features = nn.Sequential(*blocks)
            self.fc = nn.Linear(cin, classes)

        def forward(self, x):
            return self.dequant(self.fc(torch.flatten(self.features(self.quant(x)), 2).mean(-1)))

        def fuse_model(self):
            for m in self.features:
                if isinstance(m, nn.Sequential):
                    tq.fuse_modules(m, ['0', '1', '2'], inplace=True)

    class mlp(nn.Module):
        """A multilayer perceptron on a flattened 16x16 image (Linear + ReLU, three layers)."""

        def __init__(self, classes=10):
            super().__init__()
            self.quant, self.dequant = tq.QuantStub(), tq.DeQuantStub()
            self.l1, self.r1 = nn.Linear(256, 64), nn.ReLU()
            self.l2, self.r2 = nn.Linear(64, 32), nn.ReLU()
            self.l3 = nn.Linear(32, classes)

        def forward(self, x):
            x = torch.flatten(self.quant(x), 1)
            return self.dequant(self.l3(self.r2(self.l2(self.r1(self.l1(x))))))

        def fuse_model(self):
            pass  # torch 1.13 cannot export quantized::linear_relu: the ReLUs stay quantized ReLUs

    def mobilenet_v2():
        m = tvq.mobilenet_v2(weights=None, quantize=False, width_mult=0.35, num_classes=10)
        return m

    def mobilenet_v3():
        settings, last = tv_mnv3._mobilenet_v3_conf('mobilenet_v3_small', width_mult=0.5)
        return tv_mnv3.QuantizableMobileNetV3(settings, last, block=tv_mnv3.QuantizableInvertedResidual, num_classes=10)

    def fused_by_itself(m):
        return m.fuse_model()

    return {
        'torch_resnet18': (resnet18(), (1, 3, 64, 64)),
        'torch_googlenet': (googlenet(), (1, 3, 64, 64)),
        'torch_mobilenet_v2': (mobilenet_v2(), (1, 3, 96, 96)),
        'torch_squeezenet': (squeezenet(), (1, 3, 64, 64)),
        'torch_mobilenet_v3': (mobilenet_v3(), (1, 3, 64, 64)),
        'torch_ecg_cnn_1d': (ecg_cnn(), (1, 1, 1, 256)),
        'torch_mlp': (mlp(), (1, 1, 16, 16)),
    }


def upsample_networks():
    """name -> (float network, input shape): small encoder-decoders around the upsampling
    torch users write (nn.Upsample / F.interpolate), which torch 1.13 exports as a QDQ Resize
    (DequantizeLinear -> Resize -> QuantizeLinear with the input's scale and zero point). No
    torchvision needed."""
    import torch
    from torch import nn
    from torch.ao import quantization as tq
    from torch.nn import functional as F

    class upsampler(nn.Module):
        """conv 3x3 + ReLU, the upsampling, conv 3x3 + ReLU, conv 1x1 to 4 channels."""

        def __init__(self, upsample):
            super().__init__()
            self.quant, self.dequant = tq.QuantStub(), tq.DeQuantStub()
            self.conv1, self.relu1 = nn.Conv2d(3, 8, 3, 1, 1), nn.ReLU()
            self.upsample = upsample
            self.conv2, self.relu2 = nn.Conv2d(8, 8, 3, 1, 1), nn.ReLU()
            self.conv3 = nn.Conv2d(8, 4, 1)

        def forward(self, x):
            x = self.upsample(self.relu1(self.conv1(self.quant(x))))
            return self.dequant(self.conv3(self.relu2(self.conv2(x))))

        def fuse_model(self):
            tq.fuse_modules(self, [['conv1', 'relu1'], ['conv2', 'relu2']], inplace=True)

    class interpolate(nn.Module):
        def __init__(self, **kwargs):
            super().__init__()
            self.kwargs = kwargs

        def forward(self, x):
            return F.interpolate(x, **self.kwargs)

    return {
        # nn.Upsample(scale_factor=2): nearest, asymmetric, floor; 5x7 -> 10x14
        'torch_upsample_nearest': (upsampler(nn.Upsample(scale_factor=2, mode='nearest')), (1, 3, 5, 7)),
        # bilinear x2 without align_corners: half_pixel; 5x7 -> 10x14
        'torch_upsample_bilinear': (upsampler(interpolate(scale_factor=2, mode='bilinear', align_corners=False)),
                                    (1, 3, 5, 7)),
        # bilinear to a size with align_corners: sizes from Shape -> Slice -> Concat; 3x5 -> 7x9
        'torch_upsample_align_corners': (upsampler(interpolate(size=(7, 9), mode='bilinear', align_corners=True)),
                                         (1, 3, 3, 5)),
    }


def float_samples(shape, count, seed):
    """Smooth random inputs in [-1, 1] (images: a coarse grid upsampled plus noise; 1-D: a
    random walk plus noise)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        if len(shape) == 4 and shape[2] > 1:
            c, h, w = shape[1:]
            coarse = rng.uniform(-1, 1, (c, -(-h // 8), -(-w // 8)))
            x = np.kron(coarse, np.ones((8, 8)))[:, :h, :w] + rng.normal(0, 0.15, (c, h, w))
        else:
            x = rng.normal(0, 0.2, shape[1:]).cumsum(axis=-1) + rng.normal(0, 0.1, shape[1:])
        out.append(np.clip(x, -1, 1).astype(np.float32))
    return np.stack(out)


def quantize(net, seed, calibration, per_channel=False):
    """Random BatchNorm affine parameters and statistics measured on the calibration data,
    fusion, MinMax observers (activations quint8; weights qint8 symmetric per tensor, or per
    channel), calibration, convert: eager-mode post-training static quantization."""
    import torch
    from torch import nn
    from torch.ao import quantization as tq

    generator = torch.Generator().manual_seed(seed)
    data = torch.from_numpy(calibration)
    for m in net.modules():
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
            m.momentum = None
            m.weight.data = torch.rand(m.num_features, generator=generator) + 0.5
            m.bias.data = torch.randn(m.num_features, generator=generator) * 0.3
    net.train()
    with torch.no_grad():
        for batch in data.split(8):
            net(batch)
    net.eval()
    net.fuse_model()
    weight = tq.PerChannelMinMaxObserver.with_args(dtype=torch.qint8, qscheme=torch.per_channel_symmetric) \
        if per_channel else tq.MinMaxObserver.with_args(dtype=torch.qint8, qscheme=torch.per_tensor_symmetric)
    net.qconfig = tq.QConfig(activation=tq.MinMaxObserver.with_args(dtype=torch.quint8), weight=weight)
    tq.prepare(net, inplace=True)
    with torch.no_grad():
        for batch in data.split(8):
            net(batch)
    tq.convert(net, inplace=True)
    return net


def export(net, example, dynamic_batch=False):
    import onnx
    import torch
    buffer = io.BytesIO()
    axes = {'input': {0: 'batch'}, 'output': {0: 'batch'}} if dynamic_batch else None
    torch.onnx.export(net, torch.from_numpy(example), buffer, opset_version=13, do_constant_folding=True,
                      input_names=['input'], output_names=['output'], dynamic_axes=axes)
    return onnx.load_from_string(buffer.getvalue())
