// d4r NGX shim: the shim's own D3D12 queues, and splitting the game's command list around an evaluation.
//
// Promise: one Submitter per NGX device (the ID3D12Device of Init). `split` closes the game's command list,
// runs what it recorded so far on the shim's queue of the list's type, waits for it on the CPU (at most
// TIMEOUT), and reopens the game's list with one of the shim's command allocators, so that the game goes on
// recording into it and everything recorded later runs after the evaluation ("FrameAge 0"). The game's list
// is reopened whatever happened, unless it could not be closed (it was not recording). `run` records a
// list of the shim's own (the output copy), runs it and waits. Allocators that reopened a game's list are
// reused round-robin after kAllocatorRing splits: the shim cannot see when the game's queue has finished
// with them, so this assumes fewer frames in flight than that.
#pragma once

#include <d3d12.h>

#include <functional>
#include <mutex>
#include <vector>

#include "core/status.h"

namespace d4r::shim::d3d12 {

inline constexpr unsigned kAllocatorRing = 8;

class Submitter {
public:
    explicit Submitter(ID3D12Device* device);
    ~Submitter();
    Submitter(const Submitter&) = delete;
    Submitter& operator=(const Submitter&) = delete;

    ID3D12Device* device() const { return m_device; }
    Status split(ID3D12GraphicsCommandList* list, unsigned timeout_ms);
    // Records with RECORD into a fresh direct list, runs it on the shim's direct queue and waits.
    Status run(const std::function<void(ID3D12GraphicsCommandList*)>& record, unsigned timeout_ms);

private:
    struct Queue {
        D3D12_COMMAND_LIST_TYPE type;
        ID3D12CommandQueue* queue = nullptr;
        std::vector<ID3D12CommandAllocator*> ring; // for reopening the game's lists
        unsigned next = 0;
        ID3D12CommandAllocator* own_allocator = nullptr; // for the shim's own lists (idle after each wait)
        ID3D12GraphicsCommandList* own_list = nullptr;
    };
    Expected<Queue*> queue(D3D12_COMMAND_LIST_TYPE type);
    Status execute_and_wait(Queue& q, ID3D12CommandList* list, unsigned timeout_ms);

    std::mutex m_mutex;
    ID3D12Device* m_device;
    ID3D12Fence* m_fence = nullptr;
    HANDLE m_event = nullptr;
    UINT64 m_fence_value = 0;
    std::vector<Queue> m_queues;
};

// "E_INVALIDARG (0x80070057)"-style text of an HRESULT.
std::string hresult_text(HRESULT hr);

} // namespace d4r::shim::d3d12
