#!/bin/bash
python ../train.py --data_path=$1 --amp_level O0
