// The forward pass on the host: the same plan as the device, the host kernels, host buffers.
#include "network/reference.h"

#include <vector>

#include "network/host_kernels.h"
#include "network/plan.h"

namespace d4r::network {

Status refine_reference(const Model& model, uint16_t* rgba, uint32_t width, uint32_t height, size_t pitch,
                        unsigned threads) {
    if (!rgba || width == 0 || height == 0 || width > 16384 || height > 16384)
        return make_error(ErrorCode::Invalid, "refine reference: image {}x{} (accepted: 1..16384, not null)", width,
                          height);
    if (pitch == 0) pitch = size_t(width) * 8;
    if (pitch < size_t(width) * 8 || pitch > UINT32_MAX)
        return make_error(ErrorCode::Invalid, "refine reference: row pitch {} for {} RGBA16F pixels", pitch, width);
    if (reads_core_frame(model.arch))
        return make_error(ErrorCode::Invalid, "refine reference: {} reads the core's frame, not an image", model.arch);
    const Geometry g = geometry_for(width, height);
    std::vector<uint8_t> weights = pack_weights(model);
    std::vector<uint64_t> scratch(scratch_layout(g).total / 8 + 1, 0); // 8-byte aligned
    for (const Launch& l : plan_forward(g, reinterpret_cast<uint64_t>(rgba), static_cast<uint32_t>(pitch),
                                        reinterpret_cast<uint64_t>(weights.data()),
                                        reinterpret_cast<uint64_t>(scratch.data()), model.arch))
        run_launch(l, threads);
    return ok_status();
}

} // namespace d4r::network
