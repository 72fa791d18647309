"""An export script for GPU: its programs are not Ascend programs."""
import mindspore as ms
from mindspore import nn

if __name__ == "__main__":
    ms.set_context(device_target="GPU")
    head = nn.Dense(1024, 50257)
    ms.export(head, data, file_name="head")
