#!/bin/bash
# eval.py is another program: its O2 says nothing about train.py
python ../eval.py --amp_level O2
