// d4r NGX shim: the D3D12 meaning of the common part's opaque handles, and the frame's resources checked
// against what D3D12 says about them.
//
// Promise: `validate_frame` fills each present resource's format from its description and refuses, with a
// message naming the plane, its size and format: a resource that is not a single-sample 2D texture
// (FAIL_UnsupportedInputFormat), a format the plane does not accept (FAIL_UnsupportedFormat, formats.h), a
// region outside the resource (FAIL_InvalidParameter). Planes are checked in the order colour, depth, motion,
// output, exposure; the first refusal is returned.
#pragma once

#include <d3d12.h>

#include <optional>

#include "shim/api_device.h"
#include "shim/data_path.h"

namespace d4r::shim::d3d12 {

inline ID3D12Resource* resource(ResourceHandle handle) { return reinterpret_cast<ID3D12Resource*>(handle); }
inline ID3D12GraphicsCommandList* command_list(CommandListHandle handle) {
    return reinterpret_cast<ID3D12GraphicsCommandList*>(handle);
}
inline CommandListHandle handle(ID3D12GraphicsCommandList* list) { return reinterpret_cast<CommandListHandle>(list); }

std::optional<Refusal> validate_frame(GameFrame& frame);

} // namespace d4r::shim::d3d12
