// Runs the ptxsim golden corpus (tests/ptxsim/corpus) on an NVIDIA GPU through the CUDA driver API
// and writes one <case>.out per case: the raw bytes of its output buffers and output images in
// parameter order. Built on the device machine with g++ alone (no CUDA headers, no libraries
// beyond libdl): the driver is dlopen()ed and the few declarations it needs live in cuda_driver.h.
//
//   ptxsim_golden_runner --corpus DIR [--out DIR] [--case NAME]... [--list] [--dry-run]
//
// --dry-run replaces the GPU by host memory and does not launch anything: it checks the case table
// against the PTX, generates every input and exercises the whole flow (outputs stay poison).
#include "cuda_driver.h"

#include "../ptxsim/corpus/corpus.h"

#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace d4r::device {

using corpus::Case;
using corpus::ImageParam;

std::string CudaDriver::load(const char* library) {
    handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* why = dlerror();
        return std::string(library) + " not found (" + (why ? why : "dlopen failed") +
               "): this runner needs the NVIDIA driver";
    }
    std::string missing;
#define D4R_CUDA_RESOLVE(field, symbol, type)                     \
    field = reinterpret_cast<FnPtr<type>>(dlsym(handle, symbol)); \
    if (!field) missing += std::string(missing.empty() ? "" : ", ") + symbol;
    D4R_CUDA_DRIVER_FUNCS(D4R_CUDA_RESOLVE)
#undef D4R_CUDA_RESOLVE
    if (!missing.empty()) return std::string(library) + " lacks: " + missing;
    return "";
}

std::string CudaDriver::describe(const char* what, CUresult r) const {
    const char* name = nullptr;
    const char* text = nullptr;
    if (get_error_name) get_error_name(r, &name);
    if (get_error_string) get_error_string(r, &text);
    return std::string(what) + " failed: " + (name ? name : "CUDA error " + std::to_string(r)) +
           (text ? std::string(" (") + text + ")" : "");
}

#define D4R_CU(call)                                             \
    do {                                                         \
        CUresult r_ = (m_cu.call);                               \
        if (r_ != CUDA_SUCCESS) return m_cu.describe(#call, r_); \
    } while (0)

// ---- the GPU ---------------------------------------------------------------------------------

class CudaLauncher : public corpus::Launcher {
public:
    explicit CudaLauncher(CudaDriver& cu) : m_cu(cu) {}

    std::string open(int ordinal) {
        D4R_CU(init(0));
        D4R_CU(device_get(&m_device, ordinal));
        return open_context();
    }

    // After a launch failure the context may be unusable (sticky errors); start a fresh one.
    std::string reset() {
        release();
        m_cu.primary_ctx_release(m_device);
        D4R_CU(primary_ctx_reset(m_device));
        return open_context();
    }

    std::string describe_device() {
        char name[256] = {0};
        int major = 0, minor = 0, driver = 0;
        m_cu.device_get_name(name, sizeof name - 1, m_device);
        m_cu.device_get_attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, m_device);
        m_cu.device_get_attribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, m_device);
        m_cu.driver_get_version(&driver);
        std::ostringstream s;
        s << name << ", sm_" << major << minor << ", CUDA driver API " << driver / 1000 << "." << (driver % 1000) / 10;
        return s.str();
    }

    std::string alloc(size_t bytes, uint64_t* address) override {
        CUdeviceptr p = 0;
        D4R_CU(mem_alloc(&p, bytes));
        m_allocations.push_back(p);
        *address = p;
        return "";
    }
    std::string upload(uint64_t address, const void* data, size_t bytes) override {
        D4R_CU(memcpy_htod(address, data, bytes));
        return "";
    }
    std::string download(uint64_t address, void* data, size_t bytes) override {
        D4R_CU(memcpy_dtoh(data, address, bytes));
        return "";
    }

    std::string create_image(const ImageParam& im, const std::vector<uint8_t>& texels, uint64_t* handle) override {
        int format = 0;
        unsigned channels = 0;
        map_format(im.format, &format, &channels);
        const size_t row = size_t(im.width) * corpus::texel_bytes(im.format);
        CudaResourceDesc res;
        std::memset(&res, 0, sizeof res);
        Image image;
        image.width_bytes = row;
        image.height = im.height;
        if (im.kind == corpus::ImageKind::texture_pitch2d) {
            // Pitch-linear: the base and the pitch must honour the device's texture alignments.
            int base_align = 512, pitch_align = 32;
            m_cu.device_get_attribute(&base_align, CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT, m_device);
            m_cu.device_get_attribute(&pitch_align, CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT, m_device);
            size_t pitch = (row + pitch_align - 1) / pitch_align * pitch_align;
            uint64_t raw = 0;
            std::string err = alloc(pitch * im.height + base_align, &raw);
            if (!err.empty()) return err;
            CUdeviceptr base = (raw + base_align - 1) / base_align * base_align;
            CudaMemcpy2D copy;
            std::memset(&copy, 0, sizeof copy);
            copy.srcMemoryType = CU_MEMORYTYPE_HOST;
            copy.srcHost = texels.data();
            copy.srcPitch = row;
            copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
            copy.dstDevice = base;
            copy.dstPitch = pitch;
            copy.WidthInBytes = row;
            copy.Height = im.height;
            D4R_CU(memcpy_2d(&copy));
            res.resType = CU_RESOURCE_TYPE_PITCH2D;
            res.res.pitch2D.devPtr = base;
            res.res.pitch2D.format = format;
            res.res.pitch2D.numChannels = channels;
            res.res.pitch2D.width = im.width;
            res.res.pitch2D.height = im.height;
            res.res.pitch2D.pitchInBytes = pitch;
            image.device = base;
            image.pitch = pitch;
        } else {
            CudaArray3DDescriptor desc;
            std::memset(&desc, 0, sizeof desc);
            desc.Width = im.width;
            desc.Height = im.height;
            desc.Format = format;
            desc.NumChannels = channels;
            desc.Flags = im.kind == corpus::ImageKind::surface ? CUDA_ARRAY3D_SURFACE_LDST : 0;
            CUarray array = nullptr;
            D4R_CU(array_3d_create(&array, &desc));
            m_arrays.push_back(array);
            CudaMemcpy2D copy;
            std::memset(&copy, 0, sizeof copy);
            copy.srcMemoryType = CU_MEMORYTYPE_HOST;
            copy.srcHost = texels.data();
            copy.srcPitch = row;
            copy.dstMemoryType = CU_MEMORYTYPE_ARRAY;
            copy.dstArray = array;
            copy.WidthInBytes = row;
            copy.Height = im.height;
            D4R_CU(memcpy_2d(&copy));
            res.resType = CU_RESOURCE_TYPE_ARRAY;
            res.res.array.hArray = array;
            image.array = array;
        }
        if (im.kind == corpus::ImageKind::surface) {
            CUsurfObject s = 0;
            D4R_CU(surf_object_create(&s, &res));
            m_surfaces.push_back(s);
            *handle = s;
        } else {
            CudaTextureDesc tex;
            std::memset(&tex, 0, sizeof tex);
            for (int& mode : tex.addressMode) mode = map_address(im.address);
            tex.filterMode = im.filter == corpus::Filter::linear ? CU_TR_FILTER_MODE_LINEAR : CU_TR_FILTER_MODE_POINT;
            tex.flags = (im.read_as_integer ? CU_TRSF_READ_AS_INTEGER : 0u) |
                        (im.normalized ? CU_TRSF_NORMALIZED_COORDINATES : 0u);
            std::memcpy(tex.borderColor, im.border, sizeof tex.borderColor);
            CUtexObject t = 0;
            D4R_CU(tex_object_create(&t, &res, &tex, nullptr));
            m_textures.push_back(t);
            *handle = t;
        }
        m_images[*handle] = image;
        return "";
    }

    std::string read_image(uint64_t handle, std::vector<uint8_t>* texels) override {
        auto it = m_images.find(handle);
        if (it == m_images.end()) return "unknown image handle";
        const Image& image = it->second;
        texels->assign(image.width_bytes * image.height, 0);
        CudaMemcpy2D copy;
        std::memset(&copy, 0, sizeof copy);
        if (image.array) {
            copy.srcMemoryType = CU_MEMORYTYPE_ARRAY;
            copy.srcArray = image.array;
        } else {
            copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
            copy.srcDevice = image.device;
            copy.srcPitch = image.pitch;
        }
        copy.dstMemoryType = CU_MEMORYTYPE_HOST;
        copy.dstHost = texels->data();
        copy.dstPitch = image.width_bytes;
        copy.WidthInBytes = image.width_bytes;
        copy.Height = image.height;
        D4R_CU(memcpy_2d(&copy));
        return "";
    }

    std::string launch(const std::string& ptx, const Case& c, const std::vector<uint8_t>& block) override {
        std::vector<char> log(16384, 0);
        int options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
        void* values[] = {log.data(), reinterpret_cast<void*>(uintptr_t(log.size() - 1))};
        CUresult r = m_cu.module_load_data_ex(&m_module, ptx.c_str(), 2, options, values);
        if (r != CUDA_SUCCESS) return m_cu.describe("cuModuleLoadDataEx", r) + ": " + log.data();
        CUfunction fn = nullptr;
        D4R_CU(module_get_function(&fn, m_module, c.entry.c_str()));
        std::vector<uint8_t> params = block;
        size_t size = params.size();
        void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, params.data(), CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                         CU_LAUNCH_PARAM_END};
        D4R_CU(launch_kernel(fn, c.grid.x, c.grid.y, c.grid.z, c.block.x, c.block.y, c.block.z, c.dynamic_smem, nullptr,
                             nullptr, size ? extra : nullptr));
        D4R_CU(ctx_synchronize());
        return "";
    }

    void release() override {
        for (auto t : m_textures) m_cu.tex_object_destroy(t);
        for (auto s : m_surfaces) m_cu.surf_object_destroy(s);
        for (auto a : m_arrays) m_cu.array_destroy(a);
        for (auto p : m_allocations) m_cu.mem_free(p);
        if (m_module) m_cu.module_unload(m_module);
        m_textures.clear();
        m_surfaces.clear();
        m_arrays.clear();
        m_allocations.clear();
        m_images.clear();
        m_module = nullptr;
    }

private:
    struct Image {
        CUarray array = nullptr;
        CUdeviceptr device = 0;
        size_t pitch = 0, width_bytes = 0, height = 0;
    };

    std::string open_context() {
        D4R_CU(primary_ctx_retain(&m_context, m_device));
        D4R_CU(ctx_set_current(m_context));
        return "";
    }

    static void map_format(corpus::Format f, int* format, unsigned* channels) {
        switch (f) {
        case corpus::Format::rgba16f:
            *format = CU_AD_FORMAT_HALF, *channels = 4;
            return;
        case corpus::Format::rg16f:
            *format = CU_AD_FORMAT_HALF, *channels = 2;
            return;
        case corpus::Format::r32f:
            *format = CU_AD_FORMAT_FLOAT, *channels = 1;
            return;
        case corpus::Format::rgba8:
            *format = CU_AD_FORMAT_UNSIGNED_INT8, *channels = 4;
            return;
        case corpus::Format::rgb10a2:
            *format = CU_AD_FORMAT_UNORM_INT_101010_2, *channels = 4;
            return;
        }
    }
    static int map_address(corpus::Address a) {
        switch (a) {
        case corpus::Address::wrap:
            return CU_TR_ADDRESS_MODE_WRAP;
        case corpus::Address::clamp:
            return CU_TR_ADDRESS_MODE_CLAMP;
        case corpus::Address::mirror:
            return CU_TR_ADDRESS_MODE_MIRROR;
        case corpus::Address::border:
            return CU_TR_ADDRESS_MODE_BORDER;
        }
        return CU_TR_ADDRESS_MODE_CLAMP;
    }

    CudaDriver& m_cu;
    CUdevice m_device = 0;
    CUcontext m_context = nullptr;
    CUmodule m_module = nullptr;
    std::vector<CUdeviceptr> m_allocations;
    std::vector<CUarray> m_arrays;
    std::vector<CUtexObject> m_textures;
    std::vector<CUsurfObject> m_surfaces;
    std::map<uint64_t, Image> m_images;
};

// ---- host memory only (--dry-run) ------------------------------------------------------------

class HostLauncher : public corpus::Launcher {
public:
    std::string alloc(size_t bytes, uint64_t* address) override {
        *address = m_next;
        m_memory[m_next] = std::vector<uint8_t>(bytes);
        m_next += (bytes + 0xfff) / 0x1000 * 0x1000 + 0x1000;
        return "";
    }
    std::string upload(uint64_t address, const void* data, size_t bytes) override {
        auto it = m_memory.find(address);
        if (it == m_memory.end() || it->second.size() < bytes) return "upload to an unknown or short allocation";
        std::memcpy(it->second.data(), data, bytes);
        return "";
    }
    std::string download(uint64_t address, void* data, size_t bytes) override {
        auto it = m_memory.find(address);
        if (it == m_memory.end() || it->second.size() < bytes) return "download from an unknown or short allocation";
        std::memcpy(data, it->second.data(), bytes);
        return "";
    }
    std::string create_image(const ImageParam& im, const std::vector<uint8_t>& texels, uint64_t* handle) override {
        if (texels.size() != im.data_bytes()) return "texel data has the wrong size";
        *handle = 0x7e000000 + m_images.size();
        m_images[*handle] = texels;
        return "";
    }
    std::string read_image(uint64_t handle, std::vector<uint8_t>* texels) override {
        auto it = m_images.find(handle);
        if (it == m_images.end()) return "unknown image handle";
        *texels = it->second;
        return "";
    }
    std::string launch(const std::string&, const Case&, const std::vector<uint8_t>&) override { return ""; }
    void release() override {
        m_memory.clear();
        m_images.clear();
    }

private:
    uint64_t m_next = 0x10000000;
    std::map<uint64_t, std::vector<uint8_t>> m_memory;
    std::map<uint64_t, std::vector<uint8_t>> m_images;
};

// ---- main ------------------------------------------------------------------------------------

static bool read_text(const std::string& path, std::string* out) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return false;
    std::ostringstream s;
    s << f.rdbuf();
    *out = s.str();
    return true;
}

static bool write_bytes(const std::string& path, const std::vector<uint8_t>& data) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
    return bool(f);
}

static int usage(const char* argv0) {
    std::fprintf(stderr,
                 "usage: %s --corpus DIR [--out DIR] [--case NAME]... [--list] [--dry-run] [--device N]\n"
                 "  --corpus DIR  tests/ptxsim/corpus (reads DIR/ptx/<module>.ptx)\n"
                 "  --out DIR     write <case>.out and summary.txt there (an existing folder)\n"
                 "  --case NAME   run only this case (repeatable); default: every case\n"
                 "  --list        print the cases (name, entry, output bytes, summary) and exit\n"
                 "  --dry-run     no GPU: check the table against the PTX and exercise inputs/outputs\n",
                 argv0);
    return 2;
}

static int run(int argc, char** argv) {
    std::string corpus_dir, out_dir;
    std::vector<std::string> only;
    bool list = false, dry = false;
    int ordinal = 0;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&](std::string* dst) {
            if (i + 1 >= argc) return false;
            *dst = argv[++i];
            return true;
        };
        std::string tmp;
        if (a == "--corpus" && value(&corpus_dir)) continue;
        if (a == "--out" && value(&out_dir)) continue;
        if (a == "--case" && value(&tmp)) {
            only.push_back(tmp);
            continue;
        }
        if (a == "--device" && value(&tmp)) {
            ordinal = std::atoi(tmp.c_str());
            continue;
        }
        if (a == "--list") {
            list = true;
            continue;
        }
        if (a == "--dry-run") {
            dry = true;
            continue;
        }
        return usage(argv[0]);
    }
    std::vector<const Case*> cases;
    if (only.empty()) {
        for (const auto& c : corpus::all_cases()) cases.push_back(&c);
    } else {
        for (const auto& name : only) {
            const Case* c = corpus::find_case(name);
            if (!c) {
                std::fprintf(stderr, "ptxsim_golden_runner: no case named '%s' (see --list)\n", name.c_str());
                return 2;
            }
            cases.push_back(c);
        }
    }
    if (list) {
        for (const Case* c : cases)
            std::printf("%-36s %-18s %8zu  %s\n", c->name.c_str(), c->entry.c_str(), c->output_bytes(),
                        c->summary.c_str());
        return 0;
    }
    if (corpus_dir.empty()) return usage(argv[0]);

    CudaDriver cu;
    std::unique_ptr<corpus::Launcher> launcher;
    CudaLauncher* gpu = nullptr;
    std::string device = "dry run (host memory, no launches)";
    if (dry) {
        launcher = std::make_unique<HostLauncher>();
    } else {
        std::string err = cu.load();
        if (err.empty()) {
            auto g = std::make_unique<CudaLauncher>(cu);
            err = g->open(ordinal);
            if (err.empty()) device = g->describe_device();
            gpu = g.get();
            launcher = std::move(g);
        }
        if (!err.empty()) {
            std::fprintf(stderr, "ptxsim_golden_runner: %s\n", err.c_str());
            return 1;
        }
    }
    std::printf("device: %s\n", device.c_str());
    std::FILE* summary = nullptr;
    if (!out_dir.empty()) {
        summary = std::fopen((out_dir + "/summary.txt").c_str(), "w");
        if (!summary) {
            std::fprintf(stderr, "ptxsim_golden_runner: cannot write %s/summary.txt\n", out_dir.c_str());
            return 1;
        }
        std::fprintf(summary, "# device: %s\n# case bytes fnv1a64 poison_words\n", device.c_str());
    }
    int failures = 0;
    size_t total_bytes = 0;
    for (const Case* c : cases) {
        auto start = std::chrono::steady_clock::now();
        std::string ptx;
        std::string err;
        corpus::CaseResult result;
        const std::string ptx_path = corpus_dir + "/ptx/" + c->module + ".ptx";
        if (!read_text(ptx_path, &ptx)) err = c->name + ": cannot read " + ptx_path;
        if (err.empty()) err = corpus::run_case(*c, ptx, *launcher, &result);
        if (err.empty() && !out_dir.empty() && !write_bytes(out_dir + "/" + c->name + ".out", result.output))
            err = c->name + ": cannot write " + out_dir + "/" + c->name + ".out";
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        if (!err.empty()) {
            ++failures;
            std::printf("FAIL %s: %s\n", c->name.c_str(), err.c_str());
            if (summary) std::fprintf(summary, "FAIL %s\n", c->name.c_str());
            if (gpu) {
                std::string reset_err = gpu->reset();
                if (!reset_err.empty()) {
                    std::printf("FAIL cannot recover the context: %s\n", reset_err.c_str());
                    return 1;
                }
            }
            std::fflush(stdout);
            continue;
        }
        uint64_t hash = corpus::fnv1a64(result.output.data(), result.output.size());
        total_bytes += result.output.size();
        std::printf("ok   %-36s %8zu bytes  fnv1a64 %016llx  poison words %zu  %.0f ms\n", c->name.c_str(),
                    result.output.size(), static_cast<unsigned long long>(hash), result.poison_words, ms);
        if (summary)
            std::fprintf(summary, "%s %zu %016llx %zu\n", c->name.c_str(), result.output.size(),
                         static_cast<unsigned long long>(hash), result.poison_words);
        std::fflush(stdout);
    }
    if (summary) std::fclose(summary);
    std::printf("%zu cases, %d failed, %zu output bytes\n", cases.size(), failures, total_bytes);
    return failures ? 1 : 0;
}

} // namespace d4r::device

int main(int argc, char** argv) { return d4r::device::run(argc, argv); }
