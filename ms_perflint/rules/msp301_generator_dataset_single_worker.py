"""MSP301 generator-dataset-single-worker: a GeneratorDataset reads and decodes every sample on one worker."""

from __future__ import annotations

from typing import FrozenSet, List, Optional, Set, Tuple

from ms_perflint import catalogue as ms
from ms_perflint.analysis.facts import LIT, Call, Value
from ms_perflint.findings import Fix, FixAvailability, FixSafety, TextEdit
from ms_perflint.project.model import ClassRef, Program, Project, ScopeRef, Where
from ms_perflint.project.training import Training
from ms_perflint.project.values import in_every_undecided_arm
from ms_perflint.rules.base import Invalid, Rule, RuleDocs, Valid
from ms_perflint.rules.check import Check, append_keyword, spelled_name

FIX_DESCRIPTION = "Read samples with the dataset's global worker count (num_parallel_workers)"
#: How far calls are followed from ``__getitem__`` looking for the sample reads (helpers of helpers).
WORK_DEPTH = 3


class GeneratorDatasetSingleWorker(Rule):
    """Report a training GeneratorDataset whose random-access source reads samples from storage on one worker."""

    code = "MSP301"
    name = "generator-dataset-single-worker"
    summary = "A GeneratorDataset reads and decodes every training sample on one Python worker"
    fix_availability = FixAvailability.SOMETIMES
    docs = RuleDocs(
        what_it_does="""
            Finds a `mindspore.dataset.GeneratorDataset` that feeds training with one worker
            (`num_parallel_workers` not passed, or a literal `1`) over a random-access source -- an object of a
            project class with `__getitem__` -- whose `__getitem__` reads or decodes each sample from storage:
            `open`, `PIL.Image.open`, `cv2.imread`/`imdecode`, `np.load`/`np.fromfile`, `imageio`, `h5py`,
            `scipy.io.loadmat`, `pickle.load`, MindSpore's `vision.read_image`/`Decode`, ... (in `__getitem__` or
            the helpers it calls, up to three calls deep).

            "Feeds training" is traced from where a training program takes its data back to the
            `GeneratorDataset(...)`: `Model.train`/`fit`'s dataset, a mindformers `Trainer(train_dataset=...)`,
            `data_sink(fn, dataset)`, or what a training loop iterates (`for x, y in
            dataset.create_tuple_iterator():` with a train step inside -- also a hand-written train-step cell whose
            `construct` calls `self.grad = ops.GradOperation(...)`), through `.map`/`.batch`/`.shuffle`,
            factories that return the dataset (`train, val = create_datasets()` too), parameters and
            `self.<attr>`. The finding is reported at the `GeneratorDataset(...)` call.
        """,
        why_bad="""
            `GeneratorDataset` calls the source's `__getitem__` from `num_parallel_workers` workers, and that
            number defaults to **1**: unlike `map` and the built-in file datasets (`ImageFolderDataset`, ...),
            whose default `None` means the global setting, it does not follow
            `ds.config.set_num_parallel_workers(...)`. Measured on MindSpore 2.10 (CPU wheel, a 2-core host
            shared with other jobs; a source sleeping 20 ms per sample as a stand-in for opening and decoding a
            file, 40 samples, the faster of two epochs): one worker took 0.84-0.85 s an epoch, two workers
            0.50-0.51 s (1.65-1.71x faster); after `ds.config.set_num_parallel_workers(2)` the dataset still had
            `num_parallel_workers == 1` and took 0.84 s. The MindSpore test tier measures both on every run
            (`tests/test_mindspore_facts_rules_data.py`). With one worker the device waits
            while Python opens and decodes one file after another; the later `.map(...,
            num_parallel_workers=8)` cannot start before the sample exists.
        """,
        example="""
            import cv2
            import mindspore.dataset as ds

            class Images:
                def __init__(self, paths, labels):
                    self.paths, self.labels = paths, labels
                def __getitem__(self, index):
                    return cv2.imread(self.paths[index]), self.labels[index]
                def __len__(self):
                    return len(self.paths)

            dataset = ds.GeneratorDataset(Images(paths, labels), ["image", "label"], shuffle=True)
            model.train(10, dataset.batch(32))
        """,
        use_instead="""
            dataset = ds.GeneratorDataset(Images(paths, labels), ["image", "label"], shuffle=True,
                                          num_parallel_workers=ds.config.get_num_parallel_workers())
        """,
        fix_safety="""
            The fix passes `num_parallel_workers=<ms>.dataset.config.get_num_parallel_workers()` (appended in the
            call's layout, or in place of the literal `1`), spelled with the file's own imports (it adds
            `import mindspore` when the file has no name for it). That value is the program's own global
            setting when it calls `set_num_parallel_workers` (which GeneratorDataset ignores), else MindSpore's
            default for its other dataset operations -- 8 by its documentation, capped at the host's cores (2 on
            a 2-core host, 2.10). It never exceeds the host's cores: a literal above them raises `ValueError`
            (2.10), so a fixed `8` would break on small hosts.

            The fix is **unsafe**: with `python_multiprocessing=True` (the default) each worker is a process.

            - *Pickling*: under the `spawn` start method the source is pickled (dill) into every worker; a
              source holding an open file, an LMDB environment or a lock fails there.
            - *Memory*: each worker holds a copy-on-write copy of the parent; MindSpore's own estimate is
              `(num_parallel_workers + 1) x` the parent's size, and shared memory for the rows in flight.
            - *Random streams*: forked workers inherit numpy's and Python's random state. Unless the program calls
              `ds.config.set_seed(...)` (MindSpore then seeds worker *i* with seed + *i*), the workers draw the
              same random numbers: with two workers, 40 draws of `np.random.randint` in `__getitem__` gave 20
              distinct values (2.10). The message says when `__getitem__` draws from numpy's or Python's global
              random stream.
        """,
        programs="""
            Training programs (scripts and notebooks that train, and the code they reach) whose device is not
            only the CPU: an accelerator idles while the host reads. A dataset built by code no training program
            runs, or that only evaluation (`Model.eval`, an eval loop, an evaluation callback) consumes, is not
            reported.
        """,
        silent_on="""
            - a generator function or any source without `__getitem__` (an iterable): MindSpore reads it with
              one worker whatever `num_parallel_workers` says (2.10 `prepare_multiprocessing`; measured: 0.41 s
              an epoch for 40 samples of 10 ms with one worker, 0.42-0.43 s with two);
            - in-memory sources and sources that only index arrays (`return self.data[i], self.label[i]`, the
              files read in `__init__`): two workers were *slower* there, 0.87-0.91 s instead of 0.07-0.12 s an
              epoch for 2,000 rows (2.10: every sample crosses a process boundary);
            - sources whose `__getitem__` only transforms in-memory data (augmentation without reads): moving a row
              to another process cost about 0.4 ms in the in-memory measurement below, the cost a transform must
              exceed before a second worker pays;
            - `num_parallel_workers` set to a value some run makes larger than 1 or that the linter cannot know
              (a config it cannot read), or `**kwargs` that may carry it. A value every run makes 1 (an argparse
              default `--workers 1` passed down to the dataset) is reported where the 1 is written, without a fix;
            - a source whose class the linter cannot tell (`eval(name)(...)`, a parameter nobody passes);
            - datasets that reach no training: eval and export pipelines, datasets built and unused;
            - a dataset chosen by a test no run decides (`if cfg.phase == "train":` with a phase from a config the
              linter cannot read, `--device_num=$1` in the launch script) when the other arm's dataset does not read
              on one worker: RULES.md asks for the problem in both arms then. A test each run decides (an argparse
              default, `RANK_SIZE=8` before `--device_num=$RANK_SIZE`) reports the arm a run takes.
        """,
        precision="""
            On the precision benchmark's development set (2026-11-23): 14 findings, all labelled, 14 worth acting on
            (100 %), all in mindspore-courses/applications (COCO, ImageNet, inpainting, optical-flow and pix2pix
            sources that open and decode files in `__getitem__`). mindcv, mindocr and mindyolo pass
            `num_parallel_workers`; mindformers' dataloaders pass `**kwargs`. A notebook that redefines its
            dataset factory in a later cell is read cell by cell: a call uses the definition above it. See
            docs/precision.md.
        """,
        references=(
            "https://www.mindspore.cn/docs/en/master/api_python/dataset/mindspore.dataset.GeneratorDataset.html",
            "https://www.mindspore.cn/docs/en/master/api_python/dataset/mindspore.dataset.config.set_num_parallel_workers.html",
            "https://www.mindspore.cn/docs/en/master/api_python/dataset/mindspore.dataset.config.set_seed.html",
        ),
    )
    valid = (
        Valid(
            """
            import numpy as np
            import mindspore.dataset as ds
            from mindspore.train import Model

            def samples():
                for path in open("list.txt"):
                    yield np.load(path.strip()),

            if __name__ == "__main__":
                dataset = ds.GeneratorDataset(samples, ["x"])
                Model(net, loss, opt).train(10, dataset.batch(32))
            """,
            why="a generator function: MindSpore reads it with one worker whatever num_parallel_workers says",
        ),
        Valid(
            """
            import numpy as np
            import mindspore.dataset as ds
            from mindspore.train import Model

            class InMemory:
                def __init__(self, path):
                    self.data = np.load(path)
                def __getitem__(self, index):
                    return self.data[index], index % 10
                def __len__(self):
                    return len(self.data)

            if __name__ == "__main__":
                dataset = ds.GeneratorDataset(InMemory("train.npy"), ["x", "y"], shuffle=True)
                Model(net, loss, opt).train(10, dataset.batch(32))
            """,
            why="read once in __init__, only indexed per sample: two workers were slower (2.10)",
        ),
        Valid(
            """
            import cv2
            import mindspore.dataset as ds
            from mindspore.train import Model

            class Images:
                def __getitem__(self, index):
                    return cv2.imread(self.paths[index]), self.labels[index]
                def __len__(self):
                    return len(self.paths)

            if __name__ == "__main__":
                dataset = ds.GeneratorDataset(Images(), ["image", "label"], num_parallel_workers=8)
                Model(net, loss, opt).train(10, dataset.batch(32))
            """,
            why="already several workers",
        ),
        Valid(
            """
            import cv2
            import mindspore.dataset as ds
            from mindspore.train import Model

            class Images:
                def __getitem__(self, index):
                    return cv2.imread(self.paths[index]), self.labels[index]
                def __len__(self):
                    return len(self.paths)

            if __name__ == "__main__":
                dataset = ds.GeneratorDataset(Images(), ["image", "label"])
                Model(net, loss, opt).eval(dataset.batch(32))
            """,
            why="the dataset is only evaluated",
        ),
    )
    invalid = (
        Invalid(
            """
            import cv2
            import mindspore.dataset as ds
            from mindspore.train import Model

            class Images:
                def __getitem__(self, index):
                    return cv2.imread(self.paths[index]), self.labels[index]
                def __len__(self):
                    return len(self.paths)

            if __name__ == "__main__":
                dataset = ds.GeneratorDataset(Images(), ["image", "label"], shuffle=True)
                Model(net, loss, opt).train(10, dataset.batch(32))
            """,
            line=12,
            column=15,
            message_contains="cv2.imread",
            fixed="""
            import cv2
            import mindspore.dataset as ds
            from mindspore.train import Model

            class Images:
                def __getitem__(self, index):
                    return cv2.imread(self.paths[index]), self.labels[index]
                def __len__(self):
                    return len(self.paths)

            if __name__ == "__main__":
                dataset = ds.GeneratorDataset(Images(), ["image", "label"], shuffle=True, num_parallel_workers=ds.config.get_num_parallel_workers())
                Model(net, loss, opt).train(10, dataset.batch(32))
            """,
        ),
        Invalid(
            """
            from PIL import Image
            import mindspore as ms
            from mindspore.dataset import GeneratorDataset

            class Photos:
                def __getitem__(self, index):
                    return Image.open(self.files[index]).convert("RGB"), 0
                def __len__(self):
                    return len(self.files)

            def create_dataset(batch_size):
                data = GeneratorDataset(Photos(), ["image", "label"], num_parallel_workers=1)
                return data.batch(batch_size)

            def train(net, dataset, step):
                for image, label in dataset.create_tuple_iterator():
                    step(image, label)

            if __name__ == "__main__":
                ms.dataset.config.set_num_parallel_workers(8)
                train(net, create_dataset(32), ms.nn.TrainOneStepCell(net, opt))
            """,
            line=12,
            column=12,
            message_contains="set_num_parallel_workers",
            fixed="""
            from PIL import Image
            import mindspore as ms
            from mindspore.dataset import GeneratorDataset

            class Photos:
                def __getitem__(self, index):
                    return Image.open(self.files[index]).convert("RGB"), 0
                def __len__(self):
                    return len(self.files)

            def create_dataset(batch_size):
                data = GeneratorDataset(Photos(), ["image", "label"], num_parallel_workers=ms.dataset.config.get_num_parallel_workers())
                return data.batch(batch_size)

            def train(net, dataset, step):
                for image, label in dataset.create_tuple_iterator():
                    step(image, label)

            if __name__ == "__main__":
                ms.dataset.config.set_num_parallel_workers(8)
                train(net, create_dataset(32), ms.nn.TrainOneStepCell(net, opt))
            """,
        ),
    )

    def check(self, check: Check) -> None:
        project = check.project
        training = Training.shared(project)
        reported: Set[Tuple[str, int]] = set()
        for program in project.training_programs():
            with check.deciding(program.entry):
                if not check.ascend(program).accelerator:
                    continue  # on the CPU the workers would compete with training for the same cores
                sources = _training_sources(check, training, program)
                for path, call in sources:
                    if (path, call.id) in reported or project.qualified(path, call) != ms.GENERATOR_DATASET:
                        continue
                    found = _single_worker_reads(check, program, path, call)
                    if found is None or not in_every_undecided_arm(
                            check.values, program, path, call, sources,
                            lambda p, other: _reads_on_one_worker(check, program, p, other)):
                        continue
                    reported.add((path, call.id))
                    classes, reads, draws, workers, written = found
                    if written is not None:
                        # ``--workers`` defaults to 1 and reaches the dataset: reported where the 1 is written.
                        said = f"num_parallel_workers={workers.text or 'a configured value'} is 1 here"
                        message = _message(check, program, classes, reads, draws, workers, said,
                                           f"the GeneratorDataset at {path}:{call.line}")
                        check.report(self.code, written.path, written, message)
                    else:
                        message = _message(check, program, classes, reads, draws, workers)
                        check.report(self.code, path, call, message, _fix(project, path, call, workers))


def _single_worker_reads(check: Check, program: Program, path: str, call: Call):
    """``(source classes, reads, random draws, the workers value, where a configured 1 is written)`` when the
    GeneratorDataset reads its samples on one worker, else None."""
    workers = call.argument(ms.GENERATOR_WORKERS.keyword, ms.GENERATOR_WORKERS.position)
    if workers is None and call.may_pass(ms.GENERATOR_WORKERS.keyword, ms.GENERATOR_WORKERS.position):
        return None
    written: Optional[Where] = None
    if workers is not None and not (workers.kind == LIT and workers.data == ms.GENERATOR_DEFAULT_WORKERS
                                    and type(workers.data) is int):
        written = _configured_one(check, program, path, call, workers)
        if written is None:
            return None
    source = call.argument(ms.GENERATOR_SOURCE.keyword, ms.GENERATOR_SOURCE.position)
    classes = check.values.instances(path, source, call.scope) if source is not None else frozenset()
    reads, draws = _sample_work(check.project, classes)
    if not reads:
        return None
    return sorted(classes), reads, draws, workers, written


def _configured_one(check: Check, program: Program, path: str, call: Call, workers: Value) -> Optional[Where]:
    """Where the 1 is written when every run gives ``num_parallel_workers=args.workers`` the value 1 from one place
    (an argparse default, a helper's parameter default), else None."""
    found = check.values.resolve(path, workers, call.scope, program=program)
    if not found.complete or not found.values or any(
            type(k.value) is not int or k.value != ms.GENERATOR_DEFAULT_WORKERS for k in found.values):
        return None
    places = {k.where for k in found.values if k.where is not None}
    return places.pop() if len(places) == 1 else None


def _reads_on_one_worker(check: Check, program: Program, path: str, call: Call) -> bool:
    """A GeneratorDataset that reads on one worker (any other dataset does not have the problem)."""
    return check.project.qualified(path, call) == ms.GENERATOR_DATASET and \
        _single_worker_reads(check, program, path, call) is not None


def _training_sources(check: Check, training: Training, program: Program) -> List[Tuple[str, Call]]:
    """The dataset sources the program may train on (``GeneratorDataset``, ``MindDataset``, ...), each whose guards can
    hold in some run (both arms of ``if phase == "train": data = A else: data = B`` when no run decides the phase)."""
    project = check.project
    found: List[Tuple[str, Call]] = []
    for path, call_id in sorted(training.fed_datasets(program)):
        call = project.python[path].call(call_id)
        if call is None or not call.callee or not program.reaches(path, call.scope):
            continue
        qualified = project.qualified(path, call)
        if qualified.startswith(ms.DATASET_PACKAGE) and qualified.endswith("Dataset") and \
                check.values.can_hold(path, call.scope, call.guards, program):
            found.append((path, call))
    return found


def _sample_work(project: Project, classes: FrozenSet[ClassRef]) -> Tuple[List[str], List[str]]:
    """The sample reads (and random draws) every class's ``__getitem__`` makes, or ``([], [])`` when a class has no
    ``__getitem__`` or reads nothing (an in-memory source)."""
    if not classes:
        return [], []
    reads: Set[str] = set()
    draws: Set[str] = set()
    for cls in sorted(classes):
        getitem = project.method(cls, ms.RANDOM_ACCESS_METHOD)
        if getitem is None:
            return [], []
        own_reads, own_draws = _work_from(project, getitem)
        if not own_reads:
            return [], []
        reads |= own_reads
        draws |= own_draws
    return sorted(reads), sorted(draws)


def _work_from(project: Project, start: ScopeRef) -> Tuple[Set[str], Set[str]]:
    """Reads and random draws in a scope and the project code it calls (up to :data:`WORK_DEPTH` calls deep)."""
    reads: Set[str] = set()
    draws: Set[str] = set()
    seen: Set[ScopeRef] = set()
    stack: List[Tuple[ScopeRef, int]] = [(start, 0)]
    while stack:
        scope, depth = stack.pop()
        if scope in seen:
            continue
        seen.add(scope)
        path, index = scope
        facts = project.python[path]
        for name in facts.scopes[index].work:
            if ms.is_sample_reader(name):
                reads.add(name)
            elif ms.is_random_draw(name):
                draws.add(name)
        for call in facts.calls:
            if call.scope != index:
                continue
            if _external_reader(project, path, call):
                reads.add(call.callee)
            elif depth < WORK_DEPTH:
                stack.extend((target, depth + 1) for target in project.targets(path, call))
    return reads, draws


def _external_reader(project: Project, path: str, call: Call) -> bool:
    """A call of an I/O library's reader that the analysis could not tell from project code (``kaldiio.load_mat``,
    ``soundfile.read``): the callee's package is not one of the project's modules."""
    callee = call.callee
    if not callee or callee.startswith("self.") or "." not in callee or not ms.is_sample_reader(callee):
        return False
    return project.callee(path, call) is None and project.module_file(callee.split(".", 1)[0], path) is None


def _message(check: Check, program: Program, classes: List[ClassRef], reads: List[str], draws: List[str],
             workers: Optional[Value], said: str = "", dataset: str = "GeneratorDataset") -> str:
    said = said or ("num_parallel_workers=1" if workers is not None else "num_parallel_workers defaults to 1")
    source = ", ".join(name for _, name in classes)
    shown = ", ".join(_short(name) for name in reads[:3])
    message = (f"{dataset[0].upper()}{dataset[1:]} reads training samples on one worker ({said}): {source}.__getitem__ "
               f"reads or decodes each one ({shown}) while the device waits; pass num_parallel_workers")
    setting = _global_setting(check, program)
    if setting:
        message += f" (set_num_parallel_workers at {setting} does not apply to GeneratorDataset)"
    if draws:
        message += (f"; __getitem__ draws random numbers ({_short(draws[0])}): call ds.config.set_seed first, or "
                    f"forked workers repeat each other's draws")
    return message


def _global_setting(check: Check, program: Program) -> str:
    """Where the program sets the global worker count (which GeneratorDataset ignores), or ""."""
    found = check.project.program_calls(program, (ms.SET_NUM_PARALLEL_WORKERS,))
    return f"{found[0][0]}:{found[0][1].line}" if found else ""


def _short(qualified: str) -> str:
    return "np." + qualified[len("numpy."):] if qualified.startswith("numpy.") else qualified


def _fix(project: Project, path: str, call: Call, workers: Optional[Value]) -> Optional[Fix]:
    """``num_parallel_workers=<ms>.dataset.config.get_num_parallel_workers()``, appended or in place of ``1``."""
    avoid = [call.target] if call.target and not call.target.startswith("self.") else []
    name, imports = spelled_name(project.python[path], ms.GET_NUM_PARALLEL_WORKERS, avoid)
    value = f"{name}()"
    if workers is None:
        return append_keyword(call, ms.GENERATOR_WORKERS.keyword, value, FixSafety.UNSAFE, FIX_DESCRIPTION, imports)
    if workers.end <= workers.start:
        return None
    return Fix(FixSafety.UNSAFE, FIX_DESCRIPTION, (TextEdit(workers.start, workers.end, value), *imports))
