/* d4r's own entry point d4rFuncIsNative (abi/d4r_extensions.h), looked up and called as the open NGX core looks it
 * up: by name on the CUDA library it runs on (dlsym on Linux, GetProcAddress on nvcuda.dll under Wine: the bridge,
 * which forwards it to libd4rcuda). Built for Linux against libd4rcuda and for Windows against nvcuda.dll: the two
 * runs must print the same, and each checks the answers itself.
 *   func_is_native BLOCK.ptx OTHER.ptx EXPECTED
 * BLOCK.ptx: the refine network's refine_block.ptx (d4r_nn_block); OTHER.ptx: vector_ops.ptx (vector_add, which
 * no kernel set serves). EXPECTED: 1 when the active kernel set (D4R_NATIVE_KERNEL_DIR) serves d4r_nn_block, 0
 * when there is none. */
#include <stdint.h>
#include <string.h>

#include "abi/d4r_extensions.h"
#include "program_util.h"

#ifdef _WIN32
#include <windows.h>
static void* find_extension(const char* name) {
    return reinterpret_cast<void*>(GetProcAddress(GetModuleHandleA("nvcuda.dll"), name));
}
#else
#include <dlfcn.h>
static void* find_extension(const char* name) { return dlsym(RTLD_DEFAULT, name); }
#endif

static const char* name_of(CUresult r) {
    const char* name = NULL;
    cuGetErrorName(r, &name);
    return name ? name : "?";
}

static d4r::abi::PFN_d4rFuncIsNative g_is_native = NULL;

/* Asks about F; prints and returns the answer (-1 when the call failed). */
static int ask(const char* what, CUfunction f) {
    int native = 7;
    CUresult r = g_is_native(&native, f);
    printf("%s: %s, native %d\n", what, name_of(r), native);
    return r == CUDA_SUCCESS ? native : -1;
}

static CUfunction function_of(const char* ptx_path, const char* name, CUmodule* module) {
    char* ptx = read_text_file(ptx_path);
    CHECK(cuModuleLoadData(module, ptx));
    free(ptx);
    CUfunction f = NULL;
    CHECK(cuModuleGetFunction(&f, *module, name));
    return f;
}

int main(int argc, char** argv) {
    if (argc != 4 || (strcmp(argv[3], "0") != 0 && strcmp(argv[3], "1") != 0)) {
        fprintf(stderr, "usage: func_is_native BLOCK.ptx OTHER.ptx 0|1\n");
        return 2;
    }
    const int expected = argv[3][0] - '0';
    g_is_native = reinterpret_cast<d4r::abi::PFN_d4rFuncIsNative>(find_extension(d4r::abi::kFuncIsNative));
    EXPECT(g_is_native != NULL);
    printf("%s: exported\n", d4r::abi::kFuncIsNative);

    /* The refusals, before cuInit too: a null out-pointer, and a null function (the answer cleared first). */
    EXPECT_RESULT(g_is_native(NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    printf("null out-pointer: %s\n", name_of(g_is_native(NULL, NULL)));
    EXPECT(ask("null function", NULL) == -1);

    CHECK(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    EXPECT(ask("null function after cuInit", NULL) == -1);

    CUmodule block_module = NULL, other_module = NULL;
    CUfunction block = function_of(argv[1], "d4r_nn_block", &block_module);
    CUfunction other = function_of(argv[2], "vector_add", &other_module);
    EXPECT(ask("d4r_nn_block", block) == expected);
    EXPECT(ask("vector_add", other) == 0);
    /* A handle libd4rcuda never gave out is not native (nothing reads through it). */
    static int not_a_function = 0;
    EXPECT(ask("a handle the library never gave out", reinterpret_cast<CUfunction>(&not_a_function)) == 0);

    /* cuGetProcAddress knows only NVIDIA's names: the extension is found by its export, not through it. */
    void* pfn = NULL;
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SUCCESS;
    CUresult r = cuGetProcAddress(d4r::abi::kFuncIsNative, &pfn, 13000, 0, &status);
    printf("cuGetProcAddress(%s): %s, status %d\n", d4r::abi::kFuncIsNative, name_of(r), (int)status);
    EXPECT(pfn == NULL && status == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);

    CHECK(cuModuleUnload(block_module));
    CHECK(cuModuleUnload(other_module));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    printf("done\n");
    return 0;
}
