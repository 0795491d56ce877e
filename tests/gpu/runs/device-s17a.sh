#!/usr/bin/env bash
# Seventeenth session, first run (written in the sixteenth, not yet run):
# the runtime's GPU tests, among them the sixteenth session's two new ones:
# GpuRuntimeTest.SymbolicTokensRunAtEveryCount (a graph with a symbolic
# token count, Executable::compileFor at 1, 7, 300 and 7 tokens against the
# reference) and GpuRuntimeTest.ReshapesAreViewsBetweenKernels (reshapes
# read as views of the buffers on either side), then the schedule and softmax suites
# as a check of the session's build (no kernel default changed in the
# sixteenth session).
source "$(dirname "$0")/../device-setup.sh"
find "$OUT" -mindepth 1 -delete
TILEC_TESTS_TIMEOUT=420 run_gpu_tests 'GpuRuntimeTest.*:GpuScheduleTest.*:Softmax/*:GpuSliceTest.*'
pack_out
