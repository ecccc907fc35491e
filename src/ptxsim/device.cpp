// Device memory (a bounds-checked allocation table over host memory mapped for each allocation), the
// registry of arrays, texture and surface objects (ptxsim_texture.h), and the worker pool.
//
// Every allocation is a mapping of its own (mmap). free() gives its memory back to the system but keeps its
// addresses reserved as an inaccessible (PROT_NONE) mapping for a while (a bounded quarantine, oldest
// released first): a freed device pointer then points at no memory, so a copy that takes it for host memory
// is refused by the host-memory probe of the cpu backend (cpu_host_memory.h) instead of reading or writing
// a block the heap has handed to someone else. Plainly unmapping it is not enough: the next mmap of the
// process (a thread stack, the allocator growing) is placed in the hole at once.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <system_error>

#include <fmt/format.h>

#include "ptxsim/device_impl.h"
#include "ptxsim/numerics.h"

namespace d4r::ptxsim {

namespace {

constexpr uint64_t kAlign = 256;
// Bytes after every allocation that belong to no allocation, so that an access just past the end of
// one allocation is never inside the next one.
constexpr uint64_t kGuard = 256;
constexpr uint64_t kMaxAllocation = 1ull << 40;

// The bytes mapped for an allocation of BYTES: the allocation and its guard, in whole pages.
uint64_t mapped_bytes(uint64_t bytes) {
    static const uint64_t page = [] {
        long v = sysconf(_SC_PAGESIZE);
        return v > 0 ? uint64_t(v) : uint64_t(4096);
    }();
    return (bytes + kGuard + page - 1) / page * page;
}

void unmap(uint64_t base, uint64_t bytes) { munmap(reinterpret_cast<void*>(base), mapped_bytes(bytes)); }

// The quarantine's bounds: reserved address space costs no memory, but every range is a kernel mapping
// (vm.max_map_count is 65530 by default) and the address space is finite.
constexpr size_t kQuarantineRanges = 4096;
constexpr uint64_t kQuarantineBytes = 1ull << 40;

// Replaces the pages of [BASE, BASE + MAPPED) with an inaccessible reservation, giving their memory back.
// False when the kernel refused (then the range is still mapped and accessible).
bool reserve_only(uint64_t base, uint64_t mapped) {
    void* p = mmap(reinterpret_cast<void*>(base), mapped, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    return p != MAP_FAILED;
}

} // namespace

WorkerPool::~WorkerPool() {
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    for (pthread_t t : m_threads) pthread_join(t, nullptr);
}

void WorkerPool::loop(unsigned index) {
    uint64_t seen = 0;
    for (;;) {
        const std::function<void(unsigned)>* job = nullptr;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [&] { return m_stop || m_generation != seen; });
            if (m_stop) return;
            seen = m_generation;
            if (index >= m_wanted) continue;
            job = m_job;
        }
        (*job)(index);
        {
            std::lock_guard lock(m_mutex);
            if (--m_remaining == 0) m_done.notify_all();
        }
    }
}

void WorkerPool::start_thread(unsigned index) {
    struct Start {
        WorkerPool* pool;
        unsigned index;
    };
    auto* start = new Start{this, index};
    auto entry = [](void* arg) -> void* {
        std::unique_ptr<Start> s(static_cast<Start*>(arg));
        s->pool->loop(s->index);
        return nullptr;
    };
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, kWorkerStackBytes);
    pthread_t thread;
    int e = pthread_create(&thread, &attr, entry, start);
    pthread_attr_destroy(&attr);
    if (e != 0) e = pthread_create(&thread, nullptr, entry, start); // no room for the large stack: the default one
    if (e != 0) {
        delete start;
        throw std::system_error(e, std::generic_category(), "ptxsim: cannot start a worker thread");
    }
    m_threads.push_back(thread);
}

void WorkerPool::run(unsigned n, const std::function<void(unsigned)>& job) {
    if (n == 0) return;
    std::unique_lock lock(m_mutex);
    while (m_threads.size() < n) start_thread(static_cast<unsigned>(m_threads.size()));
    m_job = &job;
    m_wanted = n;
    m_remaining = n;
    ++m_generation;
    m_wake.notify_all();
    m_done.wait(lock, [&] { return m_remaining == 0; });
    m_job = nullptr;
}

std::vector<MemRange> Device::Impl::snapshot() const {
    std::shared_lock lock(mutex);
    std::vector<MemRange> out;
    out.reserve(allocations.size());
    for (auto& [base, size] : allocations) out.push_back({base, size});
    return out;
}

Expected<MemRange> Device::Impl::find(uint64_t address, uint64_t bytes, const char* what) const {
    std::shared_lock lock(mutex);
    auto it = allocations.upper_bound(address);
    if (it != allocations.begin()) {
        --it;
        uint64_t off = address - it->first;
        if (off <= it->second && bytes <= it->second - off) return MemRange{it->first, it->second};
    }
    return make_error(ErrorCode::Invalid, "{}: [0x{:x}, +{}) is not inside a live device allocation", what, address,
                      bytes);
}

Device::Device() : m_impl(std::make_unique<Impl>()) {}

Device::~Device() {
    for (auto& [base, size] : m_impl->allocations)
        if (!m_impl->foreign.count(base)) unmap(base, size);
    for (auto& [base, mapped] : m_impl->quarantine) munmap(reinterpret_cast<void*>(base), mapped);
}

Expected<DevicePtr> Device::alloc(uint64_t bytes) {
    if (bytes > kMaxAllocation) return make_error(ErrorCode::Invalid, "allocation of {} bytes is too large", bytes);
    // Fresh anonymous pages are zero and page aligned (kAlign divides every page size).
    static_assert(kAlign <= 4096);
    void* p = mmap(nullptr, mapped_bytes(bytes), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return make_error(ErrorCode::Io, "out of host memory allocating {} bytes of device memory", bytes);
    std::unique_lock lock(m_impl->mutex);
    m_impl->allocations[reinterpret_cast<uint64_t>(p)] = bytes;
    m_impl->bytes += bytes;
    return reinterpret_cast<uint64_t>(p);
}

Status Device::free(DevicePtr ptr) {
    std::unique_lock lock(m_impl->mutex);
    auto it = m_impl->allocations.find(ptr);
    if (it == m_impl->allocations.end() || m_impl->foreign.count(ptr))
        return make_error(ErrorCode::Invalid, "free: 0x{:x} is not the start of a live device allocation", ptr);
    const uint64_t bytes = it->second;
    m_impl->bytes -= bytes;
    m_impl->allocations.erase(it);
    const uint64_t mapped = mapped_bytes(bytes);
    if (!reserve_only(ptr, mapped)) {
        munmap(reinterpret_cast<void*>(ptr), mapped);
        return ok_status();
    }
    m_impl->quarantine.emplace_back(ptr, mapped);
    m_impl->quarantine_bytes += mapped;
    while (m_impl->quarantine.size() > kQuarantineRanges || m_impl->quarantine_bytes > kQuarantineBytes) {
        auto [base, size] = m_impl->quarantine.front();
        m_impl->quarantine.pop_front();
        m_impl->quarantine_bytes -= size;
        munmap(reinterpret_cast<void*>(base), size);
    }
    return ok_status();
}

Status Device::copy_to_device(DevicePtr dst, const void* src, uint64_t bytes) {
    D4R_TRY(m_impl->find(dst, bytes, "copy to device"));
    if (bytes) std::memcpy(reinterpret_cast<void*>(dst), src, bytes);
    return ok_status();
}

Status Device::copy_to_host(void* dst, DevicePtr src, uint64_t bytes) const {
    D4R_TRY(m_impl->find(src, bytes, "copy to host"));
    if (bytes) std::memcpy(dst, reinterpret_cast<const void*>(src), bytes);
    return ok_status();
}

Status Device::copy_device(DevicePtr dst, DevicePtr src, uint64_t bytes) {
    D4R_TRY(m_impl->find(dst, bytes, "copy destination"));
    D4R_TRY(m_impl->find(src, bytes, "copy source"));
    if (bytes) std::memmove(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), bytes);
    return ok_status();
}

Status Device::memset(DevicePtr dst, uint8_t value, uint64_t bytes) {
    D4R_TRY(m_impl->find(dst, bytes, "memset"));
    if (bytes) std::memset(reinterpret_cast<void*>(dst), value, bytes);
    return ok_status();
}

uint64_t Device::allocated_bytes() const {
    std::shared_lock lock(m_impl->mutex);
    return m_impl->bytes;
}

size_t Device::allocation_count() const {
    std::shared_lock lock(m_impl->mutex);
    return m_impl->allocations.size() - m_impl->foreign.size();
}

Status Device::add_foreign(DevicePtr base, uint64_t bytes) {
    std::unique_lock lock(m_impl->mutex);
    auto it = m_impl->allocations.find(base);
    if (it != m_impl->allocations.end() && !m_impl->foreign.count(base))
        return make_error(ErrorCode::Invalid, "add_foreign: 0x{:x} is one of the device's own allocations", base);
    m_impl->allocations[base] = bytes;
    m_impl->foreign.insert(base);
    return ok_status();
}

Status Device::remove_foreign(DevicePtr base) {
    std::unique_lock lock(m_impl->mutex);
    if (!m_impl->foreign.erase(base))
        return make_error(ErrorCode::Invalid, "remove_foreign: 0x{:x} is not a foreign range", base);
    m_impl->allocations.erase(base);
    return ok_status();
}

// ---- arrays, texture and surface objects ------------------------------------------------------

const char* channel_format_name(ChannelFormat f) {
    switch (f) {
    case ChannelFormat::U8:
        return "u8";
    case ChannelFormat::U16:
        return "u16";
    case ChannelFormat::U32:
        return "u32";
    case ChannelFormat::S8:
        return "s8";
    case ChannelFormat::S16:
        return "s16";
    case ChannelFormat::S32:
        return "s32";
    case ChannelFormat::F16:
        return "f16";
    case ChannelFormat::F32:
        return "f32";
    case ChannelFormat::RGB10A2:
        return "rgb10a2";
    case ChannelFormat::R11G11B10F:
        return "r11g11b10f";
    }
    return "?";
}

const char* geometry_name(Geometry g) {
    switch (g) {
    case Geometry::Plain:
        return "1D/2D";
    case Geometry::Volume3D:
        return "3D";
    case Geometry::Layered1D:
        return "1D layered";
    case Geometry::Layered2D:
        return "2D layered";
    case Geometry::Cubemap:
        return "cubemap";
    case Geometry::CubemapLayered:
        return "layered cubemap";
    }
    return "?";
}

uint32_t texel_bytes(ChannelFormat f, uint32_t channels) {
    switch (f) {
    case ChannelFormat::RGB10A2:
        return channels == 4 || channels == 0 ? 4 : 0;
    case ChannelFormat::R11G11B10F:
        return channels == 3 || channels == 0 ? 4 : 0;
    default:
        break;
    }
    if (channels != 1 && channels != 2 && channels != 4) return 0;
    uint32_t bytes = 0;
    switch (f) {
    case ChannelFormat::U8:
    case ChannelFormat::S8:
        bytes = 1;
        break;
    case ChannelFormat::U16:
    case ChannelFormat::S16:
    case ChannelFormat::F16:
        bytes = 2;
        break;
    case ChannelFormat::U32:
    case ChannelFormat::S32:
    case ChannelFormat::F32:
        bytes = 4;
        break;
    default:
        return 0;
    }
    return bytes * channels;
}

namespace {

constexpr uint32_t kMaxImageDim = 1u << 16; // CUDA's largest 2D array and pitch-linear width/height

uint32_t format_channels(ChannelFormat f, uint32_t channels) {
    if (f == ChannelFormat::RGB10A2) return 4;
    if (f == ChannelFormat::R11G11B10F) return 3;
    return channels;
}

bool valid_format(ChannelFormat f) {
    return static_cast<uint8_t>(f) <= static_cast<uint8_t>(ChannelFormat::R11G11B10F);
}

} // namespace

ImageRegistry::ImageRegistry() : m_table(std::make_shared<ImageTable>()) {}

std::shared_ptr<const ImageTable> ImageRegistry::snapshot() const {
    std::lock_guard lock(m_mutex);
    return m_table;
}

Expected<ArrayId> ImageRegistry::create_array(const ArrayDesc& desc, uint8_t* external, uint64_t pitch) {
    if (!valid_format(desc.format)) return make_error(ErrorCode::Invalid, "array: invalid channel format");
    const uint32_t tb = texel_bytes(desc.format, desc.channels);
    if (tb == 0)
        return make_error(ErrorCode::Invalid, "array: {} channels of {} are not a texel format", desc.channels,
                          channel_format_name(desc.format));
    if (desc.width == 0 || desc.height == 0 || desc.width > kMaxImageDim || desc.height > kMaxImageDim)
        return make_error(ErrorCode::Invalid, "array: size {}x{} is outside 1..{}", desc.width, desc.height,
                          kMaxImageDim);
    auto store = std::make_shared<ArrayStore>();
    store->desc = desc;
    store->desc.channels = format_channels(desc.format, desc.channels);
    store->texel_bytes = tb;
    store->pitch = uint64_t(desc.width) * tb;
    if (external) {
        if (pitch < store->pitch)
            return make_error(ErrorCode::Invalid, "array: pitch {} is smaller than a row of {} bytes", pitch,
                              store->pitch);
        store->pitch = pitch;
        store->external = external;
    } else {
        const uint64_t bytes = store->pitch * desc.height;
        store->data.reset(new (std::nothrow) uint8_t[bytes]());
        if (!store->data) return make_error(ErrorCode::Io, "array: out of host memory allocating {} bytes", bytes);
    }
    std::lock_guard lock(m_mutex);
    ArrayId id = m_next_array++;
    m_arrays[id] = std::move(store);
    return id;
}

Status ImageRegistry::destroy_array(ArrayId id) {
    std::lock_guard lock(m_mutex);
    if (!m_arrays.erase(id)) return make_error(ErrorCode::Invalid, "array {} does not exist", id);
    return ok_status(); // objects over it keep its storage alive until they are destroyed
}

Expected<std::shared_ptr<ArrayStore>> ImageRegistry::array(ArrayId id) const {
    std::lock_guard lock(m_mutex);
    auto it = m_arrays.find(id);
    if (it == m_arrays.end()) return make_error(ErrorCode::Invalid, "array {} does not exist", id);
    return it->second;
}

Expected<uint64_t> ImageRegistry::add(std::shared_ptr<const ImageObject> object) {
    std::lock_guard lock(m_mutex);
    auto table = std::make_shared<ImageTable>(*m_table);
    uint64_t handle = m_next_object++;
    table->objects[handle] = std::move(object);
    m_table = std::move(table);
    return handle;
}

Status ImageRegistry::remove(uint64_t handle, ImageObject::Kind kind) {
    const char* what = kind == ImageObject::Kind::Texture ? "texture" : "surface";
    std::lock_guard lock(m_mutex);
    const ImageObject* o = m_table->find(handle);
    if (!o || o->kind != kind) return make_error(ErrorCode::Invalid, "{} object {} does not exist", what, handle);
    auto table = std::make_shared<ImageTable>(*m_table);
    table->objects.erase(handle);
    m_table = std::move(table);
    return ok_status();
}

Expected<ArrayId> create_array(Device& device, const ArrayDesc& desc) {
    return device.impl().images.create_array(desc);
}

Expected<ArrayId> create_array_over(Device& device, const ArrayDesc& desc, DevicePtr base, uint64_t pitch) {
    if (base == 0) return make_error(ErrorCode::Invalid, "array: no storage given");
    return device.impl().images.create_array(desc, reinterpret_cast<uint8_t*>(base), pitch);
}

Status destroy_array(Device& device, ArrayId array) { return device.impl().images.destroy_array(array); }

Expected<ArrayDesc> array_desc(const Device& device, ArrayId array) {
    std::shared_ptr<ArrayStore> a = D4R_TRY(device.impl().images.array(array));
    return a->desc;
}

namespace {

Expected<std::shared_ptr<ArrayStore>> array_rect(const Device& device, ArrayId id, uint64_t x_bytes, uint32_t y,
                                                 uint64_t width_bytes, uint32_t height, uint64_t pitch,
                                                 const char* what) {
    std::shared_ptr<ArrayStore> a = D4R_TRY(device.impl().images.array(id));
    const uint64_t row = uint64_t(a->desc.width) * a->texel_bytes;
    if (x_bytes > row || width_bytes > row - x_bytes || y > a->desc.height || height > a->desc.height - y)
        return make_error(ErrorCode::Invalid, "{}: {}x{} bytes at ({}, {}) do not fit array {} ({} x {} bytes)", what,
                          width_bytes, height, x_bytes, y, id, row, a->desc.height);
    if (height > 1 && pitch < width_bytes)
        return make_error(ErrorCode::Invalid, "{}: pitch {} is smaller than the row of {} bytes", what, pitch,
                          width_bytes);
    return a;
}

} // namespace

Status copy_to_array(Device& device, ArrayId dst, uint64_t x_bytes, uint32_t y, const void* src, uint64_t src_pitch,
                     uint64_t width_bytes, uint32_t height) {
    std::shared_ptr<ArrayStore> a =
        D4R_TRY(array_rect(device, dst, x_bytes, y, width_bytes, height, src_pitch, "copy to array"));
    for (uint32_t r = 0; r < height; ++r)
        std::memcpy(a->bytes() + (y + r) * a->pitch + x_bytes, static_cast<const uint8_t*>(src) + r * src_pitch,
                    width_bytes);
    return ok_status();
}

Status copy_from_array(const Device& device, ArrayId src, uint64_t x_bytes, uint32_t y, void* dst, uint64_t dst_pitch,
                       uint64_t width_bytes, uint32_t height) {
    std::shared_ptr<ArrayStore> a =
        D4R_TRY(array_rect(device, src, x_bytes, y, width_bytes, height, dst_pitch, "copy from array"));
    for (uint32_t r = 0; r < height; ++r)
        std::memcpy(static_cast<uint8_t*>(dst) + r * dst_pitch, a->bytes() + (y + r) * a->pitch + x_bytes, width_bytes);
    return ok_status();
}

namespace {

Expected<FilterClass> filter_class(ChannelFormat f, ReadMode read) {
    const bool norm = read == ReadMode::NormalizedFloat;
    switch (f) {
    case ChannelFormat::F16:
    case ChannelFormat::R11G11B10F:
        return FilterClass::Half;
    case ChannelFormat::F32:
        return FilterClass::Single;
    case ChannelFormat::RGB10A2:
        return FilterClass::Unorm16;
    case ChannelFormat::U8:
    case ChannelFormat::U16:
        return norm ? FilterClass::Unorm16 : FilterClass::Integer;
    case ChannelFormat::S8:
    case ChannelFormat::S16:
        return norm ? FilterClass::Single : FilterClass::Integer;
    case ChannelFormat::U32:
    case ChannelFormat::S32:
        if (norm)
            return make_error(ErrorCode::Invalid,
                              "texture: 32-bit integer formats cannot be read as normalised floats");
        return FilterClass::Integer;
    }
    return make_error(ErrorCode::Invalid, "texture: invalid channel format");
}

// The border colour as the sampler returns it: in the format's precision, missing channels 0. 8- and 16-bit
// unorm reads quantise it to the texels' own bits (measured for u8 on the H200: 0.25 reads as 64 / 255).
void set_border(ImageObject& o) {
    for (uint32_t k = 0; k < 4; ++k) {
        float b = k < o.channels ? o.desc.border[k] : 0.0f;
        if (o.filter_class == FilterClass::Half) b = f16_to_float(round_to_small(b, kF16, Round::Rn));
        if (o.filter_class == FilterClass::Unorm16 &&
            (o.format == ChannelFormat::U8 || o.format == ChannelFormat::U16)) {
            const double levels = o.format == ChannelFormat::U8 ? 255.0 : 65535.0;
            b = static_cast<float>(std::round(std::clamp(double(b), 0.0, 1.0) * levels) / levels);
        }
        o.border_bits[k] = std::bit_cast<uint32_t>(b);
    }
}

bool valid_desc(const TextureDesc& d) {
    for (AddressMode m : d.address)
        if (static_cast<uint8_t>(m) > static_cast<uint8_t>(AddressMode::Border)) return false;
    return static_cast<uint8_t>(d.filter) <= 1 && static_cast<uint8_t>(d.read) <= 1;
}

// Checks a Volume resource and points O at it (geometry, sizes, pitches, format, span in device memory).
Status bind_volume(Device& device, const ResourceDesc& res, ImageObject& o) {
    if (res.geometry == Geometry::Plain || static_cast<uint8_t>(res.geometry) > uint8_t(Geometry::CubemapLayered))
        return make_error(ErrorCode::Invalid, "volume: invalid geometry");
    if (!valid_format(res.format)) return make_error(ErrorCode::Invalid, "volume: invalid channel format");
    if (res.format == ChannelFormat::RGB10A2 || res.format == ChannelFormat::R11G11B10F)
        return make_error(ErrorCode::Invalid, "volume: packed formats are 2D only");
    const uint32_t tb = texel_bytes(res.format, res.channels);
    if (tb == 0)
        return make_error(ErrorCode::Invalid, "volume: {} channels of {} are not a texel format", res.channels,
                          channel_format_name(res.format));
    if (res.width == 0 || res.height == 0 || res.depth == 0 || res.width > kMaxImageDim || res.height > kMaxImageDim ||
        res.depth > kMaxImageDim)
        return make_error(ErrorCode::Invalid, "volume: size {}x{}x{} is outside 1..{}", res.width, res.height,
                          res.depth, kMaxImageDim);
    const bool cube = res.geometry == Geometry::Cubemap || res.geometry == Geometry::CubemapLayered;
    if (cube &&
        (res.width != res.height || res.depth % 6 != 0 || (res.geometry == Geometry::Cubemap && res.depth != 6)))
        return make_error(ErrorCode::Invalid, "volume: a cubemap's faces are square and come in sixes ({}x{}x{})",
                          res.width, res.height, res.depth);
    if (res.geometry == Geometry::Layered1D && res.height != 1)
        return make_error(ErrorCode::Invalid, "volume: a 1D layered image has one row, not {}", res.height);
    if (res.pitch < uint64_t(res.width) * tb || res.slice_pitch < res.pitch * res.height)
        return make_error(ErrorCode::Invalid, "volume: pitch {} / slice pitch {} are smaller than the rows / slices",
                          res.pitch, res.slice_pitch);
    if (res.ptr % std::min<uint32_t>(tb, 4) != 0)
        return make_error(ErrorCode::Invalid, "volume: address 0x{:x} is not aligned to its texels", res.ptr);
    o.format = res.format;
    o.channels = res.channels;
    o.texel_bytes = tb;
    o.width = res.width;
    o.height = res.height;
    o.depth = res.depth;
    o.pitch = res.pitch;
    o.slice_pitch = res.slice_pitch;
    o.geometry = res.geometry;
    o.span = res.slice_pitch * (res.depth - 1) + res.pitch * (res.height - 1) + uint64_t(res.width) * tb;
    D4R_TRY(device.impl().find(res.ptr, o.span, "volume memory"));
    o.base = reinterpret_cast<uint8_t*>(res.ptr);
    o.device_memory = true;
    return ok_status();
}

} // namespace

Expected<TexObject> create_texture_object(Device& device, const ResourceDesc& res, const TextureDesc& desc) {
    if (!valid_desc(desc)) return make_error(ErrorCode::Invalid, "texture: invalid address, filter or read mode");
    auto o = std::make_shared<ImageObject>();
    o->kind = ImageObject::Kind::Texture;
    o->desc = desc;
    switch (res.kind) {
    case ResourceDesc::Kind::Array: {
        std::shared_ptr<ArrayStore> a = D4R_TRY(device.impl().images.array(res.array));
        o->base = a->bytes();
        o->pitch = a->pitch;
        o->width = a->desc.width;
        o->height = a->desc.height;
        o->format = a->desc.format;
        o->channels = a->desc.channels;
        o->texel_bytes = a->texel_bytes;
        o->array = std::move(a);
        break;
    }
    case ResourceDesc::Kind::Pitch2D:
    case ResourceDesc::Kind::Linear: {
        if (!valid_format(res.format)) return make_error(ErrorCode::Invalid, "texture: invalid channel format");
        const uint32_t tb = texel_bytes(res.format, res.channels);
        if (tb == 0)
            return make_error(ErrorCode::Invalid, "texture: {} channels of {} are not a texel format", res.channels,
                              channel_format_name(res.format));
        o->format = res.format;
        o->channels = format_channels(res.format, res.channels);
        o->texel_bytes = tb;
        if (res.kind == ResourceDesc::Kind::Linear) {
            if (res.bytes < tb || res.bytes / tb > (1ull << 27))
                return make_error(ErrorCode::Invalid, "texture: linear memory of {} bytes holds no or too many texels",
                                  res.bytes);
            o->width = static_cast<uint32_t>(res.bytes / tb);
            o->height = 1;
            o->pitch = uint64_t(o->width) * tb;
        } else {
            if (res.width == 0 || res.height == 0 || res.width > kMaxImageDim || res.height > kMaxImageDim)
                return make_error(ErrorCode::Invalid, "texture: size {}x{} is outside 1..{}", res.width, res.height,
                                  kMaxImageDim);
            if (res.pitch < uint64_t(res.width) * tb)
                return make_error(ErrorCode::Invalid, "texture: pitch {} is smaller than a row of {} texels", res.pitch,
                                  res.width);
            o->width = res.width;
            o->height = res.height;
            o->pitch = res.pitch;
        }
        if (res.ptr % std::min<uint32_t>(tb, 4) != 0)
            return make_error(ErrorCode::Invalid, "texture: address 0x{:x} is not aligned to its texels", res.ptr);
        o->span = o->pitch * (o->height - 1) + uint64_t(o->width) * tb;
        D4R_TRY(device.impl().find(res.ptr, o->span, "texture memory"));
        o->base = reinterpret_cast<uint8_t*>(res.ptr);
        o->device_memory = true;
        break;
    }
    case ResourceDesc::Kind::Volume:
        D4R_TRY(bind_volume(device, res, *o));
        // The H200's trilinear weights are neither exact products nor the bilinear rule per slice (measured:
        // tests/device/texture-volume.sh); until they are modelled, refuse rather than differ.
        if (o->geometry == Geometry::Volume3D && desc.filter == FilterMode::Linear)
            return make_error(ErrorCode::Unsupported, "texture: linear filtering of 3D textures is not supported");
        break;
    default:
        return make_error(ErrorCode::Invalid, "texture: invalid resource kind");
    }
    o->filter_class = D4R_TRY(filter_class(o->format, desc.read));
    if (o->filter_class == FilterClass::Integer && desc.filter == FilterMode::Linear)
        return make_error(ErrorCode::Invalid, "texture: linear filtering needs float texels or normalised-float reads");
    set_border(*o);
    return device.impl().images.add(std::move(o));
}

std::shared_ptr<const ImageTable> image_snapshot(Device& device) { return device.impl().images.snapshot(); }

Status destroy_texture_object(Device& device, TexObject tex) {
    return device.impl().images.remove(tex, ImageObject::Kind::Texture);
}

Expected<SurfObject> create_surface_object(Device& device, ArrayId array) {
    std::shared_ptr<ArrayStore> a = D4R_TRY(device.impl().images.array(array));
    if (!a->desc.surface)
        return make_error(ErrorCode::Invalid, "surface: array {} was not created for surface load/store", array);
    auto o = std::make_shared<ImageObject>();
    o->kind = ImageObject::Kind::Surface;
    o->base = a->bytes();
    o->pitch = a->pitch;
    o->width = a->desc.width;
    o->height = a->desc.height;
    o->format = a->desc.format;
    o->channels = a->desc.channels;
    o->texel_bytes = a->texel_bytes;
    o->array = std::move(a);
    return device.impl().images.add(std::move(o));
}

Expected<SurfObject> create_surface_object(Device& device, const ResourceDesc& res) {
    if (res.kind != ResourceDesc::Kind::Volume)
        return make_error(ErrorCode::Invalid, "surface: only arrays and volumes can back surface objects");
    auto o = std::make_shared<ImageObject>();
    o->kind = ImageObject::Kind::Surface;
    D4R_TRY(bind_volume(device, res, *o));
    return device.impl().images.add(std::move(o));
}

Status destroy_surface_object(Device& device, SurfObject surf) {
    return device.impl().images.remove(surf, ImageObject::Kind::Surface);
}

} // namespace d4r::ptxsim
