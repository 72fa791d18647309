"""``container[key]`` where the key is not a literal: a size chosen from a table by a configured name.

From YOLOv5 in mindspore-ai/models (a held-out program): ``self.config.input_shape[version]`` with ``version`` from
``{"yolov5s": 0, ...}[config.yolov5_version]`` sized every convolution, so the network counted 0 weights and its
float32 training (MSP107) was missed.
"""

from __future__ import annotations

import pytest

from ms_perflint.analysis.configs import extract_yaml
from tests.project.test_values_numeric import resolved


@pytest.mark.parametrize("expression, prelude, value", [
    ("WIDTHS[SIZES[NAME]]", "NAME = 'large'\nSIZES = {'small': 0, 'large': 1}\nWIDTHS = [64, 512]", [512]),
    ("TABLE[ROW][1]", "ROW = 1\nTABLE = ((3, 32), (3, 96))", [96]),
    ("WIDTHS[-ROW]", "ROW = 1\nWIDTHS = (64, 512)", [512]),
])
def test_a_known_key_selects_its_item(expression, prelude, value):
    assert resolved(expression, prelude) == (True, value)


def test_an_unknown_key_takes_every_item_it_may_select():
    # Whichever item the program's run selects, it is one of these: a lower bound takes the smallest.
    assert resolved("WIDTHS[unknown()]", "WIDTHS = (64, 512, 128)") == (True, [64, 128, 512])
    assert resolved("SIZES[name]", "SIZES = {'small': 16, 'large': 32}") == (True, [16, 32])


@pytest.mark.parametrize("expression, prelude", [
    ("WIDTHS[5]", "WIDTHS = (64, 512)"),               # out of range: no item
    ("SIZES['huge']", "SIZES = {'small': 16}"),        # a literal key is a config read, not this
    ("SIZES[NAME]", "NAME = 'huge'\nSIZES = {'small': 16}"),  # a known key the dict does not hold
    ("unknown()[NAME]", "NAME = 'a'"),                 # no known container
])
def test_no_item_is_unknown(expression, prelude):
    complete, values = resolved(expression, prelude)
    assert not (complete and values)


def test_a_yaml_table_of_rows_is_one_value_of_rows():
    facts = extract_yaml("input_shape: [[3, 32, 64], [3, 48, 96]]\nnames: [[a, 1], 2]\n")
    [mapping] = facts.mappings
    assert mapping.entries["input_shape"].data == ((3, 32, 64), (3, 48, 96))
    assert "names" not in mapping.entries  # rows and scalars mixed: data, not a table
