// d4r's stand-in samples (tests/samples/standin/README.md): the exit codes NVIDIA's samples use.
#pragma once
#include <cstdio>
#include <cstdlib>

#define STANDIN_EXIT_WAIVED 2

#define STANDIN_CHECK(call)                                                                                     \
    do {                                                                                                        \
        auto standin_result = (call);                                                                           \
        if (standin_result != 0) {                                                                              \
            std::fprintf(stderr, "%s:%d: %s failed with %d\n", __FILE__, __LINE__, #call, int(standin_result)); \
            std::exit(EXIT_FAILURE);                                                                            \
        }                                                                                                       \
    } while (0)
