"""MSP102 unaligned-matmul-dim: a large MatMul output width that is not a multiple of 16, where padding pays."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional, Sequence, Set, Tuple

from ms_perflint import catalogue as ms
from ms_perflint.analysis.facts import CALL, CFG, LIT, OP, PARAM, SELF, Call, Value
from ms_perflint.findings import FixAvailability
from ms_perflint.project.model import Program, ScopeRef, Shape, Where, call_where, where
from ms_perflint.project.precision import program_precisions
from ms_perflint.project.training import Training
from ms_perflint.project.values import Known, Ref, Resolution
from ms_perflint.rules.base import Invalid, Option, Rule, RuleDocs, Valid
from ms_perflint.rules.check import Check

DEFAULT_ALIGNMENT = ms.CUBE_FRACTAL
#: 16-wide fractals for each of the 32 AI cores of an Ascend 910 (see the docs' "Why").
DEFAULT_MIN_DIM = ms.CUBE_FRACTAL * ms.AI_CORES
#: Words that say a width is a vocabulary (its head is padded by a padding multiple and sliced back).
VOCABULARY_WORDS = frozenset(("vocab", "vocabulary", "ntoken", "ntokens", "tokens"))


@dataclass(frozen=True)
class Width:
    """An output width of a MatMul-family layer or weight that a program runs, and one value it takes."""

    known: Known
    #: The layer, for messages (``nn.Dense out_channels``, ``weight self.w (last axis)``).
    layer: str
    at: Where
    #: The Cell class the layer is built in (or the scope, outside classes): layers that share it are neighbours.
    group: Tuple[str, object] = ("", 0)
    #: ``out`` (a layer's or weight's output axis) or ``vocab`` (the rows a one-hot embedding multiplies).
    role: str = "out"


class UnalignedMatmulDim(Rule):
    """Report large MatMul output widths that are not multiples of the alignment, in code a program runs."""

    code = "MSP102"
    name = "unaligned-matmul-dim"
    summary = "A large MatMul dimension (a vocabulary head, a hidden width) is not a multiple of 16"
    fix_availability = FixAvailability.NEVER
    options = (
        Option("alignment", DEFAULT_ALIGNMENT, "the multiple every large MatMul dim should be (16: the Cube's "
               "fractal for fp16/bf16)", minimum=1),
        Option("min-unaligned-dim", DEFAULT_MIN_DIM, "the smallest unaligned dim worth reporting (512 = 16-wide "
               "fractals for each of the 32 AI cores of an Ascend 910); smaller dims cost too little to pad",
               minimum=1),
    )
    docs = RuleDocs(
        what_it_does="""
            Finds the *output width* of a MatMul-family layer or weight, run by an Ascend program, that is
            large (at least `min-unaligned-dim`, default 512) and not a multiple of `alignment` (default 16):

            - the output dim of `nn.Dense(in_channels, out_channels)` and `nn.Linear`/`mint.nn.Linear(in_features,
              out_features)`;
            - the output axis of a weight built from a written shape -- `Parameter(initializer(init, [out, in]))`,
              `Parameter(Tensor(np.random.normal(size=[a, b])))`, `ops.zeros((a, b))`, ... -- that a MatMul,
              BatchMatMul, `ops.matmul`/`mint.matmul`/`bmm`/`mm`/`ops.dense`, `x @ w` or `x.matmul(w)` multiplies
              (the axis follows `transpose_a`/`transpose_b` and the operand's side); also a layer's own weight
              used that way (`self.embedding.embedding_table` as a tied LM head);
            - the vocabulary of `nn.Embedding(vocab_size, ..., use_one_hot=True)`, whose lookup is a MatMul of
              one-hot rows;
            - Tile and Div only with known large shapes: the last axis of a Tile's result (`ops.Tile`,
              `ops.tile`, `mint.tile` of a tensor built from a written shape, by written multiples), and of a
              weight built from a written shape that a Div (`ops.Div`, `ops.div`, `mint.div`) divides.

            Dims are followed wherever they are written: literals, module constants, parameters (through every
            caller, and defaults), config objects (`config.vocab_size` of a config class built with
            `vocab_size=...` or defaulting in its `__init__`), dict configs, argparse defaults, YAML configs, JSON
            configs (`bert_config.json`) and launch scripts of the program. The finding is reported where the
            value is written (the literal, the YAML line; a value set in a JSON config is reported at the
            layer, naming the JSON line), once however many layers share it, and names the layers.
        """,
        why_bad="""
            The Cube unit multiplies 16 x 16 fractals of fp16/bf16 values (a fractal's inner side is 32 bytes:
            16 halves), and operands are moved to it in that fractal (NZ) layout, so a dim that is not a
            multiple of 16 is padded on every move. CANN's MatMul best practices show the cost: when an
            operand's inner axis is not aligned and the data is large, the ND-to-NZ conversion runs at low
            bandwidth. The output is then split across the AI cores in blocks of whole fractals (32 Da Vinci
            cores on an Ascend 910, 20-24 Cube cores on Atlas A2), and an unaligned width leaves a ragged tail
            block that cannot be split evenly (the seed guide: unaligned shapes cannot use all cores).

            The threshold: a dim of at least 16 x 32 = 512 is spread over all 32 cores of an Ascend 910 in
            16-wide fractals, so its ragged tail holds up a MatMul that occupies the whole chip. A smaller dim
            cannot give every core a fractal along that axis whatever its alignment (it needs ceil(dim / 16)
            fractals padded or not), and padding it changes nothing measurable -- on real code these are
            class-count heads and small projections, which the old version of this rule reported by the
            thousand with none worth a change. Vocabulary heads are the case that pays: GPT-2's 50257,
            BERT-Chinese's 21128 or BERT-uncased's 30522 outputs make the LM head one of the largest MatMuls
            of the model, and its logits feed a softmax over the same ragged axis; this is why LLM code pads
            vocabularies to a multiple of 64 or 128.
        """,
        example="""
            from mindspore import nn

            class GPT2LMHead(nn.Cell):
                def __init__(self, hidden_size=768, vocab_size=50257):
                    super().__init__()
                    self.lm_head = nn.Dense(hidden_size, vocab_size, has_bias=False)
        """,
        use_instead="""
            from mindspore import nn

            class GPT2LMHead(nn.Cell):
                def __init__(self, hidden_size=768, vocab_size=50257, padded_vocab_size=50304):
                    super().__init__()
                    self.vocab_size = vocab_size
                    self.lm_head = nn.Dense(hidden_size, padded_vocab_size, has_bias=False)

                def construct(self, hidden):
                    return self.lm_head(hidden)[..., :self.vocab_size]  # the padding logits are never used
        """,
        fix_safety="""
            No automatic fix. Changing one layer's width changes the shape every consumer receives and the
            checkpoint it loads: a hidden layer rounded up on its own no longer matches the next layer (this
            broke models when an earlier version of this rule rewrote widths). The only meaning-preserving
            change for an output head is to pad it and slice its output back (or to set the model's vocabulary
            padding multiple, where it has one); for a hidden width, the producer and every consumer must be
            padded together. The message says which: "pad vocab_size to 50272 and slice the logits back to
            50257", or the layers that consume the width.
        """,
        programs="""
            Programs that run on Ascend (the device target is followed through `set_context`, `set_device`,
            configs and launch scripts; an unknown target counts as Ascend): training and inference scripts and
            notebooks, and the code they reach. When a training program's network is known (`Model(net)`, a
            train-step cell, the cell whose `trainable_params()` an optimizer takes), only layers that network is
            built from count -- not every model of a zoo the script can reach through a registry.
        """,
        silent_on="""
            - **classification heads**: a width that is a dataset's class count -- reached through a name such as
              `num_classes`, `class_num`, `n_classes`, `num_labels`, YOLO's `nc` (in the code, a parameter, a
              config key), or ImageNet's 1000/1001 (1001 in a ResNet-50 head is MSP104's business; 1000 inside
              a ResNet definition too) -- and every MatMul layer of a Cell that ends in such a head (the MLP
              head of a CNN, `nn.Dense(1080, num_classes)`): they run once per sample on pooled features, a
              negligible MatMul, and the class count is fixed by the dataset and the checkpoint;
            - widths below `min-unaligned-dim` (an 80-class detector, a 360-wide attention projection);
            - small networks (RULES.md): every training program that builds the layer trains a network whose
              MatMul weights are all known and under MSP101's bound of 1 M (a 0.3 M-parameter MLP with a
              700-wide hidden layer: padding buys nothing). A network whose layers the linter cannot all size is
              not known to be small, and stays reported (a blind audit's 0.9 M-parameter MLP built by a class a
              config chooses: four findings, none worth a change, open);
            - one of a family's widths: a width read from a table by a key not written in place -- `dims[i]`
              in a loop over an EdgeNeXt's stages (`dims=[80, 160, 288, 584]`), `input_shape[version]` for a
              model size. The table is the architecture: padding one item changes every stage built from it and
              every checkpoint of the family (six such widths appeared in the development set when tables became
              readable, none worth a change);
            - input dims (`in_channels`): the width comes from the layer before -- a reported output, a
              flattened conv feature (`nn.Dense(9000, 30)`), a backbone's channels -- and is reported, if at
              all, where it is produced, never twice;
            - a plain `nn.Embedding` (a Gather, not a MatMul) and an `nn.Embedding(use_one_hot=False)` whose
              vocabulary only feeds lookups (a BERT fine-tuned for classification);
            - dims the linter cannot know (`vocab_size=len(tokenizer)`, `kmeans.shape[0]`, a mesh matrix loaded
              from a file), and dims it cannot know *whole*: a config built with `Config(**yaml_dict)` may
              override every default, so its defaults are not reported (mindformers' model configs);
            - a MatMul behind a flag that is never on (`if self.use_one_hot_embeddings:` when every caller
              passes False), a weight whose transpose flag is not known;
            - code no Ascend program runs (a GPU export script, a module zoo with no script), zoo models the
              program's trained network is not built from, and values that only code no program runs passes
              (`head(50257)` in an unused helper).
        """,
        precision="""
            On the precision benchmark's development set (2026-11-23): no findings (170 when each file was judged
            alone; a hand-read sample of those over a wider corpus found none worth acting on). Known miss: a vocabulary head tied to an embedding table that reaches the
            MatMul through `construct` return values (MASS). See docs/precision.md.
        """,
        references=(
            "https://www.hiascend.com/document/detail/en/canncommercial/850/opdevg/Ascendcopdevg/"
            "atlas_ascendc_best_practices_10_10014.html",
            "https://www.hiascend.com/document/detail/en/canncommercial/850/opdevg/Ascendcopdevg/"
            "atlas_ascendc_10_10013.html",
            "https://www.mindspore.cn/docs/en/master/api_python/nn/mindspore.nn.Dense.html",
        ),
    )
    valid = (
        Valid(
            """
            from mindspore import nn
            from mindspore.train import Model
            class Net(nn.Cell):
                def __init__(self, hidden=768, vocab_size=50304):
                    super().__init__()
                    self.lm_head = nn.Dense(hidden, vocab_size)
                def construct(self, x):
                    return self.lm_head(x)
            if __name__ == "__main__":
                Model(Net(), loss, opt).train(1, data)
            """,
            why="an aligned (padded) vocabulary",
        ),
        Valid(
            """
            from mindspore import nn
            from mindspore.train import Model
            class Classifier(nn.Cell):
                def __init__(self, num_classes=21841):
                    super().__init__()
                    self.pre_logits = nn.Dense(2048, 1500)
                    self.head = nn.Dense(1500, num_classes)
                def construct(self, x):
                    return self.head(self.pre_logits(x))
            if __name__ == "__main__":
                Model(Classifier(), loss, opt).train(1, data)
            """,
            why="a classification head: the class count is the dataset's, and its Cell's MLP runs on pooled "
                "features",
        ),
        Valid(
            """
            import mindspore as ms
            from mindspore import nn
            from mindspore.train import Model
            if __name__ == "__main__":
                ms.set_context(device_target="GPU")
                net = nn.SequentialCell([nn.Dense(768, 50257)])
                Model(net, loss, opt).train(1, data)
            """,
            why="a GPU program",
        ),
        Valid(
            """
            from mindspore import nn
            from mindspore.train import Model
            if __name__ == "__main__":
                net = nn.SequentialCell([nn.Flatten(), nn.Dense(9000, 30), nn.ReLU(), nn.Dense(30, 7)])
                Model(net, loss, opt).train(1, data)
            """,
            why="an input dim (a flattened conv feature) and small widths",
        ),
        Valid(
            """
            from mindspore import nn
            class Head(nn.Cell):
                def __init__(self):
                    super().__init__()
                    self.lm_head = nn.Dense(768, 50257)
            """,
            why="no program runs it",
        ),
        Valid(
            """
            from mindspore import nn
            from mindspore.train import Model
            if __name__ == "__main__":
                net = nn.SequentialCell([nn.Embedding(21128, 768), nn.Dense(768, 2)])
                Model(net, loss, opt).train(1, data)
            """,
            why="an embedding lookup is a Gather, not a MatMul",
        ),
        Valid(
            """
            from mindspore import nn
            from mindspore.train import Model
            def linear(w_in, w_out):
                return nn.Dense(w_in, w_out)
            class RegNetHead(nn.Cell):
                def __init__(self, w_in=1512, num_classes=1000):
                    super().__init__()
                    self.fc = linear(w_in, num_classes)
            if __name__ == "__main__":
                Model(RegNetHead(), loss, opt).train(1, data)
            """,
            why="a class count passed through a generic helper (mindcv's regnet); 1512 is an input dim",
        ),
        Valid(
            """
            from mindspore import nn
            from mindspore.train import Model
            class GPTConfig:
                def __init__(self, vocab_size=50257, **kwargs):
                    self.vocab_size = vocab_size
            class GPT(nn.Cell):
                def __init__(self, config):
                    super().__init__()
                    self.lm_head = nn.Dense(768, config.vocab_size)
            if __name__ == "__main__":
                Model(GPT(GPTConfig(**load_yaml())), loss, opt).train(1, data)
            """,
            why="a config built from **kwargs: the default may not be the value that runs",
        ),
    )
    invalid = (
        Invalid(
            """
            from mindspore import nn
            from mindspore.train import Model
            class GPT2(nn.Cell):
                def __init__(self, hidden=768, vocab_size=50257):
                    super().__init__()
                    self.lm_head = nn.Dense(hidden, vocab_size, has_bias=False)
                def construct(self, x):
                    return self.lm_head(x)
            if __name__ == "__main__":
                Model(GPT2(), loss, opt).train(1, data)
            """,
            line=4,
            column=47,
            message_contains="pad vocab_size to 50272 and slice the logits back to 50257",
        ),
        Invalid(
            """
            from mindspore import nn
            from mindspore.train import Model
            if __name__ == "__main__":
                net = nn.SequentialCell([nn.Dense(512, 1500), nn.ReLU(), nn.Dense(1500, 512)])
                Model(net, loss, opt).train(1, data)
            """,
            line=4,
            column=44,
            message_contains="also the input width of nn.Dense at example.py:4",
        ),
        Invalid(
            """
            import numpy as np
            import mindspore as ms
            from mindspore import nn, ops
            class TiedHead(nn.Cell):
                def __init__(self, vocab=21128, hidden=768):
                    super().__init__()
                    self.table = ms.Parameter(ms.Tensor(np.random.normal(0, 0.02, size=[vocab, hidden]), ms.float32))
                    self.matmul = ops.MatMul(transpose_b=True)
                def construct(self, x):
                    return self.matmul(x, self.table)
            if __name__ == "__main__":
                ms.nn.TrainOneStepCell(TiedHead(), opt)
            """,
            line=5,
            column=30,
            message_contains="21128",
        ),
        Invalid(
            """
            import argparse
            from mindspore import nn
            from mindspore.train import Model
            class BertConfig:
                def __init__(self, vocab_size=30522, hidden_size=768):
                    self.vocab_size = vocab_size
                    self.hidden_size = hidden_size
            class BertLMHead(nn.Cell):
                def __init__(self, config):
                    super().__init__()
                    self.decoder = nn.Dense(config.hidden_size, config.vocab_size)
            if __name__ == "__main__":
                parser = argparse.ArgumentParser()
                parser.add_argument("--vocab_size", type=int, default=21128)
                args = parser.parse_args()
                Model(BertLMHead(BertConfig(vocab_size=args.vocab_size)), loss, opt).train(1, data)
            """,
            line=14,
            column=59,
            message_contains="vocab_size 21128 (the output width of nn.Dense out_channels at example.py:11)",
        ),
        Invalid(
            """
            from mindspore import nn
            from mindspore.train import Model
            if __name__ == "__main__":
                net = nn.SequentialCell([nn.Embedding(50257, 768, use_one_hot=True), nn.Dense(768, 768)])
                Model(net, loss, opt).train(1, data)
            """,
            line=4,
            column=43,
            message_contains="pad the vocabulary to 50272",
        ),
    )

    def check(self, check: Check) -> None:
        finder = _Finder(check)
        widths = [w for w in finder.widths() if self._worth(check, w)]
        grouped: Dict[Tuple[str, int, int], List[Width]] = {}
        for width in widths:
            place = _place(check, width)
            grouped.setdefault((place.path, place.start, place.line), []).append(width)
        for (path, _, _), group in sorted(grouped.items()):
            first = group[0]
            check.report(self.code, path, _place(check, first), _message(check, first, group, finder.consumers(first)))

    def _worth(self, check: Check, width: Width) -> bool:
        value = width.known.value
        if not isinstance(value, int) or isinstance(value, bool):
            return False
        alignment = _positive(check.option("alignment", width.at.path), DEFAULT_ALIGNMENT)
        minimum = _positive(check.option("min-unaligned-dim", width.at.path), DEFAULT_MIN_DIM)
        return value >= minimum and value % alignment != 0


# --- finding the widths ---------------------------------------------------------------------------


class _Finder:
    """The MatMul widths that Ascend programs run, from layers, weights and one-hot embeddings."""

    def __init__(self, check: Check) -> None:
        self.check = check
        self.project = check.project
        self.values = check.values
        self.training = Training.shared(self.project)
        self.programs = [p for p in self.project.programs() if check.ascend(p).ascend]
        self._network_scopes: Dict[str, Optional[Set[ScopeRef]]] = {}
        #: Input dims of every running layer, by where they are written and by (group, value): layer descriptions.
        self._inputs: Dict[object, List[Tuple[str, Where]]] = {}
        self._classifiers: Set[Tuple[str, str]] = set()
        self._runs: Optional[Set[ScopeRef]] = None
        self._small_programs: Dict[str, bool] = {}

    def widths(self) -> List[Width]:
        candidates: List[Tuple[Optional[Tuple[str, str]], Width]] = []
        for path, facts in sorted(self.project.python.items()):
            for call in facts.calls:
                if not self.runs(path, call.scope):
                    continue
                owner = self.project.owner_class(path, call.scope)
                group = owner if owner is not None else (path, call.scope)
                widths = list(self._call_widths(path, call, group))
                if not widths or not self.values.can_hold(path, call.scope, call.guards) \
                        or self._small_networks_only(path, call.scope):
                    continue  # nothing to report, a flag that is never on, or only small networks build it
                for width in widths:
                    if not all(self.runs(*hop) for hop in width.known.hops):
                        continue  # passed by a caller no program runs (another model of the zoo)
                    if width.known.from_table:
                        continue  # one of a family's widths (per stage, per model size): padding it changes them all
                    if _counts_classes(width.known):
                        if owner is not None:
                            self._classifiers.add(owner)
                        continue
                    candidates.append((owner, width))
        # A classifier's MLP runs on pooled features; a vocabulary head next to a class-count head does not.
        return [w for owner, w in candidates if owner not in self._classifiers or _is_vocabulary(w.known)]

    def consumers(self, width: Width) -> List[str]:
        """Layers whose input dim is written at the same place as the width (they consume it)."""
        where = width.known.where
        found = self._inputs.get((width.group, width.known.value), [])
        if where is not None:
            found = found + self._inputs.get((where.path, where.start), [])
        return [f"{label} at {at}" for label, at in found if at != width.at]

    def _note_input(self, group: Tuple[str, object], known: Known, label: str, at: Where) -> None:
        """Remember that a layer takes an input of this width (to find who consumes an output)."""
        self._inputs.setdefault((group, known.value), []).append((label, at))
        if known.where is not None:
            self._inputs.setdefault((known.where.path, known.where.start), []).append((label, at))

    # --- programs --------------------------------------------------------------------------------

    def _small_networks_only(self, path: str, scope: int) -> bool:
        """Every Ascend training program that runs the scope trains networks whose MatMul work is below MSP101's
        bound (RULES.md: a 2 M-parameter MLP gains nothing from padding); the evaluation and export scripts of the
        same network run the same small MatMuls."""
        training = self.project.training_programs()
        running = [p for p in self.programs if (path, scope) in p.scopes and p in training]
        return bool(running) and all(self._small(p) for p in running)

    def _small(self, program: Program) -> bool:
        if program.entry not in self._small_programs:
            precisions = program_precisions(self.check, self.training, program)
            self._small_programs[program.entry] = bool(precisions) and all(
                p.small_matmul_work() for p in precisions)
        return self._small_programs[program.entry]

    def runs(self, path: str, scope: int) -> bool:
        """Some Ascend program runs the scope (as part of the network it trains, when that is known)."""
        if self._runs is None:
            self._runs = self._running_scopes()
        return (path, scope) in self._runs

    def _running_scopes(self) -> Set[ScopeRef]:
        """The scopes :meth:`runs` holds for, found once: each program's, or of those the part that builds the
        network it trains and its entry file's own."""
        found: Set[ScopeRef] = set()
        for program in self.programs:
            network = self.network_scopes(program)
            if network is None:
                found.update(program.scopes)
            else:
                found.update(network & program.scopes)
                found.update(scope for scope in program.scopes if scope[0] == program.entry)
        return found

    def network_scopes(self, program: Program) -> Optional[Set[ScopeRef]]:
        """The scopes that build the networks a training program trains (None: not known, or no training)."""
        if program.entry not in self._network_scopes:
            classes: Set[Tuple[str, str]] = set()
            uses = self.training.networks(program) if program in self.project.training_programs() else []
            for use in uses:
                classes.update(self.training.network_classes(use.path, use.network, use.anchor.scope))
            scopes = None
            if classes:
                composed = self.training.composition(frozenset(classes))
                scopes = self.training.building_scopes(composed)
                bodies = [(c[0], self.project.class_facts(c)) for c in composed]
                scopes.update((file, body.scope) for file, body in bodies if body is not None)
            self._network_scopes[program.entry] = scopes
        return self._network_scopes[program.entry]

    # --- calls ---------------------------------------------------------------------------------------

    def _call_widths(self, path: str, call: Call, group: Tuple[str, object]) -> Iterator[Width]:
        qualified = self.project.qualified(path, call)
        op = ms.MATMUL_OPS.get(qualified)
        if op is not None and op.kind == "layer" and op.out_dim is not None:
            yield from self._layer(path, call, qualified, op, group)
        elif qualified == ms.EMBEDDING:
            yield from self._one_hot_embedding(path, call, group)
        else:
            found = self._matmul(path, call, qualified)
            if found is not None:
                yield from self._weights(path, call, *found, group)
            else:
                yield from self._vector(path, call, qualified, group)

    def _layer(self, path: str, call: Call, qualified: str, op: ms.MatmulOp,
               group: Tuple[str, object]) -> Iterator[Width]:
        label = _short(qualified)
        at = call_where(path, call)
        inward = call.argument(op.in_dim.keyword, op.in_dim.position) if op.in_dim is not None else None
        for known in self.values.resolve(path, inward, call.scope).values if inward is not None else ():
            self._note_input(group, known, label, at)
        out = call.argument(op.out_dim.keyword, op.out_dim.position)
        if out is None:
            return
        for known in _complete(self.values.resolve(path, out, call.scope)):
            yield Width(_named(known, out), f"{label} {op.out_dim.keyword}", at, group)

    def _one_hot_embedding(self, path: str, call: Call, group: Tuple[str, object]) -> Iterator[Width]:
        flag = call.argument(ms.EMBEDDING_ONE_HOT.keyword, ms.EMBEDDING_ONE_HOT.position)
        if flag is None:
            return
        found = self.values.resolve(path, flag, call.scope)
        if not found.values or not all(k.value is True for k in found.values):
            return
        vocab = call.argument(ms.EMBEDDING_VOCAB.keyword, ms.EMBEDDING_VOCAB.position)
        at = call_where(path, call)
        for known in _complete(self.values.resolve(path, vocab, call.scope)) if vocab is not None else ():
            yield Width(_named(known, vocab), "nn.Embedding(use_one_hot=True) vocab_size", at, group, "vocab")

    # --- MatMuls of weights --------------------------------------------------------------------------

    def _matmul(self, path: str, call: Call, qualified: str) -> Optional[Tuple[List[Value], Tuple[Flag, Flag]]]:
        """The operands of a MatMul-family call and how each is transposed."""
        if call.callee == ms.MATMUL_OPERATOR:
            return call.args[:2], (FIXED_FALSE, FIXED_FALSE)
        if call.method == ms.TENSOR_MATMUL_METHOD and call.receiver is not None and call.args:
            return [call.receiver, call.args[0]], (FIXED_FALSE, FIXED_FALSE)
        op = ms.MATMUL_OPS.get(qualified)
        if op is not None and op.kind == "function":
            return call.args[:2], (FIXED_FALSE, Flag(True) if op.second_transposed else FIXED_FALSE)
        construction = self._primitive(path, call)
        if construction is None:
            return None
        file, built, op = construction
        first, second = (self._flag(file, built, p) for p in op.transpose)
        return call.args[:2], (first, second)

    def _primitive(self, path: str, call: Call) -> Optional[Tuple[str, Call, ms.MatmulOp]]:
        """The construction of the MatMul primitive (or ``nn.MatMul`` cell) a call runs, if it is one."""
        built = self.construction(path, call)
        if built is None:
            return None
        file, construction, qualified = built
        op = ms.MATMUL_OPS.get(qualified)
        if op is None or op.kind not in ("primitive", "layer") or op.out_dim is not None:
            return None
        return file, construction, op

    def construction(self, path: str, call: Call) -> Optional[Tuple[str, Call, str]]:
        """Where the object a call calls was built: ``self.matmul(...)`` -> ``ops.MatMul(...)`` in ``__init__``.

        Also ``ops.MatMul()(a, b)``. The file, the constructing call and its catalogue name.
        """
        built: Optional[Value] = None
        file = path
        if call.method == "__call__" and call.receiver is not None:
            built = call.receiver
        elif call.callee.startswith("self.") and "." not in call.callee[5:]:
            owner = self.project.owner_class(path, call.scope)
            found = self.values.attribute_value(owner, call.callee[5:]) if owner is not None else None
            if found is not None:
                file, built, _ = found
        if built is None or built.kind != CALL:
            return None
        construction = self.project.python[file].call(built.data)
        if construction is None:
            return None
        return file, construction, self.project.qualified(file, construction)

    def _flag(self, path: str, call: Call, parameter: Optional[ms.Param]) -> "Flag":
        """A transpose flag of a primitive's construction: its value when known, and the expression."""
        if parameter is None:
            return FIXED_FALSE
        argument = call.argument(parameter.keyword, parameter.position)
        if argument is None:
            return Flag(None) if call.may_pass(parameter.keyword, parameter.position) else FIXED_FALSE
        found = self.values.resolve(path, argument, call.scope)
        truths = {bool(k.value) for k in found.values if not isinstance(k.value, Ref)}
        value = truths.pop() if found.complete and found.values and len(truths) == 1 else None
        return Flag(value, argument, path, call.scope)

    def _weights(self, path: str, call: Call, operands: Sequence[Value], flags: Tuple["Flag", "Flag"],
                 group: Tuple[str, object]) -> Iterator[Width]:
        at = call_where(path, call)
        for side, operand in enumerate(operands):
            shape = self.weight_shape(path, operand, call.scope)
            axes = self._axes(shape, side, flags[side]) if shape is not None else None
            if axes is None:
                continue
            out, inner = axes
            label = f"{_operand_name(operand)} of a MatMul"
            for known in self.values.resolve(shape.path, inner, shape.scope).values:
                self._note_input(group, known, label, at)
            for known in _complete(self.values.resolve(shape.path, out, shape.scope)):
                yield Width(known, label, at, group)

    def _axes(self, shape: "Shape", side: int, flag: "Flag") -> Optional[Tuple[Value, Value]]:
        """The weight's output dim (M of the left operand, N of the right one) and its reduced dim (K).

        Known when every value the transpose flag may take gives the same dims: a shape written
        ``[out, in] if transpose_b else [in, out]`` next to ``MatMul(transpose_b=transpose_b)``
        has ``out`` as its output dim whatever the flag.
        """
        found: Set[Tuple[object, object]] = set()
        chosen: Optional[Tuple[Value, Value]] = None
        for transposed in ([flag.value] if flag.value is not None else [True, False]):
            dims = self._dims(shape, flag, transposed)
            if dims is None or len(dims) < 2:
                return None
            out_axis = (-1 if transposed else -2) if side == 0 else (-2 if transposed else -1)
            inner_axis = -1 if out_axis == -2 else -2
            chosen = (dims[out_axis], dims[inner_axis])
            found.add((_same_key(chosen[0]), _same_key(chosen[1])))
        return chosen if len(found) == 1 else None

    def _dims(self, shape: "Shape", flag: "Flag", transposed: bool) -> Optional[Tuple[Value, ...]]:
        """The dims of a shape, choosing the branch of ``a if test else b`` by the test (or by the flag it is)."""
        value = shape.value
        if value.kind == OP and value.data == "ifexp" and len(value.parts) == 3:
            test = value.parts[0]
            if flag.value is None and _same_variable(test, flag.expression) and (shape.path, shape.scope) == (
                    flag.path, flag.scope):
                value = value.parts[1] if transposed else value.parts[2]
            else:
                value = self._branch(shape.path, value, shape.scope)
        if value is None:
            return None
        if value.kind == OP and value.data == "tuple":
            return value.parts
        if value.kind == LIT and isinstance(value.data, tuple):
            return tuple(Value(LIT, d, line=value.line, column=value.column, start=value.start, end=value.end)
                         for d in value.data)
        return None

    def weight_shape(self, path: str, operand: Value, scope: int) -> Optional["Shape"]:
        """The written shape of a weight an op takes: ``self.w``, ``self.layer.weight``, a tensor built in place."""
        operand = self._uncast(path, operand)
        if operand.kind == SELF:
            owner = self.project.owner_class(path, scope)
            found = self.values.attribute_value(owner, operand.data) if owner is not None else None
            return self.tensor_shape(found[0], found[1]) if found is not None else None
        if operand.kind == CFG and operand.root.startswith("self.") and operand.root.count(".") == 1:
            return self._layer_weight(path, operand, scope)
        return self.tensor_shape(path, operand)

    def _uncast(self, path: str, value: Value) -> Value:
        """``self.cast(self.weight, self.dtype)``, ``ops.cast(w, t)``, ``w.astype(t)``: the value cast."""
        for _ in range(4):
            if value.kind != CALL:
                return value
            call = self.project.python[path].call(value.data)
            if call is None:
                return value
            if call.method in (*ms.TENSOR_CAST_METHODS, *ms.TENSOR_DTYPE_METHODS) and call.receiver is not None:
                value = call.receiver
            elif call.args and (self.project.qualified(path, call) in ms.CAST_FUNCTIONS or self._is_cast(path, call)):
                value = call.args[0]
            else:
                return value
        return value

    def _is_cast(self, path: str, call: Call) -> bool:
        """A call of a ``Cast()`` primitive: ``self.cast(x, t)`` or ``P.Cast()(x, t)``."""
        built = self.construction(path, call)
        return built is not None and built[2] == ms.CAST_PRIMITIVE

    # --- Tile and Div ----------------------------------------------------------------------------------

    def _vector(self, path: str, call: Call, qualified: str, group: Tuple[str, object]) -> Iterator[Width]:
        """The last axis of a Tile's result (input shape and multiples known) or of a weight a Div divides."""
        if qualified not in ms.TILE_OPS and qualified not in ms.DIV_OPS:
            built = self.construction(path, call)
            qualified = built[2] if built is not None else ""
        at = call_where(path, call)
        if qualified in ms.TILE_OPS:
            yield from self._tile(path, call, ms.TILE_OPS[qualified], at, group)
        elif qualified in ms.DIV_OPS:
            for operand in call.args[:2]:
                shape = self.weight_shape(path, operand, call.scope)
                dims = self._dims(shape, FIXED_FALSE, False) if shape is not None else None
                if dims:
                    label = f"{_operand_name(operand)} of a Div"
                    for known in _complete(self.values.resolve(shape.path, dims[-1], shape.scope)):
                        yield Width(known, label, at, group, "vector")

    def _tile(self, path: str, call: Call, parameters: Tuple[ms.Param, ms.Param], at: Where,
              group: Tuple[str, object]) -> Iterator[Width]:
        source = call.argument(parameters[0].keyword, parameters[0].position)
        multiples = call.argument(parameters[1].keyword, parameters[1].position)
        shape = self.weight_shape(path, source, call.scope) if source is not None and not call.star else None
        dims = self._dims(shape, FIXED_FALSE, False) if shape is not None else None
        factors = self._dims(Shape(path, call.scope, multiples), FIXED_FALSE, False) if multiples is not None else None
        if not dims or not factors:
            return
        last = self._single(shape.path, dims[-1], shape.scope)  # shapes align on their last axes
        factor = self._single(path, factors[-1], call.scope)
        if last is None or factor is None or multiples is None:
            return
        known = Known(last * factor, where(path, multiples), "Tile result", trail=(multiples.text,))
        yield Width(known, "the last axis of a Tile result", at, group, "vector")

    def _single(self, path: str, value: Value, scope: int) -> Optional[int]:
        found = self.values.resolve(path, value, scope).only()
        number = found.value if found is not None else None
        return number if isinstance(number, int) and not isinstance(number, bool) else None

    def _layer_weight(self, path: str, operand: Value, scope: int) -> Optional["Shape"]:
        """``self.embedding.embedding_table``: a MindSpore layer's weight, or a project cell's attribute."""
        owner = self.project.owner_class(path, scope)
        holder = self.values.attribute_value(owner, operand.root[5:]) if owner is not None else None
        if holder is None:
            return None
        file, value, init = holder
        if value.kind == CALL:
            construction = self.project.python[file].call(value.data)
            if construction is not None:
                dims = ms.LAYER_WEIGHTS.get((self.project.qualified(file, construction), operand.data))
                if dims is not None:
                    arguments = [construction.argument(p.keyword, p.position) for p in dims]
                    if all(a is not None for a in arguments):
                        return Shape(file, construction.scope, Value(OP, "tuple", tuple(arguments)))  # type: ignore
        for cls in sorted(self.values.instances(file, value, init)):
            found = self.values.attribute_value(cls, operand.data)
            if found is not None:
                return self.tensor_shape(found[0], found[1])
        return None

    def tensor_shape(self, path: str, value: Value) -> Optional[Shape]:
        """The shape a tensor is built with (:meth:`~ms_perflint.project.model.Project.tensor_shape`), through casts."""
        return self.project.tensor_shape(path, value, self._uncast)

    def _branch(self, path: str, choice: Value, scope: int) -> Optional[Value]:
        """The branch of ``a if test else b`` that the test's known value picks (None when it is not known)."""
        found = self.values.resolve(path, choice.parts[0], scope)
        truths = {bool(k.value) for k in found.values if not isinstance(k.value, Ref)}
        if not found.complete or not found.values or len(truths) != 1:
            return None
        return choice.parts[1] if truths.pop() else choice.parts[2]


@dataclass(frozen=True)
class Flag:
    """A transpose flag: its value when known, and the expression it is written as (to match a shape's test)."""

    value: Optional[bool]
    expression: Optional[Value] = None
    path: str = ""
    scope: int = -1


FIXED_FALSE = Flag(False)


def _same_key(value: Value) -> Tuple[str, str, str, str]:
    """What makes two reads in one scope the same value: ``out_channels`` in either branch of a shape."""
    return value.kind, repr(value.data), value.via, value.text


def _same_variable(left: Value, right: Optional[Value]) -> bool:
    """Two reads of the same local name or parameter (``transpose_b`` in a shape's test and a primitive's flag)."""
    if right is None:
        return False
    if left.kind == right.kind == PARAM:
        return left.data == right.data
    return bool(left.via) and left.via == right.via and left.kind == right.kind and left.data == right.data


# --- what a width means ------------------------------------------------------------------------------

def _named(known: Known, argument: Value) -> Known:
    """The known value, with the text of the argument it was passed as (``config.num_labels``) on its trail."""
    from dataclasses import replace

    text = argument.text if argument.kind != LIT else ""
    return replace(known, trail=(*known.trail, text)) if text else known


def _complete(found: Resolution) -> List[Known]:
    """The values of a dim whose every value is known (a default that a ``**kwargs`` caller may override is not)."""
    return found.values if found.complete else []


def _words(name: str) -> Set[str]:
    """``numClasses`` / ``num_classes`` / ``self.charset.num_classes`` -> their lower-case words."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return {w for w in re.split(r"[^a-z0-9]+", spaced.lower()) if w}


def _counts_classes(known: Known) -> bool:
    """A dataset's class count: named so on its way, or ImageNet's 1000/1001."""
    if known.value in (ms.IMAGENET_CLASSES, ms.IMAGENET_WITH_BACKGROUND):
        return True
    return any(_words(name) & ms.CLASS_COUNT_WORDS for name in (*known.trail, known.via))


def _is_vocabulary(known: Known) -> bool:
    return any(_words(name) & VOCABULARY_WORDS for name in (*known.trail, known.via))


def _name_of(known: Known) -> str:
    """The name the value is best known by (its config key or parameter), "" if written in place."""
    for name in (*known.trail, known.via):
        if name and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            return name
    return ""


def _operand_name(operand: Value) -> str:
    if operand.kind == SELF:
        return f"weight self.{operand.data}"
    return f"weight {operand.text}" if operand.text else "weight"


def _short(qualified: str) -> str:
    parts = qualified.split(".")
    return ".".join(parts[-2:]) if len(parts) >= 2 else qualified


def _positive(value: object, default: int) -> int:
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else default


def _place(check: Check, width: Width) -> Where:
    """Where the value is written -- or the layer, when it is written in a JSON config (not a file we report in)."""
    where = width.known.where
    return where if where is not None and where.path not in check.project.json else width.at


def _message(check: Check, width: Width, group: List[Width], consumers: List[str]) -> str:
    known = width.known
    value = known.value
    alignment = _positive(check.option("alignment", width.at.path), DEFAULT_ALIGNMENT)
    padded = (value + alignment - 1) // alignment * alignment
    name = _name_of(known)
    called = f"{name} {value}" if name else str(value)
    if known.where is not None and _place(check, width) is not known.where:
        called += f" (set in {known.where})"
    layers = sorted({f"{w.layer} at {w.at}" for w in group})
    more = f" and {len(layers) - 2} more" if len(layers) > 2 else ""
    what = "the vocabulary of" if width.role == "vocab" else "the output width of"
    head = (f"{called} ({what} {', '.join(layers[:2])}{more}) is not a multiple of {alignment}: the Cube pads it "
            f"to 16-wide fractals and cannot split it evenly across the AI cores")
    if width.role == "vocab":
        return f"{head}; pad the vocabulary to {padded} (ids never reach the padding rows)"
    if width.role == "vector":
        return (f"{called} ({', '.join(layers[:2])}{more}) is not a multiple of {alignment}: the op moves "
                f"32-byte blocks and cannot split the ragged last axis evenly across the AI cores; shape the "
                f"tensor to {padded} (with everything that reads it) or leave it")
    if consumers:
        listed = ", ".join(sorted(set(consumers))[:3])
        return (f"{head}; it is also the input width of {listed}: pad it to {padded} in the producer and every "
                f"consumer together, never in one layer alone (a trained checkpoint needs its weights padded too)")
    if _is_vocabulary(known):
        return f"{head}; pad {name or 'the vocabulary'} to {padded} and slice the logits back to {value}"
    return f"{head}; pad the layer to {padded} outputs and slice its output back to {value}"
