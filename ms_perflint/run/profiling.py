"""``--profile``: findings weighed by what they cost in a real profile, and confirmed where the source is silent.

The operators of the profile are mapped to the source lines that build their Cells
(:mod:`ms_perflint.profile.mapping`); each finding then gets the share of the profiled time spent in the
Cell its line builds (forward and backward together). A program-level MSP101 finding (``Model(...)`` with no
mixed precision) gets the share of every MatMul-family operator. Where the profile shows what the source
could not -- a MatMul fed float32 or run on the AI CPU, an output width that is not a multiple of 16 --
a finding is added that says it comes from the profile.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Dict, List, Optional, Sequence, Tuple

from ms_perflint import catalogue as ms
from ms_perflint.findings import FileResult, Finding
from ms_perflint.profile.formats import OpRow, Profile, read_profiles
from ms_perflint.profile.mapping import Mapped, ScopeMapper, Site

MSP101, MSP102 = "MSP101", "MSP102"


@dataclass
class CellCost:
    """One layer of the model: where it is built and the time its own operators took."""

    site: Site
    root: str
    time_us: float
    forward_us: float
    backward_us: float


@dataclass
class ProfileOutcome:
    """A profile laid over a run's results."""

    profile: Profile
    mapped: List[Mapped] = field(default_factory=list)
    unmapped: List[OpRow] = field(default_factory=list)
    cells: List[CellCost] = field(default_factory=list)

    @property
    def total_us(self) -> float:
        return self.profile.total_us

    def share(self, time_us: float) -> float:
        return time_us / self.total_us if self.total_us else 0.0

    def summary(self) -> str:
        mapped = sum(m.row.time_us for m in self.mapped)
        return (f"Profile: {len(self.profile.rows)} operators in {len(self.profile.tables)} table(s); "
                f"{len(self.mapped)} mapped to source lines ({self.share(mapped) * 100:.1f} % of the profiled time)")


def apply_profile(session, results: Sequence[FileResult], folders: Sequence[str]) -> Tuple[List[FileResult], ProfileOutcome]:
    """The results with costs (and the profile's own findings), and what the profile held."""
    outcome = ProfileOutcome(read_profiles(folders))
    if not outcome.profile.rows:
        return list(results), outcome
    roots = _roots(session, results)
    mappers = {root: ScopeMapper(_project(session, root)) for root in roots}
    owner: Dict[int, str] = {}
    for row in outcome.profile.rows:
        for root, mapper in mappers.items():
            mapped = mapper.map(row)
            if mapped is not None:
                outcome.mapped.append(mapped)
                owner[id(mapped)] = root
                break
        else:
            outcome.unmapped.append(row)
    outcome.cells = _cells(outcome.mapped, owner)
    # A program-level MSP101 already says the whole model runs in float32: the profile adds no layer findings.
    said = {session.root_for(r.path) for r in results if any(f.code == MSP101 for f in r.findings)}
    weighed = [_weigh(session, result, outcome, owner, roots, {r: m.project for r, m in mappers.items()}, said)
               for result in results]
    return weighed, outcome


def keep_costly(results: Sequence[FileResult], min_share: float) -> List[FileResult]:
    """``--min-share``: drop findings whose measured share is below ``min_share`` (0 to 1); unmeasured ones stay."""
    return [replace(r, findings=[f for f in r.findings if f.cost is None or f.cost >= min_share]) for r in results]


# --- mapping --------------------------------------------------------------------------------------------


def _roots(session, results: Sequence[FileResult]) -> List[str]:
    roots: List[str] = []
    for result in results:
        root = session.root_for(result.path)
        if root is not None and root not in roots:
            roots.append(root)
    return roots


def _project(session, root: str):
    from ms_perflint.project.model import Project

    index = session.index(root)
    return Project(index.root, index.facts(), texts=session.texts(index))


def _cells(mapped: Sequence[Mapped], owner: Dict[int, str]) -> List[CellCost]:
    """The layers that ran operators of their own, costliest first."""
    by_site: Dict[Tuple[str, Site], CellCost] = {}
    for item in mapped:
        site = item.sites[-1]
        key = (owner[id(item)], site)
        cell = by_site.setdefault(key, CellCost(site, key[0], 0.0, 0.0, 0.0))
        cell.time_us += item.row.time_us
        if item.backward:
            cell.backward_us += item.row.time_us
        else:
            cell.forward_us += item.row.time_us
    return sorted(by_site.values(), key=lambda cell: -cell.time_us)


# --- weighing findings ---------------------------------------------------------------------------------


def _weigh(session, result: FileResult, outcome: ProfileOutcome, owner: Dict[int, str],
           roots: Sequence[str], projects: Dict[str, object], fp32_said: set) -> FileResult:
    root = session.root_for(result.path)
    if root not in roots or result.error is not None:
        return result
    relative = session.index(root).relative(result.path)
    here = [m for m in outcome.mapped if owner[id(m)] == root]
    findings = [replace(f, cost=_cost(f, relative, here, outcome, projects[root])) for f in result.findings]
    options = session.settings_for(result.path).rule_options
    alignment = options.get("alignment", ms.CUBE_FRACTAL)
    least = options.get("min-unaligned-dim", ms.CUBE_FRACTAL * ms.AI_CORES)
    extra = [f for f in _from_profile(relative, here, outcome, findings, (alignment, least))
             if not (f.code == MSP101 and root in fp32_said)]
    if extra:
        placed = session.place(result.path, extra)
        findings += [replace(f, cost=next((e.cost for e in extra if e.start == f.start and e.code == f.code), None))
                     for f in placed]
    return replace(result, findings=findings)


def _cost(finding: Finding, relative: Optional[str], mapped: Sequence[Mapped], outcome: ProfileOutcome,
          project) -> Optional[float]:
    """The share of the operators built where the finding is: the innermost Cell its span builds (with its
    children); for a default of a Cell's ``__init__`` (``hidden=1500``), every layer of that class."""
    best: Optional[Tuple[int, Site]] = None
    for item in mapped:
        for site in item.sites:
            if site.path == relative and site.start <= finding.start < max(site.end, site.start + 1):
                if best is None or site.end - site.start < best[0]:
                    best = (site.end - site.start, site)
    if best is not None:
        site = best[1]
        return outcome.share(sum(m.row.time_us for m in mapped if site in m.sites))
    owner = _class_of_default(project, relative, finding.start)
    if owner is not None:
        return outcome.share(sum(m.row.time_us for m in mapped
                                 if any(s.path == relative and s.owner == owner for s in m.sites)))
    if finding.code == MSP101 and mapped:  # the whole program trains without mixed precision
        return outcome.share(sum(m.row.time_us for m in mapped if _is_matmul(m.row)))
    return None


def _class_of_default(project, relative: Optional[str], offset: int) -> Optional[str]:
    """The class whose ``__init__`` parameter default is written at ``offset``."""
    facts = project.python.get(relative) if relative is not None else None
    if facts is None:
        return None
    for scope in facts.scopes:
        if scope.cls and scope.name.rsplit(".", 1)[-1] == "__init__":
            if any(value.start <= offset < max(value.end, value.start + 1) for value in scope.defaults.values()):
                return scope.cls
    return None


def _from_profile(relative: Optional[str], mapped: Sequence[Mapped], outcome: ProfileOutcome,
                  findings: Sequence[Finding], dims: Tuple[int, int]) -> List[Finding]:
    """Findings the profile proves where the source could not: one per layer and code."""
    found: Dict[Tuple[str, Site], Finding] = {}
    for item in mapped:
        site = item.sites[-1]
        if site.path != relative or not _is_matmul(item.row):
            continue
        for code, message in _evidence(item.row, site, dims):
            known = any(f.code == code and site.start <= f.start < max(site.end, site.start + 1) for f in findings)
            if not known and (code, site) not in found:
                time = sum(m.row.time_us for m in mapped if m.sites and m.sites[-1] == site)
                share = outcome.share(time)
                found[(code, site)] = Finding(code, f"{message} ({share * 100:.1f} % of the profiled time)",
                                              start=site.start, end=site.end, cost=share)
    return list(found.values())


def _evidence(row: OpRow, site: Site, dims: Tuple[int, int]) -> List[Tuple[str, str]]:
    """What the operator's row proves: (code, message) pairs."""
    alignment, least = dims
    said = []
    if row.on_ai_cpu:
        said.append((MSP101, f"from the profile: {site.describe()} ran its {row.op_type} on the AI CPU, not the "
                             f"Cube; give it float16 inputs (to_float, or mixed precision)"))
    elif row.input_dtypes and row.input_dtypes[0] == "float32":
        said.append((MSP101, f"from the profile: {site.describe()} ran its {row.op_type} on float32 inputs; "
                             f"cast the layer to float16 (to_float) or turn on mixed precision"))
    if row.output_shapes and row.output_shapes[0]:
        width = row.output_shapes[0][-1]
        if width >= least and width % alignment:
            said.append((MSP102, f"from the profile: {site.describe()} produced outputs {width} wide, not a "
                                 f"multiple of {alignment}: the Cube pads them on every step"))
    return said


def _is_matmul(row: OpRow) -> bool:
    return row.op_type.startswith(ms.PROFILE_MATMUL_TYPES)


def site_location(session, cell: CellCost) -> str:
    """``src/model.py:87`` (a notebook: ``course.ipynb:cell 4:2``) for a layer's site."""
    path = os.path.join(cell.root, *cell.site.path.split("/"))
    shown = os.path.relpath(path) if not os.path.relpath(path).startswith("..") else path
    if cell.site.path.endswith(".ipynb"):
        located = session.notebook_line(path, cell.site.line)
        if located is not None:
            return f"{shown}:cell {located[0]}:{located[1]}"
    return f"{shown}:{cell.site.line}"
