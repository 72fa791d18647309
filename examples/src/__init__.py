"""ResNet-50 example project for ms-perflint: the network and the input pipeline."""
