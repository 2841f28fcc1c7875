// Relocatable device code used by rdc_* programs from another translation
// unit (nvcc -rdc=true): a device function and a device variable.
__device__ int gCounter;

__device__ int scaleBy(int X) { return 3 * X + 1; }
