# Runs on the device machine (an H200 with NVIDIA's libraries), from the
# repository root: the math-library test programs that have not been run on
# NVIDIA's libraries yet (each must print PASS there as on ours), and the
# cuSPARSE type combinations (tests/cuda/cusparse_types.cu against its golden
# file), and those of the other generic operations (cusparse_types_ops.cu,
# whose lines, stderr's cuSPARSE messages left out, became
# tests/golden/libs/cusparse_types_ops.golden, recorded on an H100). Outputs
# land in $OUT (programs.txt, cusparse_types.txt, cusparse_types_ops.txt); record what
# they show in the tests and docs/STATUS.md.
set -x
nvidia-smi -L
cd tests/cuda
for t in cusolver_reduce cusolver_x cusolver_sp cusolver_rf cusparse_blocked cusparse_blocks cusparse_legacy cublaslt_matmul cufft_basic; do
  nvcc -arch=sm_90 -O2 -g -I. $t.cu -o /tmp/$t -L/usr/local/cuda/lib64 -lcusolver -lcusparse -lcublas -lcublasLt -lcufft 2>/dev/null &
done
nvcc -arch=sm_90 -O2 cusparse_types.cu -o /tmp/cusparse_types -L/usr/local/cuda/lib64 -lcusparse &
nvcc -arch=sm_90 -O2 cusparse_types_ops.cu -o /tmp/cusparse_types_ops -L/usr/local/cuda/lib64 -lcusparse 2>/dev/null &
wait
for t in cusolver_reduce cusolver_x cusolver_sp cusolver_rf cusparse_blocked cusparse_blocks cusparse_legacy cublaslt_matmul cufft_basic; do
  echo "=== $t" >> $OUT/programs.txt
  LD_LIBRARY_PATH=/usr/local/cuda/lib64 timeout 120 stdbuf -o0 -e0 /tmp/$t > /tmp/$t.txt 2>&1; rc=$?
  echo "rc=$rc" >> /tmp/$t.txt
  if [ $rc -ge 128 ]; then # where it crashed: the backtrace's program addresses resolved
    grep -o "$t(+0x[0-9a-f]*)" /tmp/$t.txt | sed 's/.*(+\(0x[0-9a-f]*\))/\1/' | xargs -r addr2line -f -C -e /tmp/$t >> /tmp/$t.txt
  fi
  tail -5 /tmp/$t.txt; cat /tmp/$t.txt >> $OUT/programs.txt
done
echo "=== cusolver_rf, every batch matrix A0" >> $OUT/programs.txt
ZLUDA_RF_SAME_VALUES=1 LD_LIBRARY_PATH=/usr/local/cuda/lib64 timeout 120 /tmp/cusolver_rf >> $OUT/programs.txt 2>&1; echo "rc=$?" >> $OUT/programs.txt
LD_LIBRARY_PATH=/usr/local/cuda/lib64 timeout 200 /tmp/cusparse_types ../golden/libs/cusparse_types.golden > $OUT/cusparse_types.txt 2>&1; echo rc=$?; tail -3 $OUT/cusparse_types.txt
LD_LIBRARY_PATH=/usr/local/cuda/lib64 timeout 300 /tmp/cusparse_types_ops > $OUT/cusparse_types_ops.txt 2>&1; echo rc=$?; tail -3 $OUT/cusparse_types_ops.txt
