"""ms-perflint: a performance linter for MindSpore model code on Ascend."""

__version__ = "0.1.0"
