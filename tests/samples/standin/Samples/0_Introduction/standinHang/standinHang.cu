// Runs one kernel, prints a line, then waits on the host for ever: the sweep must stop it at its time limit and
// call it a timeout, with the last line it printed.
#include <standin_check.h>

#include <unistd.h>

__global__ void nothing() {}

int main() {
    nothing<<<1, 32>>>();
    STANDIN_CHECK(cudaDeviceSynchronize());
    std::printf("waiting for ever\n");
    for (;;) sleep(1);
}
