"""The project: the files a check of one file depends on, linked into programs.

- :mod:`~ms_perflint.project.roots` finds where a project starts;
- :mod:`~ms_perflint.project.index` keeps the facts of every file of it, on disk;
- :mod:`~ms_perflint.project.model` links them: names, calls, programs, training;
- :mod:`~ms_perflint.project.values` follows values through parameters and configs,
  and decides which programs run on Ascend.

Per-file mode is a project of one file. See ``docs/project.md``.
"""
