"""Weight initialisation, optionally from a pretrained checkpoint."""
import mindspore as ms


def init_weight(net, cfg):
    if cfg.pre_trained:
        param_dict = ms.load_checkpoint(cfg.pre_trained)
        ms.load_param_into_net(net, param_dict)
