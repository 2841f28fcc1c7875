# Runs on the device machine (an H200 with NVIDIA's libraries), from the
# repository root: the math-library test programs that have not been run on
# NVIDIA's libraries yet (each must print PASS there as on ours), and the
# cuSPARSE type-combination probe. Outputs land in $OUT (programs.txt,
# cusparse_types.txt); record what they show in the tests and docs/STATUS.md.
set -x
nvidia-smi -L
cd tests/cuda
for t in cusolver_reduce cusolver_x cusolver_sp cusolver_rf cusparse_blocked cusparse_blocks cusparse_legacy cublaslt_matmul; do
  nvcc -arch=sm_90 -O2 -I. $t.cu -o /tmp/$t -L/usr/local/cuda/lib64 -lcusolver -lcusparse -lcublas -lcublasLt 2>/dev/null &
done
(cd ../probes && nvcc -arch=sm_90 -O2 cusparse_types.cu -o /tmp/cusparse_types -L/usr/local/cuda/lib64 -lcusparse) &
wait
for t in cusolver_reduce cusolver_x cusolver_sp cusolver_rf cusparse_blocked cusparse_blocks cusparse_legacy cublaslt_matmul; do
  echo "=== $t"; LD_LIBRARY_PATH=/usr/local/cuda/lib64 timeout 120 /tmp/$t > /tmp/$t.txt 2>&1; echo "rc=$?" >> /tmp/$t.txt; tail -5 /tmp/$t.txt; cat /tmp/$t.txt >> $OUT/programs.txt
done
LD_LIBRARY_PATH=/usr/local/cuda/lib64 timeout 200 /tmp/cusparse_types > $OUT/cusparse_types.txt 2>&1; echo rc=$?; tail -3 $OUT/cusparse_types.txt; wc -l $OUT/cusparse_types.txt
