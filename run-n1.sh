#!/bin/bash
# warm-start fine-tune of the shipped target on the version-2 documents, then the subset evaluation
cd /work/exp-n
export PYTHONPATH=/work/exp-n/src
PY=/work/main/.venv/bin/python
name=${1:-N1}; shift
mkdir -p .exp/$name .exp/results
start=$(date +%s)
$PY -m specverdict.reference.train --init-target src/specverdict/reference/weights/target \
  --out .exp/$name --golden .exp/$name/golden.json --draft-steps 0 --mtp-steps 0 \
  --eval-every 100000 --threads 2 --synth-seed 20261303 "$@" > .exp/$name/train.log 2>&1
echo "train rc=$?"
mid=$(date +%s)
MAX_TOKENS=${MAX_TOKENS:-160} $PY experiments/trainexp/evalmodel.py .exp/$name/target .exp/results/$name.json > .exp/$name/eval.log 2>&1
echo "eval rc=$?"
end=$(date +%s)
echo "train_wall_s=$((mid-start)) eval_wall_s=$((end-mid))" | tee .exp/$name/wall
