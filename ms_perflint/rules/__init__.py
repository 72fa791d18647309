"""The rule registry: every ``mspNNN_*.py`` module here defines exactly one rule class.

Adding a rule means adding a module; nothing else needs editing.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache
from typing import Any, Dict, List, Type

from ms_perflint.rules.base import Rule


def _discover() -> List[Type[Rule]]:
    rules = []
    for module_info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not module_info.name.startswith("msp"):
            continue
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        found = [
            value
            for value in vars(module).values()
            if isinstance(value, type) and issubclass(value, Rule) and value.__module__ == module.__name__
        ]
        if len(found) != 1:
            raise RuntimeError(f"{module.__name__} must define exactly one rule, found {len(found)}")
        rules.append(found[0])
    return sorted(rules, key=lambda rule: rule.code)


ALL_RULES: List[Type[Rule]] = _discover()
RULES_BY_CODE: Dict[str, Type[Rule]] = {rule.code: rule for rule in ALL_RULES}


@lru_cache(maxsize=None)
def _defaults() -> Dict[str, Any]:
    defaults: Dict[str, Any] = {}
    for rule in ALL_RULES:
        defaults.update(rule.option_defaults())
    return defaults


def option_defaults() -> Dict[str, Any]:
    """Every rule option's default value, by option name."""
    return dict(_defaults())
