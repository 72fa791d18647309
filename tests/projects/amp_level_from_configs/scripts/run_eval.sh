#!/bin/bash
python ../eval.py --amp_level O3
