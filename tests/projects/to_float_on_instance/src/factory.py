from src.backbone import Backbone


def create_backbone():
    return Backbone()
