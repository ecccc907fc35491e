// Never built: it stands for a sample that needs a CUDA host library (cuBLAS), which the eligibility script excludes.
#include <cublas_v2.h>

int main() { return 0; }
