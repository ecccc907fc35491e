// Every name NVIDIA's libcuda exports, asked of NVIDIA's cuGetProcAddress and of libd4rcuda's (driver backend
// over the same library), at CUDA versions 12000 and 13000 and with flags 0 and per-thread default stream:
// the answers (found or not) must agree, and every exported name must also be exported by libd4rcuda.
// Usage: driver_forwarding_probe NVIDIA_LIBCUDA LIBD4RCUDA NAMES_FILE   (one name per line)
#include <dlfcn.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

using Proc = int (*)(const char*, void**, int, unsigned long long, int*);

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: driver_forwarding_probe NVIDIA_LIBCUDA LIBD4RCUDA NAMES_FILE\n");
        return 2;
    }
    void* nv = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    void* d4r = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    if (!nv || !d4r) {
        std::fprintf(stderr, "driver_forwarding_probe: %s\n", dlerror());
        return 2;
    }
    auto nv_proc = reinterpret_cast<Proc>(dlsym(nv, "cuGetProcAddress_v2"));
    auto d4r_proc = reinterpret_cast<Proc>(dlsym(d4r, "cuGetProcAddress_v2"));
    auto nv_init = reinterpret_cast<int (*)(unsigned)>(dlsym(nv, "cuInit"));
    auto d4r_init = reinterpret_cast<int (*)(unsigned)>(dlsym(d4r, "cuInit"));
    if (!nv_proc || !d4r_proc || !nv_init || !d4r_init || nv_init(0) != 0 || d4r_init(0) != 0) {
        std::fprintf(stderr, "driver_forwarding_probe: cuInit or cuGetProcAddress_v2 missing or failing\n");
        return 2;
    }
    std::ifstream in(argv[3]);
    std::vector<std::string> names;
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) names.push_back(line);
    int missing_exports = 0, differ = 0, found = 0, asked = 0;
    for (const std::string& name : names) {
        if (!dlsym(d4r, name.c_str())) {
            std::printf("not exported by libd4rcuda: %s\n", name.c_str());
            ++missing_exports;
        }
        for (int version : {12000, 13000})
            for (unsigned long long flags : {0ull, 1ull}) {
                void *a = nullptr, *b = nullptr;
                int sa = -1, sb = -1;
                const int ra = nv_proc(name.c_str(), &a, version, flags, &sa);
                const int rb = d4r_proc(name.c_str(), &b, version, flags, &sb);
                const bool fa = ra == 0 && sa == 0 && a, fb = rb == 0 && sb == 0 && b;
                ++asked;
                found += fa;
                if (fa != fb) {
                    std::printf("differs: %s at %d flags %llu: NVIDIA %s, d4r %s\n", name.c_str(), version, flags,
                                fa ? "found" : "not found", fb ? "found" : "not found");
                    ++differ;
                }
            }
    }
    std::printf("%zu names, %d questions (%d found on NVIDIA's driver): %d answers differ, %d names not exported\n",
                names.size(), asked, found, differ, missing_exports);
    return differ || missing_exports ? 1 : 0;
}
