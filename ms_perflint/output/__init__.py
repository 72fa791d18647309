"""Output formats. Each module renders a list of :class:`~ms_perflint.engine.FileResult`."""
