"""Profiles: operator tables from MindSpore's Profiler and msprof, and their operators' source lines.

``formats`` reads the tables; ``mapping`` maps an operator's scope name to the Cell attributes of the
project model that built it. ``run/profiling.py`` lays a profile over a run's findings.
"""
