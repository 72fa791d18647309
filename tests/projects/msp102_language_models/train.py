import argparse

import yaml
import mindspore as ms
from mindspore import nn
from mindspore.train import Model

from src.bert import BertConfig, BertForMaskedLM
from src.gpt import GPT, SentenceClassifier
from src import zoo


def parse():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/gpt2_small.yaml")
    parser.add_argument("--device_target", default="Ascend")
    return parser.parse_args()


if __name__ == "__main__":
    args = parse()
    ms.set_context(device_target=args.device_target)
    with open(args.config) as stream:
        config = yaml.safe_load(stream)
    net = nn.WithLossCell(GPT(config), nn.SoftmaxCrossEntropyWithLogits(sparse=True))
    classifier = SentenceClassifier(config)
    bert = BertForMaskedLM(BertConfig())
    step = nn.TrainOneStepCell(net, nn.Adam(net.trainable_params()))
    for ids, labels in data:
        step(ids, labels)
    Model(classifier, nn.SoftmaxCrossEntropyWithLogits(), nn.Adam(classifier.trainable_params())).train(1, data)
    Model(bert, loss, opt).train(1, data)
