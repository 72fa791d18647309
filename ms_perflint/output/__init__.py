"""Output formats: each module renders a list of :class:`~ms_perflint.findings.FileResult`.

:mod:`ms_perflint.output.report` is the entry point (the format registry, colour,
statistics, rule URLs, notices); the formats are imported only when chosen.
"""
