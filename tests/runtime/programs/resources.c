/* The driver API groups around kernels besides plain launches: CUDA arrays (2D and 3D, copies to and from
 * host and device memory), texture objects (arrays, pitch-linear and linear memory; point sampling with
 * clamp and with normalised wrap), surface objects, libraries (cuLibrary*, cuKernelGetFunction), function
 * attributes and occupancy, cuLaunchKernelEx and dynamic shared memory, module loading with JIT logs and
 * from a fatbin, module globals (__constant__ and __device__), context limits, mapped and registered host
 * memory, and the error codes for bad input (each measured on NVIDIA's driver 580 on an H200).
 * Usage: resources RESOURCES.ptx RESOURCES.fatbin. Prints "resources: ok" and exits 0 on success. */
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "program_util.h"

static CUmodule g_module;

static CUfunction function(CUmodule m, const char* name) {
    CUfunction f;
    CHECK(cuModuleGetFunction(&f, m, name));
    return f;
}

/* N threads in blocks of 64, waited for. */
static void launch_1d(CUfunction f, int n, void** params) {
    CHECK(cuLaunchKernel(f, (unsigned)(n + 63) / 64, 1, 1, 64, 1, 1, 0, NULL, params, NULL));
    CHECK(cuCtxSynchronize());
}

static CUdeviceptr upload(const void* data, size_t bytes) {
    CUdeviceptr p;
    CHECK(cuMemAlloc(&p, bytes));
    CHECK(cuMemcpyHtoD(p, data, bytes));
    return p;
}

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

static void copy_2d(CUDA_MEMCPY2D* c) { CHECK(cuMemcpy2D(c)); }

static CUDA_TEXTURE_DESC point_clamp(unsigned int flags) {
    CUDA_TEXTURE_DESC t;
    memset(&t, 0, sizeof t);
    t.addressMode[0] = t.addressMode[1] = t.addressMode[2] = CU_TR_ADDRESS_MODE_CLAMP;
    t.filterMode = CU_TR_FILTER_MODE_POINT;
    t.flags = flags;
    return t;
}

static CUDA_RESOURCE_DESC array_resource(CUarray a) {
    CUDA_RESOURCE_DESC r;
    memset(&r, 0, sizeof r);
    r.resType = CU_RESOURCE_TYPE_ARRAY;
    r.res.array.hArray = a;
    return r;
}

/* ---- A float4 2D array: copies host -> array -> device -> host, and two texture objects over it. ---- */

enum { FW = 16, FH = 8, NS = 60 };

static void float4_array(void) {
    static float texels[FH][FW][4];
    for (int y = 0; y < FH; ++y)
        for (int x = 0; x < FW; ++x) {
            texels[y][x][0] = (float)x + 0.25f * (float)y;
            texels[y][x][1] = -(float)y;
            texels[y][x][2] = (float)(x * y) * 0.5f;
            texels[y][x][3] = (float)(100 + x + 16 * y);
        }
    CUDA_ARRAY_DESCRIPTOR d = {FW, FH, CU_AD_FORMAT_FLOAT, 4};
    CUarray arr;
    CHECK(cuArrayCreate(&arr, &d));
    CUDA_ARRAY_DESCRIPTOR got;
    CHECK(cuArrayGetDescriptor(&got, arr));
    EXPECT(got.Width == FW && got.Height == FH && got.Format == CU_AD_FORMAT_FLOAT && got.NumChannels == 4);
    CUDA_ARRAY3D_DESCRIPTOR got3;
    CHECK(cuArray3DGetDescriptor(&got3, arr));
    EXPECT(got3.Width == FW && got3.Height == FH && got3.Depth == 0 && got3.NumChannels == 4 && got3.Flags == 0);

    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = texels;
    c.srcPitch = FW * 16;
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c.dstArray = arr;
    c.WidthInBytes = FW * 16;
    c.Height = FH;
    copy_2d(&c);

    /* Window x 2..13, y 1..6 of the array into pitched device memory, then back to the host. */
    CUdeviceptr pitched;
    size_t pitch = 0;
    CHECK(cuMemAllocPitch(&pitched, &pitch, 12 * 16, 6, 16));
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    c.srcArray = arr;
    c.srcXInBytes = 2 * 16;
    c.srcY = 1;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = pitched;
    c.dstPitch = pitch;
    c.WidthInBytes = 12 * 16;
    c.Height = 6;
    copy_2d(&c);
    static float window[6][12][4];
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    c.srcDevice = pitched;
    c.srcPitch = pitch;
    c.dstMemoryType = CU_MEMORYTYPE_HOST;
    c.dstHost = window;
    c.dstPitch = 12 * 16;
    c.WidthInBytes = 12 * 16;
    c.Height = 6;
    copy_2d(&c);
    for (int y = 0; y < 6; ++y)
        for (int x = 0; x < 12; ++x) EXPECT(memcmp(window[y][x], texels[y + 1][x + 2], 16) == 0);
    dump_output("float4_array_window", window, sizeof window);

    /* Point sampling, unnormalised coordinates, clamp: texel (clamp(floor(u)), clamp(floor(v))). The
     * fractions are multiples of 1/4, exact in any fixed-point coordinate format. */
    static const float us[10] = {-3.25f, -0.75f, 0.25f, 0.5f, 1.75f, 7.5f, 15.25f, 15.75f, 16.25f, 40.5f};
    static const float vs[6] = {-1.5f, 0.25f, 3.75f, 7.5f, 8.25f, 100.25f};
    float coords[NS][2];
    int expect_x[NS], expect_y[NS];
    for (int i = 0; i < NS; ++i) {
        coords[i][0] = us[i % 10];
        coords[i][1] = vs[i / 10];
        expect_x[i] = clampi((int)floorf(coords[i][0]), 0, FW - 1);
        expect_y[i] = clampi((int)floorf(coords[i][1]), 0, FH - 1);
    }
    CUDA_RESOURCE_DESC res = array_resource(arr);
    CUDA_TEXTURE_DESC td = point_clamp(0);
    CUtexObject tex;
    CHECK(cuTexObjectCreate(&tex, &res, &td, NULL));
    CUDA_RESOURCE_DESC back;
    memset(&back, 0, sizeof back);
    CHECK(cuTexObjectGetResourceDesc(&back, tex));
    EXPECT(back.resType == CU_RESOURCE_TYPE_ARRAY && back.res.array.hArray == arr);

    CUfunction sample = function(g_module, "tex2d_float4");
    CUdeviceptr dcoords = upload(coords, sizeof coords);
    CUdeviceptr dout;
    CHECK(cuMemAlloc(&dout, NS * 16));
    int n = NS;
    void* params[] = {&tex, &dcoords, &dout, &n};
    launch_1d(sample, NS, params);
    static float out[NS][4];
    CHECK(cuMemcpyDtoH(out, dout, sizeof out));
    for (int i = 0; i < NS; ++i) EXPECT(memcmp(out[i], texels[expect_y[i]][expect_x[i]], 16) == 0);
    dump_output("tex2d_point_clamp", out, sizeof out);

    /* Normalised coordinates with wrap: u = (i + f) / 16 + k for whole periods k, negative ones too, reads
     * texel i (dyadic fractions: exact). */
    for (int s = 0; s < NS; ++s) {
        int i = (s * 7) % FW, j = (s * 3) % FH;
        float fu = 0.25f * (float)(1 + s % 3), fv = 0.25f * (float)(1 + (s / 3) % 3);
        coords[s][0] = ((float)i + fu) / FW + (float)(s % 5 - 2);
        coords[s][1] = ((float)j + fv) / FH + (float)(s % 4 - 1);
        expect_x[s] = i;
        expect_y[s] = j;
    }
    CHECK(cuMemcpyHtoD(dcoords, coords, sizeof coords));
    td.addressMode[0] = td.addressMode[1] = CU_TR_ADDRESS_MODE_WRAP;
    td.flags = CU_TRSF_NORMALIZED_COORDINATES;
    CUtexObject wrap;
    CHECK(cuTexObjectCreate(&wrap, &res, &td, NULL));
    void* wrap_params[] = {&wrap, &dcoords, &dout, &n};
    launch_1d(sample, NS, wrap_params);
    CHECK(cuMemcpyDtoH(out, dout, sizeof out));
    for (int s = 0; s < NS; ++s) EXPECT(memcmp(out[s], texels[expect_y[s]][expect_x[s]], 16) == 0);
    dump_output("tex2d_point_wrap_normalized", out, sizeof out);

    /* A destroyed texture object is gone. */
    CHECK(cuTexObjectDestroy(wrap));
    EXPECT_RESULT(cuTexObjectGetResourceDesc(&back, wrap), CUDA_ERROR_INVALID_VALUE);
    /* A texture description is required; filter and address modes must be known ones. */
    CUtexObject bad;
    EXPECT_RESULT(cuTexObjectCreate(&bad, &res, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    CUDA_TEXTURE_DESC bad_td = point_clamp(0);
    bad_td.filterMode = (CUfilter_mode)7;
    EXPECT_RESULT(cuTexObjectCreate(&bad, &res, &bad_td, NULL), CUDA_ERROR_INVALID_VALUE);
    bad_td = point_clamp(0);
    bad_td.addressMode[0] = (CUaddress_mode)9;
    EXPECT_RESULT(cuTexObjectCreate(&bad, &res, &bad_td, NULL), CUDA_ERROR_INVALID_VALUE);

    CHECK(cuTexObjectDestroy(tex));
    CHECK(cuMemFree(dcoords));
    CHECK(cuMemFree(dout));
    CHECK(cuMemFree(pitched));
    CHECK(cuArrayDestroy(arr));
}

/* ---- A uchar4 2D array read as integers and as normalised floats. ---- */

enum { UW = 24, UH = 10 };

static void uchar4_array(void) {
    static unsigned char texels[UH][UW][4];
    for (int y = 0; y < UH; ++y)
        for (int x = 0; x < UW; ++x) {
            texels[y][x][0] = (unsigned char)(x * 7 + y);
            texels[y][x][1] = (unsigned char)(y * 13 + x * 3);
            texels[y][x][2] = (unsigned char)(x ^ y);
            texels[y][x][3] = (unsigned char)(255 - x * 10 - y);
        }
    CUDA_ARRAY_DESCRIPTOR d = {UW, UH, CU_AD_FORMAT_UNSIGNED_INT8, 4};
    CUarray arr;
    CHECK(cuArrayCreate(&arr, &d));
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = texels;
    c.srcPitch = UW * 4;
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c.dstArray = arr;
    c.WidthInBytes = UW * 4;
    c.Height = UH;
    copy_2d(&c);
    /* A copy past the array's edge is refused. */
    c.Height = UH + 1;
    EXPECT_RESULT(cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);
    c.Height = UH;
    c.dstXInBytes = 4;
    EXPECT_RESULT(cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);

    enum { N = 40 };
    float coords[N][2];
    int ex[N], ey[N];
    for (int i = 0; i < N; ++i) {
        coords[i][0] = (float)(i * 5 % 31) - 3.5f; /* -3.5 .. 27.5: both edges clamp */
        coords[i][1] = (float)(i * 3 % 14) - 1.75f;
        ex[i] = clampi((int)floorf(coords[i][0]), 0, UW - 1);
        ey[i] = clampi((int)floorf(coords[i][1]), 0, UH - 1);
    }
    CUdeviceptr dcoords = upload(coords, sizeof coords);
    CUdeviceptr dout;
    CHECK(cuMemAlloc(&dout, N * 16));
    int n = N;
    CUDA_RESOURCE_DESC res = array_resource(arr);

    CUDA_TEXTURE_DESC td = point_clamp(CU_TRSF_READ_AS_INTEGER);
    CUtexObject as_int;
    CHECK(cuTexObjectCreate(&as_int, &res, &td, NULL));
    void* params[] = {&as_int, &dcoords, &dout, &n};
    launch_1d(function(g_module, "tex2d_uchar4"), N, params);
    unsigned char got[N][4];
    CHECK(cuMemcpyDtoH(got, dout, sizeof got));
    for (int i = 0; i < N; ++i) EXPECT(memcmp(got[i], texels[ey[i]][ex[i]], 4) == 0);
    dump_output("tex2d_uchar4_integer", got, sizeof got);

    /* Without READ_AS_INTEGER 8-bit texels read as n / 255. */
    td = point_clamp(0);
    CUtexObject as_float;
    CHECK(cuTexObjectCreate(&as_float, &res, &td, NULL));
    void* fparams[] = {&as_float, &dcoords, &dout, &n};
    launch_1d(function(g_module, "tex2d_float4"), N, fparams);
    float gotf[N][4];
    CHECK(cuMemcpyDtoH(gotf, dout, sizeof gotf));
    for (int i = 0; i < N; ++i)
        for (int ch = 0; ch < 4; ++ch) EXPECT(gotf[i][ch] == (float)texels[ey[i]][ex[i]][ch] / 255.0f);
    dump_output("tex2d_uchar4_normalized_float", gotf, sizeof gotf);

    CHECK(cuTexObjectDestroy(as_int));
    CHECK(cuTexObjectDestroy(as_float));
    CHECK(cuMemFree(dcoords));
    CHECK(cuMemFree(dout));
    CHECK(cuArrayDestroy(arr));
}

/* ---- Texture objects over pitch-linear and linear device memory. ---- */

static void memory_textures(void) {
    enum { W = 20, H = 6 };
    float img[H][W];
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) img[y][x] = (float)x * 1.5f - (float)y * 3.0f + 0.125f;
    CUdeviceptr pitched;
    size_t pitch = 0;
    CHECK(cuMemAllocPitch(&pitched, &pitch, W * 4, H, 4));
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = img;
    c.srcPitch = W * 4;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = pitched;
    c.dstPitch = pitch;
    c.WidthInBytes = W * 4;
    c.Height = H;
    copy_2d(&c);
    CUDA_RESOURCE_DESC res;
    memset(&res, 0, sizeof res);
    res.resType = CU_RESOURCE_TYPE_PITCH2D;
    res.res.pitch2D.devPtr = pitched;
    res.res.pitch2D.format = CU_AD_FORMAT_FLOAT;
    res.res.pitch2D.numChannels = 1;
    res.res.pitch2D.width = W;
    res.res.pitch2D.height = H;
    res.res.pitch2D.pitchInBytes = pitch;
    CUDA_TEXTURE_DESC td = point_clamp(0);
    CUtexObject tex;
    CHECK(cuTexObjectCreate(&tex, &res, &td, NULL));
    CUDA_RESOURCE_DESC back;
    memset(&back, 0, sizeof back);
    CHECK(cuTexObjectGetResourceDesc(&back, tex));
    EXPECT(back.resType == CU_RESOURCE_TYPE_PITCH2D && back.res.pitch2D.devPtr == pitched &&
           back.res.pitch2D.format == CU_AD_FORMAT_FLOAT && back.res.pitch2D.numChannels == 1 &&
           back.res.pitch2D.width == W && back.res.pitch2D.height == H && back.res.pitch2D.pitchInBytes == pitch);

    static const float us[7] = {-2.5f, 0.25f, 3.5f, 10.75f, 19.5f, 19.75f, 25.25f};
    static const float vs[4] = {-0.25f, 2.5f, 5.75f, 9.5f};
    enum { N = 28 };
    float coords[N][2], out[N];
    CUdeviceptr dcoords, dout;
    for (int i = 0; i < N; ++i) {
        coords[i][0] = us[i % 7];
        coords[i][1] = vs[i / 7];
    }
    dcoords = upload(coords, sizeof coords);
    CHECK(cuMemAlloc(&dout, sizeof out));
    int n = N;
    void* params[] = {&tex, &dcoords, &dout, &n};
    launch_1d(function(g_module, "tex2d_float"), N, params);
    CHECK(cuMemcpyDtoH(out, dout, sizeof out));
    for (int i = 0; i < N; ++i) {
        int x = clampi((int)floorf(coords[i][0]), 0, W - 1), y = clampi((int)floorf(coords[i][1]), 0, H - 1);
        EXPECT(out[i] == img[y][x]);
    }
    dump_output("tex2d_pitch2d", out, sizeof out);
    CHECK(cuTexObjectDestroy(tex));
    CHECK(cuMemFree(dcoords));
    CHECK(cuMemFree(dout));
    CHECK(cuMemFree(pitched));

    /* Linear memory read with tex1Dfetch at in-range indices. */
    enum { L = 300, K = 128 };
    float values[L], fetched[K];
    int index[K];
    for (int i = 0; i < L; ++i) values[i] = (float)i * 0.5f - 17.0f;
    for (int k = 0; k < K; ++k) index[k] = (k * 37) % L;
    CUdeviceptr dvalues = upload(values, sizeof values), dindex = upload(index, sizeof index), dfetched;
    CHECK(cuMemAlloc(&dfetched, sizeof fetched));
    memset(&res, 0, sizeof res);
    res.resType = CU_RESOURCE_TYPE_LINEAR;
    res.res.linear.devPtr = dvalues;
    res.res.linear.format = CU_AD_FORMAT_FLOAT;
    res.res.linear.numChannels = 1;
    res.res.linear.sizeInBytes = sizeof values;
    CUtexObject linear;
    CHECK(cuTexObjectCreate(&linear, &res, &td, NULL));
    memset(&back, 0, sizeof back);
    CHECK(cuTexObjectGetResourceDesc(&back, linear));
    EXPECT(back.resType == CU_RESOURCE_TYPE_LINEAR && back.res.linear.devPtr == dvalues &&
           back.res.linear.sizeInBytes == sizeof values && back.res.linear.numChannels == 1);
    int k_count = K;
    void* lparams[] = {&linear, &dindex, &dfetched, &k_count};
    launch_1d(function(g_module, "tex1d_fetch"), K, lparams);
    CHECK(cuMemcpyDtoH(fetched, dfetched, sizeof fetched));
    for (int k = 0; k < K; ++k) EXPECT(fetched[k] == values[index[k]]);
    dump_output("tex1d_fetch_linear", fetched, sizeof fetched);
    /* Linear memory at address 0 is no resource. */
    res.res.linear.devPtr = 0;
    CUtexObject bad;
    EXPECT_RESULT(cuTexObjectCreate(&bad, &res, &td, NULL), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuTexObjectDestroy(linear));
    CHECK(cuMemFree(dvalues));
    CHECK(cuMemFree(dindex));
    CHECK(cuMemFree(dfetched));
}

/* ---- A surface object written by a kernel, read back with cuMemcpy2D. ---- */

static void surfaces(void) {
    enum { W = 40, H = 12 };
    CUDA_ARRAY3D_DESCRIPTOR d;
    memset(&d, 0, sizeof d);
    d.Width = W;
    d.Height = H;
    d.Format = CU_AD_FORMAT_UNSIGNED_INT8;
    d.NumChannels = 4;
    d.Flags = CUDA_ARRAY3D_SURFACE_LDST;
    CUarray arr;
    CHECK(cuArray3DCreate(&arr, &d));
    CUDA_ARRAY3D_DESCRIPTOR got;
    CHECK(cuArray3DGetDescriptor(&got, arr));
    EXPECT(got.Width == W && got.Height == H && got.Depth == 0 && got.Flags == CUDA_ARRAY3D_SURFACE_LDST);
    CUDA_RESOURCE_DESC res = array_resource(arr);
    CUsurfObject surf;
    CHECK(cuSurfObjectCreate(&surf, &res));
    CUDA_RESOURCE_DESC back;
    memset(&back, 0, sizeof back);
    CHECK(cuSurfObjectGetResourceDesc(&back, surf));
    EXPECT(back.resType == CU_RESOURCE_TYPE_ARRAY && back.res.array.hArray == arr);
    int w = W, h = H;
    void* params[] = {&surf, &w, &h};
    CHECK(cuLaunchKernel(function(g_module, "surf_write_uchar4"), (W + 15) / 16, (H + 7) / 8, 1, 16, 8, 1, 0, NULL,
                         params, NULL));
    CHECK(cuCtxSynchronize());
    unsigned char texels[H][W][4];
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    c.srcArray = arr;
    c.dstMemoryType = CU_MEMORYTYPE_HOST;
    c.dstHost = texels;
    c.dstPitch = W * 4;
    c.WidthInBytes = W * 4;
    c.Height = H;
    copy_2d(&c);
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            const unsigned char* t = texels[y][x];
            EXPECT(t[0] == x && t[1] == y && t[2] == (x ^ y) && t[3] == 255 - x);
        }
    dump_output("surf2d_write", texels, sizeof texels);
    CHECK(cuSurfObjectDestroy(surf));
    EXPECT_RESULT(cuSurfObjectGetResourceDesc(&back, surf), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuArrayDestroy(arr));
}

/* ---- A 3D array: host -> array, a sub-box array -> host, the whole array -> device. ---- */

static void array_3d(void) {
    enum { W = 8, H = 5, D = 3 };
    static unsigned short vox[D][H][W][2];
    for (int z = 0; z < D; ++z)
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x)
                for (int ch = 0; ch < 2; ++ch) vox[z][y][x][ch] = (unsigned short)(z * 1000 + y * 100 + x * 10 + ch);
    CUDA_ARRAY3D_DESCRIPTOR d;
    memset(&d, 0, sizeof d);
    d.Width = W;
    d.Height = H;
    d.Depth = D;
    d.Format = CU_AD_FORMAT_UNSIGNED_INT16;
    d.NumChannels = 2;
    CUarray arr;
    CHECK(cuArray3DCreate(&arr, &d));
    CUDA_ARRAY3D_DESCRIPTOR got;
    CHECK(cuArray3DGetDescriptor(&got, arr));
    EXPECT(got.Width == W && got.Height == H && got.Depth == D && got.Format == CU_AD_FORMAT_UNSIGNED_INT16 &&
           got.NumChannels == 2 && got.Flags == 0);
    CUDA_ARRAY_DESCRIPTOR got2;
    CHECK(cuArrayGetDescriptor(&got2, arr));
    EXPECT(got2.Width == W && got2.Height == H && got2.Format == CU_AD_FORMAT_UNSIGNED_INT16 && got2.NumChannels == 2);

    CUDA_MEMCPY3D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = vox;
    c.srcPitch = W * 4;
    c.srcHeight = H;
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c.dstArray = arr;
    c.WidthInBytes = W * 4;
    c.Height = H;
    c.Depth = D;
    CHECK(cuMemcpy3D(&c));

    /* x 2..5, y 1..3, z 1..2 into a tight host box. */
    unsigned short box[2][3][4][2];
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    c.srcArray = arr;
    c.srcXInBytes = 2 * 4;
    c.srcY = 1;
    c.srcZ = 1;
    c.dstMemoryType = CU_MEMORYTYPE_HOST;
    c.dstHost = box;
    c.dstPitch = 4 * 4;
    c.dstHeight = 3;
    c.WidthInBytes = 4 * 4;
    c.Height = 3;
    c.Depth = 2;
    CHECK(cuMemcpy3D(&c));
    for (int z = 0; z < 2; ++z)
        for (int y = 0; y < 3; ++y)
            for (int x = 0; x < 4; ++x) EXPECT(memcmp(box[z][y][x], vox[z + 1][y + 1][x + 2], 4) == 0);
    dump_output("array3d_box", box, sizeof box);

    /* The whole array into device memory with a wider pitch, then back. */
    enum { PITCH = 64 };
    CUdeviceptr dev;
    CHECK(cuMemAlloc(&dev, PITCH * H * D));
    CHECK(cuMemsetD8(dev, 0xee, PITCH * H * D));
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    c.srcArray = arr;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = dev;
    c.dstPitch = PITCH;
    c.dstHeight = H;
    c.WidthInBytes = W * 4;
    c.Height = H;
    c.Depth = D;
    CHECK(cuMemcpy3D(&c));
    static unsigned char linear[D][H][PITCH];
    CHECK(cuMemcpyDtoH(linear, dev, sizeof linear));
    for (int z = 0; z < D; ++z)
        for (int y = 0; y < H; ++y) {
            EXPECT(memcmp(linear[z][y], vox[z][y], W * 4) == 0);
            for (int b = W * 4; b < PITCH; ++b) EXPECT(linear[z][y][b] == 0xee);
        }
    dump_output("array3d_to_device", linear, sizeof linear);
    CHECK(cuMemFree(dev));
    CHECK(cuArrayDestroy(arr));
}

/* ---- Arrays refused: no width, no such format, unsupported channel counts. ---- */

static void bad_arrays(void) {
    CUarray arr;
    CUDA_ARRAY_DESCRIPTOR d = {0, 4, CU_AD_FORMAT_FLOAT, 1};
    EXPECT_RESULT(cuArrayCreate(&arr, &d), CUDA_ERROR_INVALID_VALUE);
    d.Width = 4;
    d.Format = (CUarray_format)0x7f;
    EXPECT_RESULT(cuArrayCreate(&arr, &d), CUDA_ERROR_INVALID_VALUE);
    d.Format = CU_AD_FORMAT_FLOAT;
    d.NumChannels = 3;
    EXPECT_RESULT(cuArrayCreate(&arr, &d), CUDA_ERROR_INVALID_VALUE);
    d.NumChannels = 0;
    EXPECT_RESULT(cuArrayCreate(&arr, &d), CUDA_ERROR_INVALID_VALUE);
    /* Height 0 is a 1D array. */
    d.NumChannels = 2;
    d.Height = 0;
    CHECK(cuArrayCreate(&arr, &d));
    CHECK(cuArrayDestroy(arr));
}

/* ---- Module globals, JIT logs, a fatbin, and a library of the same kernels. ---- */

static void check_affine(CUfunction f, CUdeviceptr coeffs_ptr, float a, float b) {
    enum { N = 200 };
    float in[N], out[N], coeffs[2] = {a, b};
    for (int i = 0; i < N; ++i) in[i] = (float)i * 0.375f - 30.0f;
    CHECK(cuMemcpyHtoD(coeffs_ptr, coeffs, sizeof coeffs));
    CUdeviceptr din = upload(in, sizeof in), dout;
    CHECK(cuMemAlloc(&dout, sizeof out));
    int n = N;
    void* params[] = {&din, &dout, &n};
    launch_1d(f, N, params);
    CHECK(cuMemcpyDtoH(out, dout, sizeof out));
    for (int i = 0; i < N; ++i) EXPECT(out[i] == fmaf(in[i], a, b));
    CHECK(cuMemFree(din));
    CHECK(cuMemFree(dout));
}

static unsigned int read_u32(CUdeviceptr p) {
    unsigned int v = 0;
    CHECK(cuMemcpyDtoH(&v, p, 4));
    return v;
}

static void modules(const char* ptx, const char* fatbin) {
    /* JIT logs: empty on success (zero bytes used), ptxas' complaint for broken PTX. */
    char info[1024], error[1024];
    memset(info, 0, sizeof info);
    memset(error, 0, sizeof error);
    CUjit_option options[4] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
                               CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* values[4] = {info, (void*)(uintptr_t)sizeof info, error, (void*)(uintptr_t)sizeof error};
    CUmodule m;
    CHECK(cuModuleLoadDataEx(&m, ptx, 4, options, values));
    EXPECT((uintptr_t)values[3] == 0 && error[0] == 0);
    EXPECT((uintptr_t)values[1] < sizeof info);
    const char* broken = ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry broken()\n{\n"
                         "\tfrobnicate.b32 %r1;\n\tret;\n}\n";
    values[1] = (void*)(uintptr_t)sizeof info;
    values[3] = (void*)(uintptr_t)sizeof error;
    CUmodule none;
    EXPECT_RESULT(cuModuleLoadDataEx(&none, broken, 4, options, values), CUDA_ERROR_INVALID_PTX);
    EXPECT(strlen(error) > 0 && (uintptr_t)values[3] > 0 && (uintptr_t)values[3] <= sizeof error);

    /* A __constant__ and a __device__ variable. */
    CUdeviceptr coeffs, launches;
    size_t bytes = 0;
    CHECK(cuModuleGetGlobal(&coeffs, &bytes, m, "coeffs"));
    EXPECT(bytes == 8);
    CHECK(cuModuleGetGlobal(&launches, &bytes, m, "affine_launches"));
    EXPECT(bytes == 4);
    CUdeviceptr missing;
    size_t missing_bytes;
    EXPECT_RESULT(cuModuleGetGlobal(&missing, &missing_bytes, m, "no_such_variable"), CUDA_ERROR_NOT_FOUND);
    CUfunction affine = function(m, "affine");
    check_affine(affine, coeffs, 2.5f, -1.0f);
    check_affine(affine, coeffs, -0.125f, 7.0f);
    EXPECT(read_u32(launches) == 2);
    CUmodule owner;
    CHECK(cuFuncGetModule(&owner, affine));
    EXPECT(owner == m);
    CHECK(cuModuleUnload(m));

    /* The same kernels from a fatbin (PTX only): its own variables. */
    CUmodule fat;
    CHECK(cuModuleLoadFatBinary(&fat, fatbin));
    CHECK(cuModuleGetGlobal(&coeffs, &bytes, fat, "coeffs"));
    CHECK(cuModuleGetGlobal(&launches, &bytes, fat, "affine_launches"));
    check_affine(function(fat, "affine"), coeffs, 3.0f, 0.5f);
    EXPECT(read_u32(launches) == 1);
    CHECK(cuModuleUnload(fat));

    /* A library: kernels, its module and its globals. */
    CUlibrary lib;
    CHECK(cuLibraryLoadData(&lib, ptx, NULL, NULL, 0, NULL, NULL, 0));
    CUkernel kernel;
    CHECK(cuLibraryGetKernel(&kernel, lib, "affine"));
    EXPECT_RESULT(cuLibraryGetKernel(&kernel, lib, "no_such_kernel"), CUDA_ERROR_NOT_FOUND);
    CHECK(cuLibraryGetKernel(&kernel, lib, "affine"));
    CUfunction lf;
    CHECK(cuKernelGetFunction(&lf, kernel));
    CHECK(cuLibraryGetGlobal(&coeffs, &bytes, lib, "coeffs"));
    EXPECT(bytes == 8);
    CHECK(cuLibraryGetGlobal(&launches, &bytes, lib, "affine_launches"));
    EXPECT(bytes == 4);
    EXPECT_RESULT(cuLibraryGetGlobal(&missing, &missing_bytes, lib, "no_such_variable"), CUDA_ERROR_NOT_FOUND);
    check_affine(lf, coeffs, 1.5f, 2.0f);
    CUmodule lm;
    CHECK(cuLibraryGetModule(&lm, lib));
    check_affine(function(lm, "affine"), coeffs, -4.0f, 0.25f);
    EXPECT(read_u32(launches) == 2); /* one module: the library's */
    CHECK(cuLibraryUnload(lib));
}

/* ---- Function attributes, occupancy, cuLaunchKernelEx and shared memory, static and dynamic. ---- */

static void functions(void) {
    CUfunction reverse = function(g_module, "block_reverse"), dynamic = function(g_module, "dynamic_reverse");
    const char* name = NULL;
    CHECK(cuFuncGetName(&name, reverse));
    EXPECT(strcmp(name, "block_reverse") == 0);
    int v = -1;
    CHECK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, reverse));
    EXPECT(v == 256); /* __launch_bounds__(256) */
    CHECK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, dynamic));
    EXPECT(v == 1024);
    CHECK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, reverse));
    EXPECT(v == 1024);
    CHECK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, dynamic));
    EXPECT(v == 0);
    CHECK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, reverse));
    EXPECT(v == 8); /* the module's __constant__ coeffs */
    CHECK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, reverse));
    EXPECT(v == 0);
    CHECK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, reverse));
    EXPECT(v >= 0 && v <= 255);
    CHECK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_BINARY_VERSION, reverse));
    EXPECT(v >= 80);
    /* The default dynamic shared memory limit: 48 KiB less the static shared memory. */
    CHECK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, reverse));
    EXPECT(v == 48 * 1024 - 1024);
    CHECK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, dynamic));
    EXPECT(v == 48 * 1024);
    EXPECT_RESULT(cuFuncGetAttribute(&v, (CUfunction_attribute)99, reverse), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RESULT(cuFuncSetAttribute(dynamic, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 128), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuFuncSetCacheConfig(reverse, CU_FUNC_CACHE_PREFER_SHARED));

    /* Static shared memory: each block of 256 reversed. */
    enum { BLOCKS = 5, N = BLOCKS * 256 };
    static int in[N], out[N];
    for (int i = 0; i < N; ++i) in[i] = i * 3 - 1000;
    CUdeviceptr din = upload(in, sizeof in), dout;
    CHECK(cuMemAlloc(&dout, sizeof out));
    void* params[] = {&din, &dout};
    CHECK(cuLaunchKernel(reverse, BLOCKS, 1, 1, 256, 1, 1, 0, NULL, params, NULL));
    /* More threads than __launch_bounds__ allows. */
    EXPECT_RESULT(cuLaunchKernel(reverse, 1, 1, 1, 512, 1, 1, 0, NULL, params, NULL), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuMemcpyDtoH(out, dout, sizeof out));
    for (int i = 0; i < N; ++i) EXPECT(out[i] == in[(i / 256) * 256 + 255 - i % 256]);
    dump_output("block_reverse", out, sizeof out);

    int blocks = -1, min_grid = -1, block_size = -1;
    CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, reverse, 256, 0));
    EXPECT(blocks >= 1 && blocks <= 8); /* 2048 threads per multiprocessor at most */
    CHECK(cuOccupancyMaxPotentialBlockSize(&min_grid, &block_size, reverse, NULL, 0, 0));
    EXPECT(block_size >= 32 && block_size <= 256 && block_size % 32 == 0 && min_grid >= 1);

    /* Dynamic shared memory beyond 48 KiB needs the opt-in attribute, for launches and occupancy alike. */
    enum { PER_BLOCK = 16384, DBLOCKS = 2, DN = PER_BLOCK * DBLOCKS }; /* 64 KiB a block */
    static int din_host[DN], dout_host[DN];
    for (int i = 0; i < DN; ++i) din_host[i] = (i * 7919) ^ 0x5a5a;
    CUdeviceptr dyn_in = upload(din_host, sizeof din_host), dyn_out;
    CHECK(cuMemAlloc(&dyn_out, sizeof dout_host));
    CUstream stream;
    CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    int per_block = PER_BLOCK;
    void* dparams[] = {&dyn_in, &dyn_out, &per_block};
    CUlaunchConfig config;
    memset(&config, 0, sizeof config);
    config.gridDimX = DBLOCKS;
    config.gridDimY = config.gridDimZ = 1;
    config.blockDimX = 256;
    config.blockDimY = config.blockDimZ = 1;
    config.sharedMemBytes = PER_BLOCK * 4;
    config.hStream = stream;
    EXPECT_RESULT(cuLaunchKernelEx(&config, dynamic, dparams, NULL), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, dynamic, 256, PER_BLOCK * 4));
    EXPECT(blocks == 0);
    EXPECT_RESULT(cuFuncSetAttribute(dynamic, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 227 * 1024 + 1),
                  CUDA_ERROR_INVALID_VALUE);
    EXPECT_RESULT(cuFuncSetAttribute(reverse, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 227 * 1024),
                  CUDA_ERROR_INVALID_VALUE); /* its 1 KiB of static shared memory counts */
    CHECK(cuFuncSetAttribute(dynamic, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, PER_BLOCK * 4));
    CHECK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, dynamic));
    EXPECT(v == PER_BLOCK * 4);
    CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, dynamic, 256, PER_BLOCK * 4));
    EXPECT(blocks >= 1 && blocks <= 3); /* 228 KiB of shared memory per multiprocessor at most */
    CHECK(cuLaunchKernelEx(&config, dynamic, dparams, NULL));
    CHECK(cuMemcpyDtoHAsync(dout_host, dyn_out, sizeof dout_host, stream));
    CHECK(cuStreamSynchronize(stream));
    for (int i = 0; i < DN; ++i)
        EXPECT(dout_host[i] == din_host[(i / PER_BLOCK) * PER_BLOCK + PER_BLOCK - 1 - i % PER_BLOCK]);
    dump_output("dynamic_reverse_64k", dout_host, sizeof dout_host);

    /* A small dynamic launch through cuLaunchKernel: 3 blocks of 1000 ints. */
    per_block = 1000;
    CHECK(cuLaunchKernel(dynamic, 3, 1, 1, 128, 1, 1, 1000 * 4, stream, dparams, NULL));
    CHECK(cuStreamSynchronize(stream));
    CHECK(cuMemcpyDtoH(dout_host, dyn_out, 3000 * 4));
    for (int i = 0; i < 3000; ++i) EXPECT(dout_host[i] == din_host[(i / 1000) * 1000 + 999 - i % 1000]);

    CHECK(cuStreamDestroy(stream));
    CHECK(cuMemFree(din));
    CHECK(cuMemFree(dout));
    CHECK(cuMemFree(dyn_in));
    CHECK(cuMemFree(dyn_out));
}

/* ---- Context limits. ---- */

static void limits(void) {
    size_t stack = 0, fifo = 0, v = 0;
    CHECK(cuCtxGetLimit(&stack, CU_LIMIT_STACK_SIZE));
    CHECK(cuCtxGetLimit(&fifo, CU_LIMIT_PRINTF_FIFO_SIZE));
    EXPECT(stack > 0 && fifo > 0);
    CHECK(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 4096));
    CHECK(cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE));
    EXPECT(v == 4096);
    CHECK(cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE, 2u << 20));
    CHECK(cuCtxGetLimit(&v, CU_LIMIT_PRINTF_FIFO_SIZE));
    EXPECT(v == 2u << 20);
    EXPECT_RESULT(cuCtxSetLimit((CUlimit)99, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RESULT(cuCtxGetLimit(&v, (CUlimit)99), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, stack));
    CHECK(cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE, fifo));
}

/* ---- Mapped host memory a kernel reads and writes, registered host memory for async copies. ---- */

static void host_memory(void) {
    enum { N = 256 };
    float *in = NULL, *out = NULL;
    CHECK(cuMemHostAlloc((void**)&in, N * sizeof(float), CU_MEMHOSTALLOC_DEVICEMAP));
    CHECK(cuMemHostAlloc((void**)&out, N * sizeof(float), CU_MEMHOSTALLOC_DEVICEMAP));
    for (int i = 0; i < N; ++i) {
        in[i] = (float)i * 0.25f + 1.0f;
        out[i] = -1.0f;
    }
    CUdeviceptr din = 0, dout = 0;
    CHECK(cuMemHostGetDevicePointer(&din, in, 0));
    CHECK(cuMemHostGetDevicePointer(&dout, out, 0));
    EXPECT(din != 0 && dout != 0);
    CUdeviceptr coeffs;
    size_t bytes = 0;
    CHECK(cuModuleGetGlobal(&coeffs, &bytes, g_module, "coeffs"));
    float c[2] = {4.0f, -3.0f};
    CHECK(cuMemcpyHtoD(coeffs, c, sizeof c));
    int n = N;
    void* params[] = {&din, &dout, &n};
    launch_1d(function(g_module, "affine"), N, params);
    for (int i = 0; i < N; ++i) EXPECT(out[i] == fmaf(in[i], 4.0f, -3.0f));
    dump_output("mapped_host_affine", out, N * sizeof(float));
    CHECK(cuMemFreeHost(in));
    CHECK(cuMemFreeHost(out));

    enum { BYTES = 8192 };
    unsigned char* reg = NULL;
    reg = (unsigned char*)page_aligned_alloc(BYTES);
    EXPECT(reg != NULL);
    for (int i = 0; i < BYTES; ++i) reg[i] = (unsigned char)(i * 31 + 7);
    CHECK(cuMemHostRegister(reg, BYTES, 0));
    CUstream s;
    CHECK(cuStreamCreate(&s, 0));
    CUdeviceptr d;
    CHECK(cuMemAlloc(&d, BYTES));
    CHECK(cuMemcpyHtoDAsync(d, reg, BYTES, s));
    CHECK(cuMemsetD8Async(d + 100, 0x42, 50, s));
    CHECK(cuMemcpyDtoHAsync(reg, d, BYTES, s));
    CHECK(cuStreamSynchronize(s));
    for (int i = 0; i < BYTES; ++i) EXPECT(reg[i] == (i >= 100 && i < 150 ? 0x42 : (unsigned char)(i * 31 + 7)));
    CHECK(cuMemHostUnregister(reg));
    EXPECT_RESULT(cuMemHostUnregister(reg), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    CHECK(cuStreamDestroy(s));
    CHECK(cuMemFree(d));
    page_aligned_free(reg);
}

int main(int argc, char** argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: resources RESOURCES.ptx RESOURCES.fatbin\n");
        return 2;
    }
    char* ptx = read_text_file(argv[1]);
    char* fatbin = read_text_file(argv[2]);
    CHECK(cuInit(0));
    CUdevice dev;
    CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CHECK(cuModuleLoadData(&g_module, ptx));

    float4_array();
    uchar4_array();
    memory_textures();
    surfaces();
    array_3d();
    bad_arrays();
    modules(ptx, fatbin);
    functions();
    limits();
    host_memory();

    CHECK(cuModuleUnload(g_module));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    free(ptx);
    free(fatbin);
    printf("resources: ok\n");
    return 0;
}
