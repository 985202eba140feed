#!/bin/bash
cd /work/exp-n
export PYTHONPATH=/work/exp-n/src
PY=/work/main/.venv/bin/python
date +%s > .n-start
$PY -m specverdict.reference.train --batch 4 --target-steps 3200 --target-lr 2e-3 --stdlib-fraction 0.3 --agent-stub 0.6 --repository-stub 0.6 --agent-recovery 0.3 --draft-steps 1200 --mtp-steps 600 --eval-every 3200 --synth-function 60000
echo "train rc=$?"; date +%s > .n-trained
$PY -m specverdict.reference.train.quality --keep .n-quality
echo "quality rc=$?"; date +%s > .n-done
