#!/bin/bash
cd /work/exp-n
export PYTHONPATH=/work/exp-n/src
PY=/work/main/.venv/bin/python
date
$PY -m specverdict.reference.train --init-target .exp/N3/target --target-steps 0 --draft-steps 600 --mtp-steps 400 \
  --synth-seed 20261303 --stdlib-fraction 0.25 --synth-function 20000 --synth-agent 3000 --synth-repository 6000 \
  --agent-stub 0.6 --repository-stub 0.6 --agent-recovery 0.3
echo "train rc=$?"; date
$PY -m specverdict.reference.train.quality --keep .exp/ship-quality
echo "quality rc=$?"; date
$PY -m specverdict.reference.train.card
echo "card rc=$?"; date
