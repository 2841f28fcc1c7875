/*===- activity.h - the driver's activity records, for our libcupti --------===*/
/* Part of ZLUDA for C++. Licensed under the Apache License v2.0. */
/** \file Our own interface (not NVIDIA's) between libcuda.so.1 and
 * libcupti.so.13: while a sink is installed, the driver reports each kernel
 * launch, copy and memset twice: when the call that issued it returns (on
 * the calling thread: the API's times and result) and when the device has
 * run it (on whichever thread ran the stream: the device's start and end).
 * Both reports of one operation carry the same correlation id. Operations
 * recorded into a graph by stream capture are reported when the graph runs. */
#ifndef ZLUDA_ACTIVITY_H
#define ZLUDA_ACTIVITY_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum zluda_activity_op { ZLUDA_ACTIVITY_KERNEL = 1, ZLUDA_ACTIVITY_MEMCPY = 2, ZLUDA_ACTIVITY_MEMSET = 3 };
enum zluda_activity_phase { ZLUDA_ACTIVITY_ISSUED = 0, ZLUDA_ACTIVITY_COMPLETED = 1 };
/* Where a copy's or memset's memory is: CUPTI's CUpti_ActivityMemoryKind numbers. */
enum zluda_activity_memory { ZLUDA_MEM_UNKNOWN = 0, ZLUDA_MEM_PAGEABLE = 1, ZLUDA_MEM_PINNED = 2, ZLUDA_MEM_DEVICE = 3,
                             ZLUDA_MEM_ARRAY = 4, ZLUDA_MEM_MANAGED = 5 };

typedef struct zluda_activity {
  uint32_t op;          /* zluda_activity_op */
  uint32_t correlation; /* one per operation, from 1 */
  uint64_t api_start, api_end; /* the issuing call (ISSUED) */
  uint64_t start, end;         /* on the device (COMPLETED) */
  uint64_t stream;             /* the CUstream the program named (0: the default stream) */
  uint64_t context;            /* the CUcontext */
  uint32_t device;
  int32_t result;  /* the call's CUresult (ISSUED) */
  uint8_t async;   /* an ...Async call */
  uint8_t src_mem, dst_mem; /* zluda_activity_memory: a copy's source and destination, a memset's destination */
  uint8_t cooperative;
  /* kernels */
  const char *name; /* the kernel's (mangled) name; lives as long as the process */
  uint32_t grid[3], block[3], cluster[3];
  uint32_t static_shared, dynamic_shared, local_per_thread, registers;
  /* copies and memsets */
  uint64_t bytes;
  uint32_t value;
} zluda_activity;

typedef void (*zluda_activity_sink)(uint32_t phase, const zluda_activity *A);
typedef uint64_t (*zluda_activity_clock)(void);

/* Installs \p Sink for the operations whose bit (1 << zluda_activity_op) is in
 * \p Ops, with \p Clock for every timestamp; a null sink or Ops == 0 stops the
 * reports. Exported by libcuda.so.1. */
void zludaActivitySubscribe(zluda_activity_sink Sink, zluda_activity_clock Clock, uint32_t Ops);

#ifdef __cplusplus
}
#endif

#endif /* ZLUDA_ACTIVITY_H */
