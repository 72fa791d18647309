"""ResNet-50 (bottleneck blocks, layers 3-4-6-3) with a self-attention block and an MLP neck.

The backbone is the standard ResNet-50. After the last stage, a single-head
self-attention block mixes the spatial positions (a non-local block), the
positions are averaged, a residual MLP refines the pooled features, and a
linear classifier produces the logits.

Comments marked "ms-perflint:" say what the linter reports on a line, or why
a similar-looking line is fine.
"""

import mindspore.nn as nn
import mindspore.ops as ops
from mindspore.common import dtype as mstype


def conv_bn(in_channels, out_channels, kernel_size, stride=1, zero_gamma=False):
    """Convolution followed by batch normalisation (no bias: the BN shifts).

    ``zero_gamma`` starts the BN scale at 0, so that a residual block starts as the identity.
    """
    return nn.SequentialCell(
        nn.Conv2d(in_channels, out_channels, kernel_size, stride=stride, pad_mode="same", has_bias=False),
        nn.BatchNorm2d(out_channels, gamma_init="zeros" if zero_gamma else "ones"),
    )


class Bottleneck(nn.Cell):
    """1x1 reduce -> 3x3 -> 1x1 expand (x4), with a projection shortcut when the shape changes."""

    expansion = 4

    def __init__(self, in_channels, out_channels, stride=1):
        super().__init__()
        mid_channels = out_channels // self.expansion
        self.conv1 = conv_bn(in_channels, mid_channels, 1)
        self.conv2 = conv_bn(mid_channels, mid_channels, 3, stride=stride)
        self.conv3 = conv_bn(mid_channels, out_channels, 1, zero_gamma=True)
        self.relu = nn.ReLU()
        self.down_sample = None
        if stride != 1 or in_channels != out_channels:
            self.down_sample = conv_bn(in_channels, out_channels, 1, stride=stride)

    def construct(self, x):
        identity = x
        out = self.relu(self.conv1(x))
        out = self.relu(self.conv2(out))
        out = self.conv3(out)
        if self.down_sample is not None:
            identity = self.down_sample(x)
        return self.relu(out + identity)


class SelfAttention(nn.Cell):
    """Single-head self-attention over the positions of a feature map (pre-norm, residual)."""

    def __init__(self, channels, attention_channels=512):
        super().__init__()
        self.attention_channels = attention_channels
        self.norm = nn.LayerNorm((channels,))
        # These projections run in float32 unless the program that trains them sets mixed precision:
        # MSP101 is reported once, where train.py builds its Model. Fine for MSP102: 2048, 1536 and 512
        # are all multiples of 16.
        self.qkv = nn.Dense(channels, 3 * attention_channels)
        self.proj = nn.Dense(attention_channels, channels)
        # The attention scores: a BatchMatMul, one of the float32 MatMuls train.py's MSP101 counts.
        self.scores = ops.BatchMatMul(transpose_b=True)
        self.softmax = nn.Softmax(axis=-1)
        # ms-perflint: fine for MSP106 -- a Python float becomes a float32 operand, unlike numpy float64 data.
        self.scale = attention_channels ** -0.5

    def construct(self, x):
        batch, channels, height, width = x.shape
        tokens = x.reshape(batch, channels, height * width).transpose(0, 2, 1)
        q, k, v = ops.split(self.qkv(self.norm(tokens)), self.attention_channels, axis=-1)
        attention = self.softmax(self.scores(q, k) * self.scale)
        # ms-perflint: fine for MSP101 -- both operands are cast to float16 right here: not counted.
        mixed = ops.matmul(ops.cast(attention, mstype.float16), ops.cast(v, mstype.float16))
        out = tokens + self.proj(ops.cast(mixed, mstype.float32))
        return out.transpose(0, 2, 1).reshape(batch, channels, height, width)


class MLPBlock(nn.Cell):
    """Residual two-layer MLP (LayerNorm -> Dense -> GELU -> Dense), as in a transformer block."""

    # ms-perflint: MSP102 -- 1500, the hidden width, is not a multiple of 16 and large enough for it
    # to matter (no automatic fix: padding fc1 means padding fc2's input too).
    def __init__(self, channels=2048, hidden_channels=1500):
        super().__init__()
        self.norm = nn.LayerNorm((channels,))
        self.fc1 = nn.Dense(channels, hidden_channels)
        self.act = nn.GELU()
        # The input width is read from fc1, so the two stay in step when fc1 is padded by hand.
        self.fc2 = nn.Dense(self.fc1.out_channels, channels)

    def construct(self, x):
        return x + self.fc2(self.act(self.fc1(self.norm(x))))


class ResNet(nn.Cell):
    """ResNet backbone built from bottleneck blocks, followed by attention, pooling, MLP and classifier."""

    def __init__(self, layer_nums, in_channels, out_channels, strides, num_classes):
        super().__init__()
        self.stem = nn.SequentialCell(
            conv_bn(3, 64, 7, stride=2),
            nn.ReLU(),
            nn.MaxPool2d(kernel_size=3, stride=2, pad_mode="same"),
        )
        stages = []
        for count, cin, cout, stride in zip(layer_nums, in_channels, out_channels, strides):
            blocks = [Bottleneck(cin, cout, stride=stride)]
            blocks += [Bottleneck(cout, cout) for _ in range(count - 1)]
            stages.append(nn.SequentialCell(blocks))
        self.stages = nn.SequentialCell(stages)
        self.attention = SelfAttention(out_channels[-1])
        self.mlp = MLPBlock(out_channels[-1])
        # ms-perflint: fine for MSP101 -- the classifier is kept in float32 on purpose, for
        # stable logits: not counted; fine for MSP102 and MSP104 -- a class count, passed in.
        self.head = nn.Dense(out_channels[-1], num_classes).to_float(mstype.float32)

    def construct(self, x):
        x = self.stages(self.stem(x))
        x = self.attention(x)
        x = x.mean(axis=(2, 3))
        return self.head(self.mlp(x))


def resnet50(class_num=1001):
    """ResNet-50. ms-perflint: fine for MSP104 -- the default is already 1001 classes."""
    return ResNet(
        layer_nums=[3, 4, 6, 3],
        in_channels=[64, 256, 512, 1024],
        out_channels=[256, 512, 1024, 2048],
        strides=[1, 2, 2, 2],
        num_classes=class_num,
    )
