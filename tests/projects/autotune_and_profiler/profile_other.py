"""Profiles, but never builds the AutoTuned pipeline: a different program."""
import mindspore as ms

profiler = ms.Profiler(output_path="./profile", data_process=True)
