"""MSP107 fp32-conv-training: a convolutional network trained in float32 on Ascend with no mixed precision --
and the look-alikes that must stay silent (AMP on, to_float, LeNet-sized CNNs, MSP101's networks, GPU/CPU,
code that says float32 is needed, the 910a target)."""

from __future__ import annotations

import textwrap
from typing import Dict, List, Tuple

import pytest

from ms_perflint.project.training import Training
from ms_perflint.rules.msp101_fp32_matmul import Fp32Matmul
from ms_perflint.rules.msp107_fp32_conv_training import Fp32ConvTraining
from ms_perflint.run.lint import check_text
from ms_perflint.settings import Settings
from tests.project.test_values_provenance import project

#: A CNN of 12 convolutions of 128x128x3x3 (1.77 M weights) built by a loop, and a small classifier head.
CNN = """
import mindspore as ms
import mindspore.nn as nn
from mindspore.common import dtype as mstype
from mindspore.train import Model
class Block(nn.Cell):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3)
        self.bn = nn.BatchNorm2d(channels)
    def construct(self, x):
        return self.bn(self.conv(x))
class Net(nn.Cell):
    def __init__(self, width=128, depth=12):
        super().__init__()
        self.stem = nn.Conv2d(3, width, 3)
        self.blocks = nn.SequentialCell([Block(width) for _ in range(depth)])
        self.head = nn.Dense(width, 10)
    def construct(self, x):
        return self.head(self.blocks(self.stem(x)).mean(axis=(2, 3)))
"""


def lint(code: str, **options) -> List:
    settings = Settings(select=("MSP101", "MSP107"), rule_options={k.replace("_", "-"): v for k, v in options.items()})
    result = check_text(textwrap.dedent(code).lstrip("\n"), "train.py", settings, rules=[Fp32Matmul, Fp32ConvTraining])
    assert result.error is None, result.error
    return result.findings


def found(code: str, **options) -> Dict[str, List[Tuple[int, int]]]:
    """``{code: [(line, column)]}`` of MSP101's and MSP107's findings."""
    by_code: Dict[str, List[Tuple[int, int]]] = {}
    for finding in lint(code, **options):
        by_code.setdefault(finding.code, []).append((finding.line, finding.column + 1))
    return by_code


def program(main: str, network: str = CNN) -> str:
    return network + 'if __name__ == "__main__":\n' + textwrap.indent(textwrap.dedent(main).strip("\n"), "    ") + "\n"


MODEL_LINE = CNN.count("\n") + 1  # the first line of the __main__ block


# --- reported ------------------------------------------------------------------------------------------------


def test_a_cnn_trained_in_float32_is_reported_at_model_with_the_o2_fix():
    findings = lint(program("""
        model = Model(Net(), loss_fn=loss, optimizer=opt)
        model.train(10, data)
    """))
    assert [(f.code, f.line, f.column + 1) for f in findings] == [("MSP107", MODEL_LINE, 13)]
    # 3x128x9 + 12 x 128x128x9, counted once per block the comprehension builds
    assert "at least 1,772,928 convolution weights" in findings[0].message
    assert findings[0].fix is not None and 'amp_level="O2"' in findings[0].fix.edits[0].new


def test_an_explicit_o0_counts_as_no_mixed_precision_and_is_replaced():
    findings = lint(program('Model(Net(), loss, opt, amp_level="O0").train(10, data)'))
    assert [f.code for f in findings] == ["MSP107"]
    assert findings[0].fix.edits[0].new == '"O2"'


def test_a_custom_loop_is_reported_without_a_fix():
    findings = lint(program("""
        net = Net()
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.1, 0.9))
        for x, y in data:
            step(x, y)
    """))
    assert [f.code for f in findings] == ["MSP107"]
    assert "auto_mixed_precision" in findings[0].message and findings[0].fix is None


def test_a_gradient_function_loop_is_reported_at_the_train_steps_construction_not_the_optimizer():
    # the optimizer only names the network; the line the user reads as "the train step" is value_and_grad(...)
    findings = lint(program("""
        net = Net()
        opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
        def forward(x, y):
            return loss(net(x), y)
        grad_fn = ms.value_and_grad(forward, None, opt.parameters)
        for x, y in data:
            _, grads = grad_fn(x, y)
            opt(grads)
    """))
    assert [(f.code, f.line, f.column + 1) for f in findings] == [("MSP107", MODEL_LINE + 4, 15)]


def test_an_optimizer_over_parameter_groups_a_project_function_builds_names_the_network():
    # get_param_groups(net) splits net.trainable_params() into weight-decay groups: the network is still net
    network = CNN + """
def get_param_groups(network):
    decay, no_decay = [], []
    for param in network.trainable_params():
        (no_decay if "bias" in param.name else decay).append(param)
    return [{"params": no_decay, "weight_decay": 0.0}, {"params": decay}]
"""
    findings = lint(program("""
        net = Net()
        opt = nn.Momentum(params=get_param_groups(net), learning_rate=0.1, momentum=0.9)
        def forward(x, y):
            return loss(net(x), y)
        grad_fn = ms.value_and_grad(forward, None, opt.parameters)
        for x, y in data:
            _, grads = grad_fn(x, y)
            opt(grads)
    """, network))
    assert [(f.code, f.line) for f in findings] == [("MSP107", network.count("\n") + 5)]


# --- silent --------------------------------------------------------------------------------------------------


def test_amp_levels_that_cast_are_silent():
    for level in ("O1", "O2", "O3", "auto"):
        assert found(program(f'Model(Net(), loss, opt, amp_level="{level}").train(10, data)')) == {}, level


def test_to_float_on_the_network_and_auto_mixed_precision_are_silent():
    assert found(program("""
        net = Net().to_float(mstype.float16)
        Model(net, loss, opt).train(10, data)
    """)) == {}
    assert found(program("""
        net = ms.amp.auto_mixed_precision(Net(), "O2")
        Model(net, loss, opt).train(10, data)
    """)) == {}


@pytest.mark.parametrize("cast", [
    "x.astype(self.dtype)",  # self.dtype = ms.float16 if use_fp16 else ms.float32: chosen per block
    "ops.cast(x, self.dtype)",
    "self.cast(x, self.dtype)",
    "x.half()",
])
def test_a_block_that_casts_its_input_to_a_dtype_that_may_be_float16_manages_precision_by_hand(cast: str):
    network = CNN.replace("""    def __init__(self, channels):
        super().__init__()""", """    def __init__(self, channels, use_fp16=False):
        super().__init__()
        self.dtype = ms.float16 if use_fp16 else ms.float32
        self.cast = ops.Cast()""").replace("""        return self.bn(self.conv(x))""", f"""        x = {cast}
        return self.bn(self.conv(x))""").replace("import mindspore.nn as nn", "import mindspore.nn as nn\nimport mindspore.ops as ops")
    # the last four blocks run in float16: precision is managed by hand
    by_block = network.replace("Block(width) for _ in range(depth)", "Block(width, use_fp16=i >= depth - 4) for i in range(depth)")
    assert found(program("Model(Net(), loss, opt).train(10, data)", by_block)) == {}
    # no block is ever given use_fp16: every cast is to float32, and the CNN trains in float32
    if cast != "x.half()":
        assert list(found(program("Model(Net(), loss, opt).train(10, data)", network))) == ["MSP107"]


def test_a_pooling_run_in_float16_and_cast_straight_back_manages_nothing():
    # a ResNet stem's ``self.maxpool(x.astype(ms.float16)).astype(ms.float32)``: the pooling runs in float16, every
    # convolution in float32
    network = CNN.replace("""    def __init__(self, width=128, depth=12):
        super().__init__()""", """    def __init__(self, width=128, depth=12):
        super().__init__()
        self.maxpool = nn.MaxPool2d(3, 2)""").replace(
        "return self.head(self.blocks(self.stem(x)).mean(axis=(2, 3)))",
        "x = self.maxpool(self.stem(x).astype(ms.float16)).astype(ms.float32)\n"
        "        return self.head(self.blocks(x).mean(axis=(2, 3)))")
    assert "astype(ms.float16)).astype(ms.float32)" in network
    assert list(found(program("Model(Net(), loss, opt).train(10, data)", network))) == ["MSP107"]
    # the half-precision result kept: the blocks' convolutions run in float16, managed by hand
    kept = network.replace(".astype(ms.float16)).astype(ms.float32)", ".astype(ms.float16))")
    assert found(program("Model(Net(), loss, opt).train(10, data)", kept)) == {}
    # a convolution between the casts runs in float16 by hand: not a pooling
    conv = CNN.replace("        return self.bn(self.conv(x))",
                       "        return self.bn(self.conv(x.astype(ms.float16)).astype(ms.float32))")
    assert "self.conv(x.astype(ms.float16)).astype(ms.float32)" in conv
    assert found(program("Model(Net(), loss, opt).train(10, data)", conv)) == {}


def test_a_depthwise_convolution_holds_one_kernel_per_channel():
    # ``group=channels``: 128 x 128 x 9 / 128 weights, not 147,456; the separable CNN holds 12 x (1,152 + 16,384)
    # + 3,456 = 213,888 convolution weights, under the 1 M bound -- with the groups ignored it was 1.97 M
    separable = CNN.replace("self.conv = nn.Conv2d(channels, channels, 3)",
                            "self.conv = nn.Conv2d(channels, channels, 3, group=channels)\n"
                            "        self.point = nn.Conv2d(channels, channels, 1)")
    assert "group=channels" in separable
    assert found(program("Model(Net(), loss, opt).train(10, data)", separable)) == {}
    # grouped by a keyword mint spells ``groups``, with 4 groups: 12 x (36,864 + 16,384) + 3,456 = 642,432, silent;
    # one group each (a plain convolution) is reported
    four = separable.replace("group=channels", "groups=4")
    assert found(program("Model(Net(), loss, opt).train(10, data)", four)) == {}
    plain = separable.replace("group=channels", "group=1")
    assert list(found(program("Model(Net(), loss, opt).train(10, data)", plain))) == ["MSP107"]


def test_a_batchmatmul_run_in_float16_between_casts_leaves_the_convolutions_in_float32():
    # a GloRe-style unit: ``self.matmul(self.cast(a, f16), self.cast(b, f16))`` cast back to float32; the cell's
    # convolutions take float32 inputs, so nothing manages their precision
    glore = CNN.replace("""        self.bn = nn.BatchNorm2d(channels)
    def construct(self, x):
        return self.bn(self.conv(x))""", """        self.bn = nn.BatchNorm2d(channels)
        self.cast = ops.Cast()
        self.matmul = ops.BatchMatMul(transpose_b=True)
    def construct(self, x):
        y = self.conv(x)
        a = self.cast(y, mstype.float16)
        b = self.cast(y, mstype.float16)
        z = self.matmul(a, b)
        z = self.cast(z, mstype.float32)
        return self.bn(y + z)""").replace("import mindspore.nn as nn", "import mindspore.nn as nn\nimport mindspore.ops as ops")
    assert "self.matmul(a, b)" in glore
    assert list(found(program("Model(Net(), loss, opt).train(10, data)", glore))) == ["MSP107"]
    # the cast result fed to the convolution instead: precision managed by hand
    by_hand = glore.replace("        y = self.conv(x)\n        a = self.cast(y, mstype.float16)",
                            "        a = self.cast(x, mstype.float16)\n        y = self.conv(a)")
    assert found(program("Model(Net(), loss, opt).train(10, data)", by_hand)) == {}


def test_a_cast_to_a_float32_only_dtype_manages_nothing():
    network = CNN.replace("""        return self.bn(self.conv(x))""", """        x = x.astype(ms.float32)
        return self.bn(self.conv(x))""")
    assert list(found(program("Model(Net(), loss, opt).train(10, data)", network))) == ["MSP107"]


def test_deliberate_float32_is_silent():
    assert found(program("""
        net = Net().to_float(mstype.float32)
        Model(net, loss, opt).train(10, data)
    """)) == {}


def test_a_lenet_sized_cnn_is_silent():
    lenet = CNN.replace("width=128, depth=12", "width=16, depth=4")
    assert found(program("Model(Net(), loss, opt).train(10, data)", lenet)) == {}


def test_a_cnn_whose_channels_are_unknown_is_silent():
    unknown = CNN.replace("def __init__(self, width=128, depth=12):", "def __init__(self, width, depth=12):")
    assert found(program("Model(Net(read_width()), loss, opt).train(10, data)", unknown)) == {}


def test_a_vgg_with_large_dense_layers_is_msp101s_not_msp107s():
    vgg = CNN.replace("        self.head = nn.Dense(width, 10)\n",
                      "        self.fc1 = nn.Dense(width * 49, 4096)\n        self.head = nn.Dense(4096, 10)\n")
    vgg = vgg.replace("return self.head(self.blocks(self.stem(x)).mean(axis=(2, 3)))",
                      "return self.head(self.fc1(self.blocks(self.stem(x)).flatten()))")
    assert found(program("Model(Net(), loss, opt).train(10, data)", vgg)) == {"MSP101": [(MODEL_LINE + 1, 5)]}


def test_a_cnn_whose_dense_heads_hold_fewer_weights_than_its_convolutions_is_msp107s():
    # two projection heads of 128 x 4096 (1.05 M MatMul weights, past MSP101's bound alone) beside 1.77 M
    # convolution weights: the convolutions are the work (a ResNet with a few Dense heads)
    heads = CNN.replace("        self.head = nn.Dense(width, 10)\n",
                        "        self.up = nn.Dense(width, 4096)\n        self.head = nn.Dense(4096, width)\n")
    heads = heads.replace("return self.head(self.blocks(self.stem(x)).mean(axis=(2, 3)))",
                          "return self.head(self.up(self.blocks(self.stem(x)).mean(axis=(2, 3))))")
    assert found(program("Model(Net(), loss, opt).train(10, data)", heads)) == {"MSP107": [(MODEL_LINE + 1, 5)]}


def test_gpu_and_cpu_programs_are_silent():
    for target in ("GPU", "CPU"):
        assert found(program(f"""
            ms.set_context(device_target="{target}")
            Model(Net(), loss, opt).train(10, data)
        """)) == {}, target


def test_a_gan_whose_code_says_float32_is_needed_is_silent():
    commented = CNN.replace("        self.stem = nn.Conv2d(3, width, 3)\n",
                            "        # keep the discriminator in fp32: its loss is unstable in float16\n"
                            "        self.stem = nn.Conv2d(3, width, 3)\n")
    assert found(program("Model(Net(), loss, opt).train(10, data)", commented)) == {}
    flagged = program("""
        import argparse
        parser = argparse.ArgumentParser()
        parser.add_argument("--keep_fp32", type=bool, default=True)
        args = parser.parse_args()
        Model(Net(), loss, opt).train(10, data)
    """)
    assert found(flagged) == {}


def test_a_float32_comment_without_a_reason_does_not_silence():
    casting = CNN.replace("        self.stem = nn.Conv2d(3, width, 3)\n",
                          "        # images arrive as float32\n        self.stem = nn.Conv2d(3, width, 3)\n")
    assert list(found(program("Model(Net(), loss, opt).train(10, data)", casting))) == ["MSP107"]


def test_the_910a_target_is_silent():
    assert found(program("Model(Net(), loss, opt).train(10, data)"), ascend_target="910a") == {}


def test_convolutions_cast_by_hand_are_silent():
    """The model zoo's detectors cast their convolutions with to_float(self.cast_type), float16 on Ascend."""
    by_hand = CNN.replace("        self.conv = nn.Conv2d(channels, channels, 3)\n",
                          "        self.cast_type = mstype.float16 if ms.get_context('device_target') == 'Ascend' "
                          "else mstype.float32\n"
                          "        self.conv = nn.Conv2d(channels, channels, 3).to_float(self.cast_type)\n")
    assert found(program("Model(Net(), loss, opt).train(10, data)", by_hand)) == {}
    head_only = CNN.replace("self.head = nn.Dense(width, 10)", "self.head = nn.Dense(width, 10).to_float(mstype.float32)")
    assert list(found(program("Model(Net(), loss, opt).train(10, data)", head_only))) == ["MSP107"]


def test_convolutions_kept_in_float32_by_hand_inside_a_project_train_step_are_silent():
    """Mask R-CNN's shape: a project train-step cell keeps the network; a helper's convolutions are cast to float32."""
    step = """
class TrainStep(nn.Cell):
    def __init__(self, network, optimizer):
        super().__init__()
        self.network = network
        self.optimizer = optimizer
        self.grad = ms.ops.GradOperation(get_by_list=True)
    def construct(self, x, y):
        return self.grad(self.network, self.optimizer.parameters)(x, y)
"""
    by_hand = CNN.replace("        self.conv = nn.Conv2d(channels, channels, 3)\n",
                          "        self.conv = conv3x3(channels).to_float(mstype.float32)\n") + step + """
def conv3x3(channels):
    return nn.Conv2d(channels, channels, 3)
"""
    main = """
        net = Net()
        Model(TrainStep(net, nn.Momentum(net.trainable_params(), 0.1, 0.9))).train(10, data)
    """
    assert found(program(main, by_hand)) == {}
    assert list(found(program(main, CNN + step))) == ["MSP107"]


def test_blocks_are_counted_with_the_channels_each_call_gives_them():
    """A U-Net's shape: one block class built with 3->64 ... 256->512 channels. Counted at the smallest channels
    for every block, it would count 0.15 M; each call says its own channels (2.3 M)."""
    unet = """
import mindspore.nn as nn
from mindspore.train import Model
class DoubleConv(nn.Cell):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        mid = out_channels // 2
        self.conv1 = nn.Conv2d(in_channels, mid, 3)
        self.conv2 = nn.Conv2d(mid, out_channels, 3)
    def construct(self, x):
        return self.conv2(self.conv1(x))
class UNet(nn.Cell):
    def __init__(self, width=64):
        super().__init__()
        self.down1 = DoubleConv(3, width)
        self.down2 = DoubleConv(width, width * 2)
        self.down3 = DoubleConv(width * 2, width * 4)
        self.down4 = DoubleConv(width * 4, width * 8)
    def construct(self, x):
        return self.down4(self.down3(self.down2(self.down1(x))))
"""
    findings = lint(program("Model(UNet(), loss, opt).train(10, data)", unet))
    assert [f.code for f in findings] == ["MSP107"]
    # (3*32 + 32*64 + 64*64 + 64*128 + 128*128 + 128*256 + 256*256 + 256*512) * 9
    assert "at least 2,341,728 convolution weights" in findings[0].message


# --- sizes only a run of the constructor tells --------------------------------------------------------------

#: A DCGAN pair whose channel counts change on every pass of a ``while`` loop, built at module level from names,
#: trained by a custom loop of two train steps over project loss cells that keep both networks.
DCGAN = """
import mindspore as ms
import mindspore.nn as nn
class Generator(nn.Cell):
    def __init__(self, isize, nz, nc, ngf=64):
        super().__init__()
        cngf, tisize = ngf // 2, 4
        while tisize != isize:
            cngf = cngf * 2
            tisize = tisize * 2
        main = nn.SequentialCell()
        main.append(nn.Conv2dTranspose(nz, cngf, 4, 1, "pad", 0, has_bias=False))
        csize = 4
        while csize < isize // 2:
            main.append(nn.Conv2dTranspose(cngf, cngf // 2, 4, 2, "pad", 1, has_bias=False))
            cngf = cngf // 2
            csize = csize * 2
        main.append(nn.Conv2dTranspose(cngf, nc, 4, 2, "pad", 1, has_bias=False))
        self.main = main
    def construct(self, z):
        return self.main(z)
class Discriminator(nn.Cell):
    def __init__(self, isize, nc, ndf=64):
        super().__init__()
        main = nn.SequentialCell()
        main.append(nn.Conv2d(nc, ndf, 4, 2, "pad", 1, has_bias=False))
        csize, cndf = isize / 2, ndf
        while csize > 4:
            main.append(nn.Conv2d(cndf, cndf * 2, 4, 2, "pad", 1, has_bias=False))
            cndf = cndf * 2
            csize = csize / 2
        main.append(nn.Conv2d(cndf, 1, 4, 1, "pad", 0, has_bias=False))
        self.main = main
    def construct(self, x):
        return self.main(x).mean()
class GeneratorLoss(nn.Cell):
    def __init__(self, netG, netD):
        super().__init__()
        self.netG = netG
        self.netD = netD
    def construct(self, z):
        return -self.netD(self.netG(z))
class DiscriminatorLoss(nn.Cell):
    def __init__(self, netG, netD):
        super().__init__()
        self.netG = netG
        self.netD = netD
    def construct(self, real, z):
        return self.netD(self.netG(z)) - self.netD(real)
ms.set_context(mode=ms.GRAPH_MODE)
image_size, latent, channels = 64, 100, 3
netG = Generator(image_size, latent, channels)
netD = Discriminator(image_size, channels)
optG = nn.RMSProp(netG.trainable_params(), 5e-5)
optD = nn.RMSProp(netD.trainable_params(), 5e-5)
stepG = nn.TrainOneStepCell(GeneratorLoss(netG, netD), optG)
stepD = nn.TrainOneStepCell(DiscriminatorLoss(netG, netD), optD)
for real, z in data:
    stepD(real, z)
    stepG(z)
"""


def test_channels_that_change_on_every_pass_of_a_while_loop_are_counted_pass_by_pass():
    findings = lint(DCGAN)
    lines = DCGAN.lstrip("\n").splitlines()
    assert [(f.code, lines[f.line - 1].split(" =")[0]) for f in findings] == [("MSP107", "stepG"), ("MSP107", "stepD")]
    # generator 100x512x16 + 512x256x16 + 256x128x16 + 128x64x16 + 64x3x16 = 3,574,784; discriminator
    # 3x64x16 + 64x128x16 + 128x256x16 + 256x512x16 + 512x1x16 = 2,763,776: both networks once, not the loss
    # cells' count added to the networks' own
    assert all("at least 6,338,560 convolution weights" in f.message for f in findings)


def test_the_same_gan_built_eight_times_narrower_is_silent():
    narrow = DCGAN.replace("Generator(image_size, latent, channels)", "Generator(image_size, latent, channels, 8)") \
        .replace("Discriminator(image_size, channels)", "Discriminator(image_size, channels, 8)")
    assert lint(narrow) == []


def test_a_loss_cell_computing_its_matching_costs_in_float16_leaves_the_network_in_float32():
    # YOLOX's loss casts its label-assignment cost matrix to float16 for TopK: the backbone still trains in fp32
    network = CNN.replace("import mindspore.nn as nn", "import mindspore.nn as nn\nimport mindspore.ops as ops") + """
class DetectionLoss(nn.Cell):
    def __init__(self, network):
        super().__init__()
        self.network = network
    def construct(self, x, y):
        cost = ops.cast(self.network(x) - y, ms.float16)
        return ops.TopK()(cost, 4)[0].sum()
"""
    findings = lint(program("""
        net = Net()
        step = nn.TrainOneStepCell(DetectionLoss(net), nn.Momentum(net.trainable_params(), 0.1, 0.9))
        Model(step).train(10, data)
    """, network))
    assert [f.code for f in findings] == ["MSP107"]


def test_a_model_over_train_steps_built_in_both_arms_of_an_if_is_decided_at_each_step_not_again_at_model():
    findings = lint(program("""
        net = Net()
        opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt).set_train()
        if resume:
            step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt, sens=2.0).set_train()
        Model(step, amp_level="O0").train(10, data)
    """))
    assert [(f.code, f.line) for f in findings] == [("MSP107", MODEL_LINE + 2), ("MSP107", MODEL_LINE + 4)]


def test_a_project_train_step_built_in_either_arm_of_an_if_is_counted_through_the_network_it_keeps():
    # ``net = StepWrapper(net, opt, clip)`` in both arms: the wrapper's own class builds no convolution and is built
    # elsewhere over a network of unknown size; the network this construction keeps (through a loss cell) is counted
    wrappers = CNN + textwrap.dedent("""
    class WithLoss(nn.Cell):
        def __init__(self, network, loss):
            super().__init__()
            self.network = network
            self.loss = loss
        def construct(self, x, y):
            return self.loss(self.network(x), y)
    class StepWrapper(nn.Cell):
        def __init__(self, network, optimizer, clip=False):
            super().__init__()
            self.network = network
            self.optimizer = optimizer
            self.grad = ms.ops.GradOperation(get_by_list=True)
        def construct(self, x, y):
            return self.network(x, y)
    def build(name):
        if name == "deep":
            backbone = Net(depth=12)
        elif name == "wide":
            backbone = Net(width=256)
        else:
            raise ValueError(name)
        return backbone
    def finetune(network, optimizer):
        return StepWrapper(network, optimizer)  # another construction, of a network no one can size
    """)
    code = program("""
        net = WithLoss(build(args.name), loss)
        opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
        if clip:
            net = StepWrapper(net, opt, True)
        else:
            net = StepWrapper(net, opt)
        Model(net).train(10, data)
    """, network=wrappers)
    findings = lint(code)
    assert [f.code for f in findings] == ["MSP107"]
    assert "at least 1,772,928 convolution weights" in findings[0].message
    proj = project({"train.py": code})
    model = next(c for c in proj.python["train.py"].calls if c.callee.endswith("Model"))
    classes = Training.shared(proj).network_classes("train.py", model.args[0], model.scope)
    assert {name for _, name in classes} == {"StepWrapper", "WithLoss", "Net"}


#: A DenseNet built through a factory function that passes its block configuration as a tuple: each dense layer's
#: input channels grow with the layers before it (``num_input_features + i * growth_rate``), each transition
#: halves them, and the layers are stored in an ``OrderedDict`` by name.
DENSENET = """
from collections import OrderedDict
import mindspore as ms
import mindspore.nn as nn
class DenseLayer(nn.Cell):
    def __init__(self, num_input_features, growth_rate, bn_size):
        super().__init__()
        self.conv1 = nn.Conv2d(num_input_features, bn_size * growth_rate, 1)
        self.conv2 = nn.Conv2d(bn_size * growth_rate, growth_rate, 3)
    def construct(self, x):
        return ms.ops.concat((x, self.conv2(self.conv1(x))), 1)
class DenseBlock(nn.Cell):
    def __init__(self, num_layers, num_input_features, bn_size, growth_rate):
        super().__init__()
        self.cell_list = nn.CellList()
        for i in range(num_layers):
            self.cell_list.append(DenseLayer(num_input_features + i * growth_rate, growth_rate, bn_size))
    def construct(self, x):
        for layer in self.cell_list:
            x = layer(x)
        return x
class DenseNet(nn.Cell):
    def __init__(self, growth_rate, block_config, num_init_features=None, bn_size=4):
        super().__init__()
        layers = OrderedDict()
        if num_init_features:
            layers["conv0"] = nn.Conv2d(3, num_init_features, 7, stride=2)
            num_features = num_init_features
        else:
            layers["conv0"] = nn.Conv2d(3, growth_rate * 2, 3)
            num_features = growth_rate * 2
        for i, num_layers in enumerate(block_config):
            layers["denseblock%d" % (i + 1)] = DenseBlock(num_layers, num_features, bn_size, growth_rate)
            num_features = num_features + num_layers * growth_rate
            if i != len(block_config) - 1:
                layers["transition%d" % (i + 1)] = nn.Conv2d(num_features, num_features // 2, 1)
                num_features = num_features // 2
        self.features = nn.SequentialCell(layers)
        self.head = nn.Dense(num_features, 100)
    def construct(self, x):
        return self.head(self.features(x).mean(axis=(2, 3)))
def densenet121(**kwargs):
    return DenseNet(growth_rate=32, block_config=(6, 12, 24, 16), num_init_features=64, **kwargs)
ms.set_context(mode=ms.GRAPH_MODE)
net = densenet121()
opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
def forward(x, y):
    return loss(net(x), y)
grad_fn = ms.value_and_grad(forward, None, opt.parameters)
for x, y in data:
    _, grads = grad_fn(x, y)
    opt(grads)
"""


def test_a_densenet_is_counted_layer_by_layer_through_its_factory_and_its_growing_channels():
    findings = lint(DENSENET)
    grad_line = DENSENET.lstrip("\n").splitlines().index("grad_fn = ms.value_and_grad(forward, None, opt.parameters)") + 1
    assert [(f.code, f.line) for f in findings] == [("MSP107", grad_line)]
    # DenseNet-121: 3x64x49 stem; 58 dense layers of (c x 128 + 128 x 32 x 9) with c = 64, 96, ... per block;
    # three transitions halving 256, 512 and 1024 channels (written out in _densenet121_weights below)
    assert f"at least {_densenet121_weights():,} convolution weights" in findings[0].message


def _densenet121_weights() -> int:
    total, features = 3 * 64 * 49, 64
    for index, layers in enumerate((6, 12, 24, 16)):
        total += sum((features + i * 32) * 128 + 128 * 32 * 9 for i in range(layers))
        features += layers * 32
        if index != 3:
            total += features * (features // 2)
            features //= 2
    return total


def test_a_gan_with_one_gradient_function_per_network_is_reported_at_each_networks_own():
    findings = lint(program("""
        netG, netD = Net(), Net(width=256)
        optG = nn.Adam(netG.trainable_params(), 2e-4)
        optD = nn.Adam(netD.trainable_params(), 2e-4)
        def g_loss(x):
            return -netD(netG(x)).mean()
        def d_loss(x, y):
            return netD(netG(x)).mean() - netD(y).mean()
        grad_d = ms.value_and_grad(d_loss, None, netD.trainable_params())
        grad_g = ms.value_and_grad(g_loss, None, netG.trainable_params())
        for x, y in data:
            _, gd = grad_d(x, y)
            optD(gd)
            _, gg = grad_g(x)
            optG(gg)
    """))
    lines = {f.line - MODEL_LINE for f in findings}
    assert lines == {7, 8} and len(findings) == 2  # grad_d's and grad_g's lines, not the optimizers'


#: A ResNet whose residual block class is handed to ``__init__`` and built by ``_make_layer``, which updates
#: ``self.inplanes`` after each block; the network comes from a factory choosing the stage depths.
RESNET = """
import mindspore as ms
import mindspore.nn as nn
from mindspore.train import Model
class Bottleneck(nn.Cell):
    expansion = 4
    def __init__(self, inplanes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 1)
        self.conv2 = nn.Conv2d(planes, planes, 3, stride=stride)
        self.conv3 = nn.Conv2d(planes, planes * self.expansion, 1)
    def construct(self, x):
        return self.conv3(self.conv2(self.conv1(x)))
class ResNet(nn.Cell):
    def __init__(self, block, layers, num_classes=1000):
        super().__init__()
        self.inplanes = 64
        self.conv1 = nn.Conv2d(3, self.inplanes, 7, stride=2)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2)
        self.layer3 = self._make_layer(block, 256, layers[2], stride=2)
        self.layer4 = self._make_layer(block, 512, layers[3], stride=2)
        self.fc = nn.Dense(512 * block.expansion, num_classes)
    def _make_layer(self, block, planes, blocks, stride=1):
        strides = [stride] + [1] * (blocks - 1)
        layers = []
        for s in strides:
            layers.append(block(self.inplanes, planes, s))
            self.inplanes = planes * block.expansion
        return nn.SequentialCell(layers)
    def construct(self, x):
        x = self.layer4(self.layer3(self.layer2(self.layer1(self.conv1(x)))))
        return self.fc(x.mean(axis=(2, 3)))
def resnet50(num_classes=1000):
    return ResNet(Bottleneck, [3, 4, 6, 3], num_classes)
if __name__ == "__main__":
    ms.set_context(mode=ms.GRAPH_MODE)
    net = resnet50(10)
    Model(net, loss, nn.Momentum(net.trainable_params(), 0.1, 0.9)).train(90, data)
"""


def test_a_resnet_built_from_a_block_class_handed_in_is_counted_block_by_block():
    findings = lint(RESNET)
    assert [f.code for f in findings] == ["MSP107"]
    # stem 3x64x49; each bottleneck inplanes x planes + planes^2 x 9 + planes x 4planes, with inplanes 64 for the
    # first block and 4 x planes after it (written out in _resnet50_weights below)
    assert f"at least {_resnet50_weights():,} convolution weights" in findings[0].message


def _resnet50_weights() -> int:
    total, inplanes = 3 * 64 * 49, 64
    for planes, blocks in ((64, 3), (128, 4), (256, 6), (512, 3)):
        for _ in range(blocks):
            total += inplanes * planes + planes * planes * 9 + planes * planes * 4
            inplanes = planes * 4
    return total


#: A project train-step cell that takes its optimizer and builds its own GradOperation (the model zoo's GANs).
STEP_CELL = '''
class StepCell(nn.Cell):
    def __init__(self, loss_cell, optimizer):
        super().__init__()
        self.loss_cell, self.optimizer = loss_cell, optimizer
        self.grad = ops.GradOperation(get_by_list=True)
        self.weights = optimizer.parameters
    def construct(self, x):
        grads = self.grad(self.loss_cell, self.weights)(x)
        return self.optimizer(grads)
'''


def test_sizes_from_argparse_defaults_and_project_train_step_cells_taking_each_optimizer():
    # AttGAN: the widths come from argparse defaults; each network's train step is a project cell that takes its
    # optimizer and builds its own GradOperation: the finding goes to that construction, the user's line
    code = CNN.replace("import mindspore.nn as nn", "import argparse\nimport mindspore.nn as nn\nimport mindspore.ops as ops") + \
        STEP_CELL + '''
if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--gen_width", type=int, default=128)
    parser.add_argument("--dis_width", type=int, default=256)
    args = parser.parse_args()
    gen, dis = Net(args.gen_width), Net(args.dis_width)
    opt_g = nn.Adam(gen.trainable_params())
    opt_d = nn.Adam(dis.trainable_params())
    step_g = StepCell(nn.WithLossCell(gen, loss), opt_g)
    step_d = StepCell(nn.WithLossCell(dis, loss), opt_d)
    for x in data:
        step_d(x)
        step_g(x)
'''
    lines = code.lstrip("\n").splitlines()
    findings = lint(code)
    assert [lines[f.line - 1].strip().split(" =")[0] for f in findings] == ["step_g", "step_d"]
    # 12 blocks of width x width x 9 plus the 3 x width x 9 stem: 1,772,928 at 128, 7,084,800 at 256
    assert ["1,772,928" in findings[0].message, "7,084,800" in findings[1].message] == [True, True]


def test_a_model_in_the_arm_of_a_device_test_an_ascend_run_does_not_take_is_not_decided():
    # CNNCTC: O2 on Ascend; the other devices' arm trains a hand-written loss-scaling step without AMP
    for target in ("config.device_target", '"GPU" if use_gpu else "Ascend"'):
        code = program(f"""
            target = {target}
            ms.set_context(device_target=target)
            net = Net()
            opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
            if target == "Ascend":
                model = Model(nn.WithLossCell(net, loss), optimizer=opt, amp_level="O2")
            else:
                model = Model(nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt))
            model.train(10, data)
        """)
        assert found(code) == {}, target
        # the same program with the arms swapped: the Ascend arm trains in float32
        swapped = code.replace('if target == "Ascend":', 'if target != "Ascend":')
        assert list(found(swapped)) == ["MSP107"], target


def test_convolutions_built_in_the_two_arms_of_an_if_count_once():
    # Res2Net's _conv3x3: ``if res_base: return nn.Conv2d(..., pad_mode="pad")`` else ``return nn.Conv2d(...)``:
    # one convolution either way (counting both arms put Res2Net-50 at 127 M "at least" instead of ~24 M)
    network = CNN.replace("        self.conv = nn.Conv2d(channels, channels, 3)", "        self.conv = _conv(channels)") + """
def _conv(channels, res_base=False):
    if res_base:
        return nn.Conv2d(channels, channels, 3, pad_mode="pad", padding=1)
    else:
        return nn.Conv2d(channels, channels, 3)
"""
    findings = lint(program("Model(Net(), loss, opt).train(10, data)", network))
    assert [f.code for f in findings] == ["MSP107"]
    assert "at least 1,772,928 convolution weights" in findings[0].message


def test_an_arm_whose_training_call_is_marked_fp32_is_kept_in_float32_on_purpose():
    # Res2Net: O2 on the shipped runs; the parameter-server/CPU arm says "# fp32 training" over its Model(...)
    code = program("""
        net = Net()
        if parameter_server:
            # fp32 training
            model = Model(net, loss_fn=loss, optimizer=opt)
        else:
            model = Model(net, loss_fn=loss, optimizer=opt, amp_level="O2")
        model.train(10, data)
    """)
    assert found(code) == {}
    assert list(found(code.replace("# fp32 training", "# the plain run"))) == ["MSP107"]


def test_model_zoo_train_step_cells_with_composite_grad_operation_and_optimizers_in_arms():
    # official/cv/WGAN: ``import mindspore.ops.composite as C`` train-step cells taking the optimizer chosen by
    # --adam, and a generator class chosen by --noBN: reported at each step cell, the generator at the smaller class
    code = DCGAN.replace("import mindspore.nn as nn", "import mindspore.nn as nn\nimport mindspore.ops.composite as C")
    code = code.replace('''class GeneratorLoss(nn.Cell):''', '''class Tiny(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
    def construct(self, x):
        return self.conv(x)
class StepCell(nn.Cell):
    def __init__(self, loss_cell, optimizer):
        super().__init__()
        self.loss_cell, self.optimizer = loss_cell, optimizer
        self.grad = C.GradOperation(get_by_list=True)
    def construct(self, *inputs):
        return self.optimizer(self.grad(self.loss_cell, self.optimizer.parameters)(*inputs))
class GeneratorLoss(nn.Cell):''')
    code = code.replace('''optG = nn.RMSProp(netG.trainable_params(), 5e-5)
optD = nn.RMSProp(netD.trainable_params(), 5e-5)
stepG = nn.TrainOneStepCell(GeneratorLoss(netG, netD), optG)
stepD = nn.TrainOneStepCell(DiscriminatorLoss(netG, netD), optD)''', '''if adam:
    optG = nn.Adam(netG.trainable_params(), 5e-5)
    optD = nn.Adam(netD.trainable_params(), 5e-5)
else:
    optG = nn.RMSProp(netG.trainable_params(), 5e-5)
    optD = nn.RMSProp(netD.trainable_params(), 5e-5)
stepG = StepCell(GeneratorLoss(netG, netD), optG)
stepD = StepCell(DiscriminatorLoss(netG, netD), optD)''')
    findings = lint(code)
    lines = code.lstrip("\n").splitlines()
    assert [lines[f.line - 1].split(" =")[0] for f in findings] == ["stepG", "stepD"]
    # each step trains its own network: the generator 3,574,784, the critic 2,763,776
    assert ["3,574,784" in findings[0].message, "2,763,776" in findings[1].message] == [True, True]


#: A model zoo's config module: an object whose attributes are the keys of the YAML file beside the script.
CONFIG_FROM_YAML = """
    import yaml
    class Config:
        def __init__(self, entries):
            for key, value in entries.items():
                setattr(self, key, value)
    with open("default_config.yaml") as handle:
        config = Config(yaml.safe_load(handle))
"""


def test_a_loss_scaling_step_over_a_resnet_sized_from_yaml_lists_with_its_downsampling_counted_per_block(tmp_path):
    # PSENet: ResNet-50 widths as YAML lists, a downsampling convolution only where a block changes its width or
    # stride, trained by TrainOneStepWithLossScaleCell with no AMP: loss scaling casts no layer
    from ms_perflint.run.lint import check_folder
    from tests.conftest import write_project

    files = {
        "default_config.yaml": "LAYER_NUMS: [3, 4, 6, 3]\nIN_CHANNELS: [64, 256, 512, 1024]\n"
                               "OUT_CHANNELS: [256, 512, 1024, 2048]\n",
        "src/config.py": CONFIG_FROM_YAML,
        "src/resnet.py": """
            import mindspore.nn as nn
            class Block(nn.Cell):
                expansion = 4
                def __init__(self, in_channels, out_channels, stride=1):
                    super().__init__()
                    middle = out_channels // self.expansion
                    self.conv1 = nn.Conv2d(in_channels, middle, 1)
                    self.conv2 = nn.Conv2d(middle, middle, 3, stride=stride)
                    self.conv3 = nn.Conv2d(middle, out_channels, 1)
                    self.downsample = in_channels != out_channels
                    if self.downsample or stride != 1:
                        self.down = nn.Conv2d(in_channels, out_channels, 1, stride=stride)
                def construct(self, x):
                    return self.conv3(self.conv2(self.conv1(x)))
            class ResNet(nn.Cell):
                def __init__(self, block, layer_nums, in_channels, out_channels):
                    super().__init__()
                    self.conv1 = nn.Conv2d(3, 64, 7, stride=2)
                    self.layer1 = self._make_layer(block, layer_nums[0], in_channels[0], out_channels[0], 1)
                    self.layer2 = self._make_layer(block, layer_nums[1], in_channels[1], out_channels[1], 2)
                    self.layer3 = self._make_layer(block, layer_nums[2], in_channels[2], out_channels[2], 2)
                    self.layer4 = self._make_layer(block, layer_nums[3], in_channels[3], out_channels[3], 2)
                def _make_layer(self, block, layer_num, in_channel, out_channel, stride):
                    layers = [block(in_channel, out_channel, stride=stride)]
                    for _ in range(1, layer_num):
                        layers.append(block(out_channel, out_channel, stride=1))
                    return nn.SequentialCell(layers)
                def construct(self, x):
                    return self.layer4(self.layer3(self.layer2(self.layer1(self.conv1(x)))))
        """,
        "train.py": """
            import mindspore as ms
            import mindspore.nn as nn
            from src.config import config
            from src.resnet import ResNet, Block
            ms.set_context(mode=ms.GRAPH_MODE)
            net = ResNet(Block, config.LAYER_NUMS, config.IN_CHANNELS, config.OUT_CHANNELS)
            opt = nn.SGD(net.trainable_params(), learning_rate=0.01)
            step = nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, loss), opt,
                                                    scale_sense=nn.FixedLossScaleUpdateCell(1024.0))
            for image, label in data:
                step(image, label)
        """,
    }
    root = write_project(tmp_path / "plain", files)
    results = check_folder(str(root), Settings(select=("MSP107",)), rules=[Fp32ConvTraining])
    [finding] = [f for r in results.values() for f in r.findings]
    expected, inputs = 3 * 64 * 49, 64
    for blocks, outputs, stride in ((3, 256, 1), (4, 512, 2), (6, 1024, 2), (3, 2048, 2)):
        for number in range(blocks):
            width, middle = (inputs if number == 0 else outputs), outputs // 4
            expected += width * middle + middle * middle * 9 + middle * outputs
            if number == 0:  # the first block of each stage changes the width or the stride: it downsamples
                expected += width * outputs
        inputs = outputs
    assert f"at least {expected:,} convolution weights" in finding.message
    # the same network cast to float16 by hand is the author's precision
    cast = {**files, "train.py": files["train.py"].replace("opt = ", "net.to_float(ms.float16)\n            opt = ")}
    results = check_folder(str(write_project(tmp_path / "cast", cast)), Settings(select=("MSP107",)),
                           rules=[Fp32ConvTraining])
    assert not any(r.findings for r in results.values())


def test_a_layer_built_under_a_flag_the_call_turns_off_is_not_counted():
    # cnn_direction_model: Conv(..., dilate=False) builds no dilated convolution; "at least" stays a lower bound
    code = """
import mindspore as ms
import mindspore.nn as nn
from mindspore.train import Model
class Conv(nn.Cell):
    def __init__(self, cin, cout, dilate=True, act="relu"):
        super().__init__()
        self.dilate = dilate
        self.conv = nn.Conv2d(cin, cout, 3)
        if self.dilate and act == "relu":
            self.dilated = nn.Conv2d(cout, cout, 3, dilation=2)
    def construct(self, x):
        return self.conv(x)
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.blocks = nn.SequentialCell([Conv(256, 256, dilate=DILATE) for _ in range(2)])
    def construct(self, x):
        return self.blocks(x)
if __name__ == "__main__":
    ms.set_context(mode=ms.GRAPH_MODE)
    Model(Net(), loss, nn.Adam(params)).train(10, data)
"""
    # two 256x256x3x3 convolutions are 1,179,648 weights; with the dilated ones 2,359,296
    assert "at least 2,359,296 " in lint(code.replace("DILATE", "True"))[0].message
    assert "at least 1,179,648 " in lint(code.replace("dilate=DILATE", 'dilate=True, act="gelu"'))[0].message
    assert lint(code.replace("Conv(256, 256, dilate=DILATE)", "Conv(192, 192, dilate=False)")) == []


def test_a_train_step_an_export_script_builds_and_never_runs_is_not_a_training():
    # Pix2Pix's export script: it builds the GAN's train-step cell (a GradOperation in its __init__), then exports
    # the generator with loaded weights; the step is never called, passed on or returned
    code = CNN.replace("import mindspore.nn as nn", "import mindspore.nn as nn\nimport mindspore.ops as ops") + \
        STEP_CELL + '''
if __name__ == "__main__":
    net = Net()
    train_net = StepCell(nn.WithLossCell(net, loss), nn.Adam(net.trainable_params()))
    train_net.set_train()
    library_step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Adam(net.trainable_params()))
    ms.load_param_into_net(net, ms.load_checkpoint("net.ckpt"))
    ms.export(net, inputs, file_name="net", file_format="MINDIR")
'''
    assert lint(code) == []
    for runs in ("    for x in data:\n        train_net(x)\n", "    Model(library_step).train(10, data)\n",
                 "    library_step = library_step.set_train()\n    for x in data:\n        library_step(x)\n"):
        assert [f.code for f in lint(code + runs)] == ["MSP107"], runs


def test_a_model_handed_to_the_scripts_own_train_function_is_trained_there():
    # fcn-4: def train(model, ...): ... model.train(epoch, data); called as train(model=net_model, ...)
    code = program("""
        net_model = Model(Net(), loss, nn.Adam(params))
        train(model=net_model, epoch=50)
    """, CNN + '''
def train(model, epoch=10):
    model.train(epoch, data)
''')
    lines = code.lstrip("\n").splitlines()
    findings = lint(code)
    assert [(f.code, lines[f.line - 1].strip().split(" =")[0]) for f in findings] == [("MSP107", "net_model")]
    assert findings[0].fix is not None  # the amp_level switch on that Model(...)


def test_a_project_trainer_class_building_its_gradient_function_trains_through_its_methods():
    # mindnlp notebooks: class Trainer: __init__ builds value_and_grad; trainer.train() runs it
    code = CNN + '''
class Trainer:
    def __init__(self, net, optimizer):
        self.net, self.optimizer = net, optimizer
        self.grad_fn = ms.value_and_grad(self.forward, None, optimizer.parameters)
    def forward(self, x):
        return self.net(x).mean()
    def train(self):
        for x in data:
            loss, grads = self.grad_fn(x)
            self.optimizer(grads)
if __name__ == "__main__":
    net = Net()
    trainer = Trainer(net, nn.Adam(net.trainable_params()))
    trainer.train()
'''
    assert [f.code for f in lint(code)] == ["MSP107"]


def test_a_gradient_function_a_step_function_calls_as_a_global_is_used():
    # mindnlp notebooks: grad_fn built at module level, called from train_step(**batch)
    code = program("""
        net = Net()
        optimizer = nn.Adam(net.trainable_params())
        for x in data:
            train_step(x)
    """, CNN + '''
def forward(x):
    return net(x).mean()
grad_fn = ms.value_and_grad(forward, None, optimizer.parameters)
def train_step(x):
    loss, grads = grad_fn(x)
    optimizer(grads)
    return loss
''')
    assert [f.code for f in lint(code)] == ["MSP107"]
    assert lint(code.replace("    loss, grads = grad_fn(x)", "    loss, grads = 0, ()")) == []  # built, never run


def test_a_gan_train_step_with_one_gradient_function_for_both_loss_cells_names_its_networks_by_its_arguments():
    # the project's own train-step cell (not built on TrainOneStepCell) takes the loss cells by keyword and the
    # optimizers' parameters from properties no rule can follow: the network is the first loss cell it is given
    gan = CNN + textwrap.dedent("""
    class Pair(nn.Cell):
        def __init__(self):
            super().__init__()
            self.netG = Net()
            self.netD = Net(width=256)
        @property
        def params_G(self):
            return self.netG.trainable_params()
        @property
        def params_D(self):
            return self.netD.trainable_params()
    class DLoss(nn.Cell):
        def __init__(self, backbone):
            super().__init__()
            self.backbone = backbone
        def construct(self, x, y):
            return self.backbone.netD(self.backbone.netG(x)).mean() - self.backbone.netD(y).mean()
    class GLoss(DLoss):
        def construct(self, x, y):
            return -self.backbone.netD(self.backbone.netG(x)).mean()
    class GanStep(nn.Cell):
        def __init__(self, loss_netD, loss_netG, optimizerD, optimizerG):
            super().__init__()
            self.loss_netD, self.loss_netG = loss_netD, loss_netG
            self.optimizerD, self.optimizerG = optimizerD, optimizerG
            self.grad = ms.ops.GradOperation(get_by_list=True)
        def construct(self, x, y):
            d = self.loss_netD(x, y)
            self.optimizerD(self.grad(self.loss_netD, self.optimizerD.parameters)(x, y))
            g = self.loss_netG(x, y)
            self.optimizerG(self.grad(self.loss_netG, self.optimizerG.parameters)(x, y))
            return d, g
    """)
    code = program("""
        pair = Pair()
        optD = nn.Adam(pair.params_D, 2e-4)
        optG = nn.Adam(pair.params_G, 2e-4)
        step = GanStep(loss_netD=DLoss(pair), loss_netG=GLoss(pair), optimizerD=optD, optimizerG=optG)
        for x, y in data:
            step(x, y)
    """, network=gan)
    step_line = code.lstrip("\n").splitlines().index("    step = GanStep(loss_netD=DLoss(pair), loss_netG=GLoss(pair), "
                                        "optimizerD=optD, optimizerG=optG)") + 1
    findings = lint(code)
    assert [(f.code, f.line) for f in findings] == [("MSP107", step_line)]


def test_a_builder_that_calls_itself_with_new_sizes_is_counted_without_end():
    # ``self._build(depth + 1)`` under a test the linter cannot decide: each level is entered with another size,
    # so the count stops nesting after a few levels instead of recursing until Python gives up
    recursive = CNN.replace("""        self.blocks = nn.SequentialCell([Block(width) for _ in range(depth)])""",
                            """        self.blocks = self._build(width, 0)""").replace("""    def construct(self, x):
        return self.head(""", """    def _build(self, width, depth):
        layers = [Block(width)]
        if self.deeper(depth):
            layers.append(self._build(width, depth + 1))
        return nn.SequentialCell(layers)
    def construct(self, x):
        return self.head(""")
    assert "self._build(width, depth + 1)" in recursive
    findings = lint(program("Model(Net(), loss, opt).train(10, data)", recursive))
    assert [f.code for f in findings] == ["MSP107"]  # 8 levels of 147,456 and the stem: past the 1 M bound


def test_a_constructor_flag_computed_from_a_configured_value_is_run_as_that_value():
    # ``Net(cifar=args.dataset == "cifar10")`` with the argparse default "cifar10": the constructor's ``if cifar:``
    # takes its arm when the network is counted, so the run goes on into the blocks built from the class handed in
    network = CNN.replace("""    def __init__(self, width=128, depth=12):
        super().__init__()
        self.stem = nn.Conv2d(3, width, 3)
        self.blocks = nn.SequentialCell([Block(width) for _ in range(depth)])""", """    def __init__(self, width=128, depth=12, cifar=False):
        super().__init__()
        if cifar:
            self.stem = nn.Conv2d(3, width, 3)
        else:
            self.stem = nn.Conv2d(3, width, 7)
        widths = [w * 1 for w in (width, width)]  # computed sizes: only a run of the constructor knows them
        self.blocks = self._make(Block, widths[0], depth)
    def _make(self, block, width, depth):
        layers = []
        for _ in range(depth):
            layers.append(block(width))
        return nn.SequentialCell(layers)""")
    assert "if cifar:" in network
    main = """
        import argparse
        parser = argparse.ArgumentParser()
        parser.add_argument("--dataset", default="cifar10")
        args = parser.parse_args()
        Model(Net(cifar=args.dataset == "cifar10"), loss, opt).train(10, data)
    """
    findings = lint(program(main, network))
    assert [f.code for f in findings] == ["MSP107"]
    assert "at least 1,772,928 convolution weights" in findings[0].message  # 3 x 128 x 9 + 12 x 128 x 128 x 9


#: A detector sized by a row of a YAML table (one row per model size), chosen by a dict of size names; its blocks
#: take a width factor (``int(c_out * e)``), and the backbone is built inline as an argument of the cell that keeps it.
SIZED_BY_TABLE = {
    "src/config.py": CONFIG_FROM_YAML,
    "src/blocks.py": """
        import mindspore.nn as nn
        from src.config import config
        class ConvBlock(nn.Cell):
            def __init__(self, c_in, c_out, k=1, e=1.0):
                super().__init__()
                hidden = int(c_out * e)
                self.conv = nn.Conv2d(c_in, hidden, k)
                self.proj = nn.Conv2d(hidden, c_out, 1)
            def construct(self, x):
                return self.proj(self.conv(x))
        class Backbone(nn.Cell):
            def __init__(self, shape):
                super().__init__()
                self.stem = ConvBlock(shape[0], shape[1], k=3)
                self.mid = ConvBlock(shape[1], shape[2], 3, e=0.5)
                self.top = ConvBlock(shape[2], shape[3], k=3, e=0.5)
            def construct(self, x):
                return self.top(self.mid(self.stem(x)))
        class Neck(nn.Cell):
            def __init__(self, backbone, shape):
                super().__init__()
                self.backbone = backbone
                self.head = ConvBlock(shape[3], shape[3], k=3, e=0.5)
            def construct(self, x):
                return self.head(self.backbone(x))
        class Detector(nn.Cell):
            def __init__(self, version=0):
                super().__init__()
                self.config = config
                self.shape = self.config.widths[version]
                self.neck = Neck(backbone=Backbone(shape=self.shape), shape=self.shape)
            def construct(self, x):
                return self.neck(x)
    """,
    "train.py": """
        import mindspore.nn as nn
        from src.config import config
        from src.blocks import Detector
        def main():
            sizes = {"tiny": 0, "small": 1, "large": 2}
            net = Detector(version=sizes[config.model_size])
            opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
            step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
            for image, label in data:
                step(image, label)
        if __name__ == "__main__":
            main()
    """,
}
WIDTHS = ((3, 16, 32, 64), (3, 128, 256, 512), (3, 192, 384, 768))


def _detector_weights(row) -> int:
    def block(c_in, c_out, k=1, e=1.0):
        hidden = int(c_out * e)
        return c_in * hidden * k * k + hidden * c_out
    return (block(row[0], row[1], k=3) + block(row[1], row[2], 3, e=0.5) + block(row[2], row[3], k=3, e=0.5)
            + block(row[3], row[3], k=3, e=0.5))


@pytest.mark.parametrize("size, row", [("large", 2), ("small", 1)])
def test_a_network_sized_by_the_row_of_a_yaml_table_a_dict_of_size_names_chooses(tmp_path, size, row):
    # A detector whose widths are the row of a table indexed by a version a dict maps from the configured size name:
    # the chosen row counts (not the smallest), widths through int(c_out * e) with a default factor count, and the
    # backbone built as an argument of the neck that keeps it counts once.
    from ms_perflint.run.lint import check_folder
    from tests.conftest import write_project

    table = ", ".join(str(list(widths)) for widths in WIDTHS)
    files = {**SIZED_BY_TABLE, "default_config.yaml": f"model_size: {size}\nwidths: [{table}]\n"}
    results = check_folder(str(write_project(tmp_path, files)), Settings(select=("MSP107",)), rules=[Fp32ConvTraining])
    [finding] = [f for r in results.values() for f in r.findings]
    assert f"at least {_detector_weights(WIDTHS[row]):,} convolution weights" in finding.message


def test_a_small_size_chosen_from_a_table_of_larger_ones_is_silent(tmp_path):
    from ms_perflint.run.lint import check_folder
    from tests.conftest import write_project

    assert _detector_weights(WIDTHS[0]) < 1_000_000 < _detector_weights(WIDTHS[1])
    table = ", ".join(str(list(widths)) for widths in WIDTHS)
    files = {**SIZED_BY_TABLE, "default_config.yaml": f"model_size: tiny\nwidths: [{table}]\n"}
    results = check_folder(str(write_project(tmp_path, files)), Settings(select=("MSP107",)), rules=[Fp32ConvTraining])
    assert not any(r.findings for r in results.values())


#: A second network: a generator the program casts with AMP and trains with a loss-scaling step of its own.
GENERATOR = """
class Generator(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(256, 256, 3)
    def construct(self, x):
        return self.conv(x)
"""


def test_amp_and_loss_scaling_of_another_network_do_not_cover_the_trained_one():
    # A program that casts its generator (auto_mixed_precision(generator)) and trains it with a loss-scaling step,
    # and trains its CNN with a Model of no amp_level: the casts and the loss scale are the generator's.
    main = """
        generator = ms.amp.auto_mixed_precision(Generator(), "O2")
        step = nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(generator, loss), opt, scale_sense=scale)
        step(x, y)
        Model(Net(), loss, opt).train(10, data)
    """
    model_line = (CNN + GENERATOR).count("\n") + 1 + 3  # the fourth line of the __main__ block
    assert found(program(main, CNN + GENERATOR)) == {"MSP107": [(model_line, 5)]}
    # the same AMP call given the CNN covers it
    assert found(program(main.replace("auto_mixed_precision(Generator()", "auto_mixed_precision(Net()")
                         .replace("Model(Net()", "Model(generator"), CNN + GENERATOR)) == {}


def test_layers_built_as_arguments_of_a_project_cell_that_keeps_them_count_where_they_are_built():
    # SpectralNorm(nn.Conv2d(...)): the wrapper keeps the layer it is handed; its weights are the layer's.
    wrapped = CNN.replace("self.conv = nn.Conv2d(channels, channels, 3)",
                          "self.conv = SpectralNorm(nn.Conv2d(channels, channels, 3))").replace(
        "class Block(nn.Cell):", """class SpectralNorm(nn.Cell):
    def __init__(self, module):
        super().__init__()
        self.module = module
    def construct(self, x):
        return self.module(x)
class Block(nn.Cell):""")
    assert found(program("Model(Net(), loss, opt).train(10, data)", wrapped)) == {
        "MSP107": [(wrapped.count("\n") + 1, 5)]}


def test_sizes_unpacked_from_a_table_chosen_by_a_flag_are_counted():
    # ``self.depth, width = {"small": (2, 64), "large": (8, 256)}[args.size]`` with the argparse default "large": the
    # depth and width the default run builds (8 x 256 x 256 x 9 = 4.7 M), not unknown sizes that count nothing.
    code = """
        import argparse
        import mindspore.nn as nn
        from mindspore.train import Model
        parser = argparse.ArgumentParser()
        parser.add_argument("--size", default="{size}")
        args = parser.parse_args()
        class Net(nn.Cell):
            def __init__(self, args):
                super().__init__()
                self.depth, width = {{"small": (2, 64), "large": (8, 256)}}[args.size]
                self.blocks = nn.SequentialCell([nn.Conv2d(width, width, 3) for _ in range(self.depth)])
            def construct(self, x):
                return self.blocks(x)
        if __name__ == "__main__":
            Model(Net(args), loss, opt).train(10, data)
    """
    found_large = lint(code.format(size="large"))
    assert [(f.code, f.line) for f in found_large] == [("MSP107", 15)]
    assert "at least 4,718,592 convolution weights" in found_large[0].message
    assert lint(code.format(size="small")) == []  # 2 x 64 x 64 x 9 = 74 K: below the bound


# --- shapes traced from the held-out audit heldout-7 ---------------------------------------------------------


def test_a_network_another_package_transforms_under_its_own_name_is_still_trained():
    # ``net = algo.apply(net)`` (a compression toolkit's algorithm) hands the program back the network it was
    # given, its layers replaced: the training's network is still the CNN.
    code = program("""
        from compression_kit import GhostAlgo
        net = Net()
        algo = GhostAlgo({})
        net = algo.apply(net)
        Model(net, loss_fn=loss, optimizer=opt).train(10, data)
    """)
    assert found(code) == {"MSP107": [(MODEL_LINE + 4, 5)]}
    # bound to another name, the call's result is not taken for the network
    assert found(code.replace("net = algo.apply(net)", "student = algo.apply(net)")
                 .replace("Model(net,", "Model(student,")) == {}


def test_a_config_key_naming_a_float32_checkpoint_does_not_say_float32_is_needed():
    flags = """
import argparse
parser = argparse.ArgumentParser()
parser.add_argument("--{key}", default="")
args = parser.parse_args()
"""
    code = program("Model(Net(), loss_fn=loss, optimizer=opt).train(10, data)", network=CNN + flags.format(
        key="fp32_ckpt"))
    assert "MSP107" in found(code)
    assert found(code.replace("fp32_ckpt", "keep_fp32")) == {}  # a flag naming fp32 is the author's choice


def test_amp_set_only_in_the_gpu_arm_leaves_the_ascend_arms_train_step_in_float32():
    # ``if is_gpu: build_train_network(..., level="O2") else: StepCell(net, opt)``: the Ascend run trains the
    # project's own step cell, in float32.
    step_cell = """
from mindspore import ops
class StepCell(nn.Cell):
    def __init__(self, network, optimizer):
        super().__init__()
        self.network = network
        self.weights = optimizer.parameters
        self.optimizer = optimizer
        self.grad = ops.GradOperation(get_by_list=True)
    def construct(self, x, y):
        loss = self.network(x, y)
        return self.optimizer(self.grad(self.network, self.weights)(x, y))
"""
    code = program("""
        net = nn.WithLossCell(Net(), nn.MSELoss())
        opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
        is_gpu = ms.get_context("device_target") == "GPU"
        if is_gpu:
            step = ms.amp.build_train_network(net, optimizer=opt, level="O2")
        else:
            step = StepCell(net, opt)
        for x, y in data:
            step(x, y)
    """, network=CNN + step_cell)
    lines = found(code).get("MSP107")
    assert lines and len(lines) == 1 and lines[0][0] == code.lstrip("\n").splitlines().index(
        "        step = StepCell(net, opt)") + 1
    both = code.replace('level="O2")\n', 'level="O2")\n        ms.amp.auto_mixed_precision(net, "O2")\n', 1)
    assert found(both) == {"MSP107": [(lines[0][0] + 1, lines[0][1])]}  # still only the GPU arm casts


def test_a_cell_that_only_takes_gradients_of_its_network_is_not_a_train_step():
    # A physics loss differentiates the network with respect to its input (``GradWrtX(net)``): no optimizer, no
    # training of its own, next to the program's real training (here in mixed precision).
    grad_cell = """
from mindspore import ops
class GradWrtX(nn.Cell):
    def __init__(self, network):
        super().__init__()
        self.network = network
        self.grad = ops.GradOperation()
    def construct(self, x):
        return self.grad(self.network)(x)
class PhysicsLoss(nn.Cell):
    def __init__(self, network):
        super().__init__()
        self.network = network
        self.dx = GradWrtX(network)
    def construct(self, x, y):
        return ((self.network(x) - y) ** 2).mean() + self.dx(x).mean()
"""
    code = program("""
        net = Net()
        Model(PhysicsLoss(net), optimizer=opt, amp_level="O2").train(10, data)
    """, network=CNN + grad_cell)
    assert found(code) == {}
