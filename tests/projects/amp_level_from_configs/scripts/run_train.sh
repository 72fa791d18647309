#!/bin/bash
# Usage: bash run_train.sh DATA_PATH
python ../train.py --data_path=$1 \
    --amp_level O2 \
    --epochs 90 > train.log 2>&1 &
