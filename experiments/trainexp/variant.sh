#!/bin/bash
# usage: variant.sh NAME [train args...]  -- warm-start fine-tune then subset eval
set -u
cd "$(dirname "$0")/../.."
name=$1; shift
mkdir -p .exp/$name
start=$(date +%s)
echo "ARGS: $*" > .exp/$name/args
.venv/bin/python -m specverdict.lab.train --init-target src/specverdict/reference/weights/target \
  --out .exp/$name --golden .exp/$name/golden.json --draft-steps 0 --mtp-steps 0 \
  --eval-every 100000 --threads 2 "$@" > .exp/$name/train.log 2>&1
mid=$(date +%s)
.venv/bin/python experiments/trainexp/evalmodel.py .exp/$name/target .exp/results/$name.json > .exp/$name/eval.log 2>&1
end=$(date +%s)
echo "train_wall_s=$((mid-start)) eval_wall_s=$((end-mid))" > .exp/$name/wall
