#!/usr/bin/env bash
# Fifteenth session, eighth run (a bundle with an experiment switch, read
# by DistributeRowTiles in this bundle only): the cluster's round of the
# online pair with lane l reading rank l's pair and the lanes reducing
# them (two remote loads and one exp a thread; not for the packed bf16
# rows, where ptxas then takes 80 registers), against TILEC_OLD_CLUSTER=1
# (every thread reads every rank's pair and rescales each). The tests that
# check cluster CTAs agree bitwise, then softmax in clusters, twice each.
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
step "GPU tests"
TILEC_TESTS_TIMEOUT=150 run_gpu_tests 'Softmax/*:Rows/*:GpuScheduleTest.ClusterCtasAgreeBitwiseOnTheOnlinePair:GpuScheduleTest.ManyWideRowsSplitOverClusters'
SH=1x131072,16x131072,16x65536,16x32768,4096x131072
bench() { timeout 60 "$B/bin/tilec-bench" --ops=softmax --dtypes=bf16,f32 --shapes=$SH --csv="$OUT/$1.csv" 2>&1 | grep -E "^softmax|^device"; }
step "lanes"; bench lanes
step "old"; TILEC_OLD_CLUSTER=1 bench old
step "lanes again"; bench lanes2
step "old again"; TILEC_OLD_CLUSTER=1 bench old2
pack_out
