#!/bin/bash
# usage: variant-full.sh NAME INIT [train args...]  -- warm-start fine-tune of INIT, then the whole evaluation split
set -u
cd "$(dirname "$0")/../.."
name=$1; init=$2; shift 2
mkdir -p .exp/$name
start=$(date +%s)
echo "ARGS: --init-target $init $*" > .exp/$name/args
.venv/bin/python -m specverdict.lab.train --init-target "$init" \
  --out .exp/$name --golden .exp/$name/golden.json --draft-steps 0 --mtp-steps 0 \
  --eval-every 100000 --threads 2 "$@" > .exp/$name/train.log 2>&1
echo "train rc=$?" >> .exp/$name.out
mid=$(date +%s)
CAMPAIGN_BASE=experiments/trainexp/campaign-full.yaml \
  .venv/bin/python experiments/trainexp/evalmodel.py .exp/$name/target .exp/results/$name.json > .exp/$name/eval.log 2>&1
echo "eval rc=$?" >> .exp/$name.out
end=$(date +%s)
echo "train_wall_s=$((mid-start)) eval_wall_s=$((end-mid))" | tee .exp/$name/wall >> .exp/$name.out
