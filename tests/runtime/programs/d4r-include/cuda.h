/* Stands in for NVIDIA's cuda.h when the CUDA toolkit is not installed: the test programs include
 * <cuda.h> and build unchanged against either header. */
#pragma once
#include "abi/cuda_program.h"
