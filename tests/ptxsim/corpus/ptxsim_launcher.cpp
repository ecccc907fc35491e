// The corpus Launcher over ptxsim (ptxsim_launcher.h).
#include "ptxsim_launcher.h"

#include "jit/kernel_compiler.h"

#include <fmt/format.h>

#include <utility>

namespace d4r::corpus {

const char* failure_stage_name(FailureStage stage) {
    switch (stage) {
    case FailureStage::none:
        return "none";
    case FailureStage::memory:
        return "memory";
    case FailureStage::image:
        return "image";
    case FailureStage::load:
        return "load";
    case FailureStage::launch:
        return "launch";
    }
    return "?";
}

PtxsimLauncher::PtxsimLauncher(uint64_t instruction_budget, unsigned worker_threads, bool jit)
    : m_budget(instruction_budget), m_workers(worker_threads), m_jit(jit) {}

PtxsimLauncher::~PtxsimLauncher() { release(); }

std::string PtxsimLauncher::fail(FailureStage stage, std::string message) {
    m_stage = stage;
    return message;
}

std::string PtxsimLauncher::alloc(size_t bytes, uint64_t* address) {
    auto ptr = m_device.alloc(bytes);
    if (!ptr) return fail(FailureStage::memory, "alloc: " + ptr.error().text());
    m_allocations.push_back(*ptr);
    *address = *ptr;
    return "";
}

std::string PtxsimLauncher::upload(uint64_t address, const void* data, size_t bytes) {
    auto s = m_device.copy_to_device(address, data, bytes);
    return s ? "" : fail(FailureStage::memory, "upload: " + s.error().text());
}

std::string PtxsimLauncher::download(uint64_t address, void* data, size_t bytes) {
    auto s = m_device.copy_to_host(data, address, bytes);
    return s ? "" : fail(FailureStage::memory, "download: " + s.error().text());
}

namespace {

void map_format(Format f, ptxsim::ChannelFormat* format, uint32_t* channels) {
    switch (f) {
    case Format::rgba16f:
        *format = ptxsim::ChannelFormat::F16, *channels = 4;
        return;
    case Format::rg16f:
        *format = ptxsim::ChannelFormat::F16, *channels = 2;
        return;
    case Format::r32f:
        *format = ptxsim::ChannelFormat::F32, *channels = 1;
        return;
    case Format::rgba8:
        *format = ptxsim::ChannelFormat::U8, *channels = 4;
        return;
    case Format::rgb10a2:
        *format = ptxsim::ChannelFormat::RGB10A2, *channels = 4;
        return;
    }
}

ptxsim::AddressMode map_address(Address a) {
    switch (a) {
    case Address::wrap:
        return ptxsim::AddressMode::Wrap;
    case Address::clamp:
        return ptxsim::AddressMode::Clamp;
    case Address::mirror:
        return ptxsim::AddressMode::Mirror;
    case Address::border:
        return ptxsim::AddressMode::Border;
    }
    return ptxsim::AddressMode::Clamp;
}

} // namespace

// Mirrors the H200 runner: arrays (with surface load/store for surfaces) or 32-byte-pitched device memory.
std::string PtxsimLauncher::create_image(const ImageParam& im, const std::vector<uint8_t>& texels, uint64_t* handle) {
    ptxsim::ChannelFormat format = ptxsim::ChannelFormat::U8;
    uint32_t channels = 0;
    map_format(im.format, &format, &channels);
    Image image;
    image.width_bytes = uint64_t(im.width) * texel_bytes(im.format);
    image.height = im.height;
    image.surface = im.kind == ImageKind::surface;
    ptxsim::ResourceDesc res;
    if (im.kind == ImageKind::texture_pitch2d) {
        image.pitch = (image.width_bytes + 31) / 32 * 32;
        uint64_t ptr = 0;
        std::string err = alloc(image.pitch * im.height, &ptr);
        if (!err.empty()) return err;
        for (uint32_t r = 0; r < im.height; ++r) {
            err = upload(ptr + r * image.pitch, texels.data() + r * image.width_bytes, image.width_bytes);
            if (!err.empty()) return err;
        }
        image.ptr = ptr;
        res.kind = ptxsim::ResourceDesc::Kind::Pitch2D;
        res.ptr = ptr;
        res.format = format;
        res.channels = channels;
        res.width = im.width;
        res.height = im.height;
        res.pitch = image.pitch;
    } else {
        ptxsim::ArrayDesc desc;
        desc.width = im.width;
        desc.height = im.height;
        desc.format = format;
        desc.channels = channels;
        desc.surface = image.surface;
        auto array = ptxsim::create_array(m_device, desc);
        if (!array) return fail(FailureStage::image, "create array: " + array.error().text());
        image.array = *array;
        auto s = ptxsim::copy_to_array(m_device, image.array, 0, 0, texels.data(), image.width_bytes, image.width_bytes,
                                       im.height);
        if (!s) {
            (void)ptxsim::destroy_array(m_device, image.array);
            return fail(FailureStage::image, "copy to array: " + s.error().text());
        }
        res.kind = ptxsim::ResourceDesc::Kind::Array;
        res.array = image.array;
    }
    Expected<uint64_t> object = make_error(ErrorCode::Invalid, "no object");
    if (image.surface) {
        object = ptxsim::create_surface_object(m_device, image.array);
    } else {
        ptxsim::TextureDesc tex;
        tex.address[0] = tex.address[1] = map_address(im.address);
        tex.filter = im.filter == Filter::linear ? ptxsim::FilterMode::Linear : ptxsim::FilterMode::Point;
        tex.read = im.read_as_integer ? ptxsim::ReadMode::ElementType : ptxsim::ReadMode::NormalizedFloat;
        tex.normalized_coords = im.normalized;
        for (int k = 0; k < 4; ++k) tex.border[k] = im.border[k];
        object = ptxsim::create_texture_object(m_device, res, tex);
    }
    if (!object) {
        if (image.array) (void)ptxsim::destroy_array(m_device, image.array);
        return fail(FailureStage::image,
                    fmt::format("create {} object: {}", image.surface ? "surface" : "texture", object.error().text()));
    }
    *handle = *object;
    m_images[*object] = image;
    return "";
}

std::string PtxsimLauncher::read_image(uint64_t handle, std::vector<uint8_t>* texels) {
    auto it = m_images.find(handle);
    if (it == m_images.end())
        return fail(FailureStage::image, fmt::format("read image: unknown handle 0x{:x}", handle));
    const Image& image = it->second;
    texels->assign(image.width_bytes * image.height, 0);
    if (image.array) {
        auto s = ptxsim::copy_from_array(m_device, image.array, 0, 0, texels->data(), image.width_bytes,
                                         image.width_bytes, image.height);
        if (!s) return fail(FailureStage::image, "read image: " + s.error().text());
        return "";
    }
    for (uint32_t r = 0; r < image.height; ++r) {
        std::string err =
            download(image.ptr + r * image.pitch, texels->data() + r * image.width_bytes, image.width_bytes);
        if (!err.empty()) return err;
    }
    return "";
}

std::string PtxsimLauncher::launch(const std::string& ptx, const Case& c, const std::vector<uint8_t>& param_block) {
    auto module = ptxsim::Module::load(ptx, c.module + ".ptx");
    if (!module) return fail(FailureStage::load, "load: " + module.error().text());
    auto kernel = (*module)->kernel(c.entry);
    if (!kernel) return fail(FailureStage::load, "load: " + kernel.error().text());
    const ptxsim::Kernel& k = **kernel;
    // The corpus library lays the block out from the case table and has checked it against the PTX
    // .entry; ptxsim lays it out from its own parse. Both must agree or the kernel reads garbage.
    if (k.info().param_block_size != param_block.size())
        return fail(FailureStage::launch, fmt::format("launch: parameter block is {} bytes, ptxsim expects {}",
                                                      param_block.size(), k.info().param_block_size));
    ptxsim::LaunchConfig config;
    config.grid = {c.grid.x, c.grid.y, c.grid.z};
    config.block = {c.block.x, c.block.y, c.block.z};
    config.dynamic_shared_bytes = c.dynamic_smem;
    config.instruction_budget = m_budget;
    config.worker_threads = m_workers;
    m_compiled = false;
    m_warp = false;
    m_why_not_warp.clear();
    m_jit_refusal.clear();
    if (m_jit) {
        auto compiler = jit::KernelCompiler::instance();
        if (!compiler) return fail(FailureStage::load, "jit: " + compiler.error().text());
        auto compiled = (*compiler)->compile(ptxsim::kernel_source(k));
        if (compiled) {
            config.compiled = *compiled;
            config.instruction_budget = 0; // compiled code counts no instructions: a watchdog instead
            config.watchdog_ms = 120'000;
            m_compiled = true;
            m_warp = (*compiled)->warp;
            m_why_not_warp = (*compiled)->why_not_warp;
        } else if (compiled.error().code() == ErrorCode::Unsupported) {
            m_jit_refusal = compiled.error().text();
        } else {
            return fail(FailureStage::load, "jit: " + compiled.error().text());
        }
    }
    m_fault = {};
    auto result = ptxsim::launch(m_device, k, config, param_block, &m_fault);
    if (!result) return fail(FailureStage::launch, "launch: " + result.error().text());
    m_last = *result;
    return "";
}

void PtxsimLauncher::release() {
    for (const auto& [handle, image] : m_images) {
        if (image.surface)
            (void)ptxsim::destroy_surface_object(m_device, handle);
        else
            (void)ptxsim::destroy_texture_object(m_device, handle);
        if (image.array) (void)ptxsim::destroy_array(m_device, image.array);
    }
    m_images.clear();
    for (ptxsim::DevicePtr p : m_allocations) (void)m_device.free(p);
    m_allocations.clear();
}

} // namespace d4r::corpus
