"""Fixes: applying text edits, writing files back safely, and ``--add-noqa`` comments.

Every fix is a list of :class:`~ms_perflint.findings.TextEdit` on a file's decoded
text, whatever the kind of file; this package applies them (:mod:`.edits`) and
writes the result with the one atomic writer (:mod:`.writer`).
"""
