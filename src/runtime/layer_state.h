// libd4rcuda internals: what a layer of the stack remembers, owned by the Runtime that built it.
//
// Promise: each layer (module registry, native-kernel overrides, observe, export tables, d4r's own export
// tables, legacy launch, trace, init gate) keeps all its state in one struct derived from LayerState, held in that
// layer's slot of a Runtime (runtime_object.h). The layer's entry points are plain C function pointers in
// an ApiTable, so they reach the state through the installed Runtime (Runtime::current()); only log-once
// flags and the constant tables d4r hands out are process-wide. Destroying the Runtime destroys every
// layer's state.
#pragma once

#include <cstddef>

namespace d4r::runtime {

struct LayerState {
    virtual ~LayerState() = default;
};

// One slot per layer that keeps state.
enum class LayerSlot : unsigned char {
    Registry,
    Overrides,
    Observe,
    ExportTables,
    OwnTables,
    LegacyLaunch,
    Trace,
    InitGate,
    Count
};
constexpr size_t kLayerSlotCount = static_cast<size_t>(LayerSlot::Count);

} // namespace d4r::runtime
