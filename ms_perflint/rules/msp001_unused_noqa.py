"""MSP001 unused-noqa: a ``# noqa: MSPnnn`` comment that suppresses nothing (opt-in)."""

from __future__ import annotations

from ms_perflint.findings import FixAvailability
from ms_perflint.rules.base import Invalid, Rule, RuleDocs, Valid
from ms_perflint.rules.check import Check


class UnusedNoqa(Rule):
    """Report ``# noqa`` codes of this tool that no finding needed.

    The findings are made where the other rules' findings are placed (:func:`ms_perflint.run.lint.finish`),
    once it is known which comments suppressed something; the rule itself decides nothing in the project.
    """

    code = "MSP001"
    name = "unused-noqa"
    summary = "A noqa comment names an ms-perflint code that suppresses nothing"
    fix_availability = FixAvailability.ALWAYS
    opt_in = True
    docs = RuleDocs(
        what_it_does="""
            Finds `# noqa: MSPnnn` comments (and the `MSP` codes among other tools' codes in one comment) that
            suppress no finding on their line: the code was fixed, or the rule no longer reports there.
        """,
        why_bad="""
            A stale suppression hides the next real finding on that line. Removing it keeps `# noqa` meaningful,
            as ruff's RUF100 does for its codes.
        """,
        example="""
            from mindspore.train import CheckpointConfig

            config = CheckpointConfig(save_checkpoint_steps=100, async_save=True)  # noqa: MSP103
        """,
        use_instead="""
            from mindspore.train import CheckpointConfig

            config = CheckpointConfig(save_checkpoint_steps=100, async_save=True)
        """,
        fix_safety="""
            Safe: the fix removes the unused codes from the comment, or the whole comment when no code is left
            (other tools' codes, such as `E501`, stay).
        """,
        programs="""
            Every file checked. Off unless selected (`--extend-select MSP001`); only codes the run checks can be
            unused, so a comment for a rule that is not selected is left alone. Blanket `# noqa` comments are not
            reported. flake8 applies `# noqa` itself, so this code is the CLI's (and pre-commit's).
        """,
        silent_on="""
            - a `# noqa` without codes;
            - codes of other tools;
            - codes of rules the run does not check.
        """,
    )
    valid = (
        Valid(
            """
            from mindspore.train import CheckpointConfig, Model, ModelCheckpoint

            if __name__ == "__main__":
                config = CheckpointConfig(save_checkpoint_steps=10)  # noqa: MSP103
                Model(net, loss, opt).train(5, data, callbacks=[ModelCheckpoint(config=config)])
            """,
            why="the comment suppresses the MSP103 finding on its line",
        ),
    )
    invalid = (
        Invalid(
            """
            from mindspore.train import CheckpointConfig, Model, ModelCheckpoint

            if __name__ == "__main__":
                config = CheckpointConfig(save_checkpoint_steps=10, async_save=True)  # noqa: MSP103
                Model(net, loss, opt).train(5, data, callbacks=[ModelCheckpoint(config=config)])
            """,
            line=4,
            column=75,
            fixed="""
            from mindspore.train import CheckpointConfig, Model, ModelCheckpoint

            if __name__ == "__main__":
                config = CheckpointConfig(save_checkpoint_steps=10, async_save=True)
                Model(net, loss, opt).train(5, data, callbacks=[ModelCheckpoint(config=config)])
            """,
            message_contains="MSP103",
        ),
    )

    def check(self, check: Check) -> None:
        """Nothing to decide in the project: see the class docstring."""
