// libd4rcuda internals: CUDA's texture and resource-view descriptors to the dump format's and back.
//
// Promise: both directions live here, so that what the dump layer records is exactly what `d4r replay`
// re-creates: cuda_*(dump_*(d)) equals d field by field (reserved fields come back zero), and
// dump_*(cuda_*(x)) equals x.
#pragma once

#include "runtime/api_table.h"
#include "runtime/observe/dump_format.h"

namespace d4r::runtime {

DumpTextureDesc dump_texture_desc(const CUDA_TEXTURE_DESC& t);
CUDA_TEXTURE_DESC cuda_texture_desc(const DumpTextureDesc& t);

DumpViewDesc dump_view_desc(const CUDA_RESOURCE_VIEW_DESC& v);
CUDA_RESOURCE_VIEW_DESC cuda_view_desc(const DumpViewDesc& v);

} // namespace d4r::runtime
