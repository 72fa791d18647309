from mindspore.train import Model

from src.config import config, small_config
from src.resnet import resnet18, resnet50

net = resnet50(class_num=config["class_num"])
other = resnet18(class_num=small_config["class_num"])
model = Model(net, amp_level="O2")
