// The shim's queues and the split of the game's command list (d3d12/submit.h).
#include "shim/d3d12/submit.h"

#include <fmt/format.h>

namespace d4r::shim::d3d12 {

std::string hresult_text(HRESULT hr) {
    const char* name = nullptr;
    switch (static_cast<unsigned long>(hr)) {
    case 0x80070057ul:
        name = "E_INVALIDARG";
        break;
    case 0x8007000Eul:
        name = "E_OUTOFMEMORY";
        break;
    case 0x80004005ul:
        name = "E_FAIL";
        break;
    case 0x80004001ul:
        name = "E_NOTIMPL";
        break;
    case 0x887A0005ul:
        name = "DXGI_ERROR_DEVICE_REMOVED";
        break;
    case 0x887A0001ul:
        name = "DXGI_ERROR_INVALID_CALL";
        break;
    default:
        break;
    }
    return name ? fmt::format("{} ({:#010x})", name, static_cast<unsigned long>(hr))
                : fmt::format("HRESULT {:#010x}", static_cast<unsigned long>(hr));
}

namespace {
template <typename T>
void release(T*& p) {
    if (p) p->Release();
    p = nullptr;
}
} // namespace

Submitter::Submitter(ID3D12Device* device) : m_device(device) { m_device->AddRef(); }

Submitter::~Submitter() {
    for (Queue& q : m_queues) {
        release(q.own_list);
        release(q.own_allocator);
        for (auto*& a : q.ring) release(a);
        release(q.queue);
    }
    release(m_fence);
    if (m_event) CloseHandle(m_event);
    release(m_device);
}

Expected<Submitter::Queue*> Submitter::queue(D3D12_COMMAND_LIST_TYPE type) {
    if (!m_fence) {
        HRESULT hr =
            m_device->CreateFence(0, D3D12_FENCE_FLAG_NONE, __uuidof(ID3D12Fence), reinterpret_cast<void**>(&m_fence));
        if (FAILED(hr)) return make_error(ErrorCode::Io, "CreateFence: {}", hresult_text(hr));
        m_event = CreateEventW(nullptr, FALSE, FALSE, nullptr);
        if (!m_event) return make_error(ErrorCode::Io, "CreateEvent: Windows error {}", GetLastError());
    }
    for (Queue& q : m_queues)
        if (q.type == type) return &q;
    Queue q;
    q.type = type;
    D3D12_COMMAND_QUEUE_DESC desc{};
    desc.Type = type;
    HRESULT hr = m_device->CreateCommandQueue(&desc, __uuidof(ID3D12CommandQueue), reinterpret_cast<void**>(&q.queue));
    if (FAILED(hr)) return make_error(ErrorCode::Io, "CreateCommandQueue (type {}): {}", int(type), hresult_text(hr));
    m_queues.push_back(q);
    return &m_queues.back();
}

Status Submitter::execute_and_wait(Queue& q, ID3D12CommandList* list, unsigned timeout_ms) {
    q.queue->ExecuteCommandLists(1, &list);
    UINT64 value = ++m_fence_value;
    HRESULT hr = q.queue->Signal(m_fence, value);
    if (FAILED(hr)) return make_error(ErrorCode::Io, "ID3D12CommandQueue::Signal: {}", hresult_text(hr));
    if (m_fence->GetCompletedValue() >= value) return {};
    hr = m_fence->SetEventOnCompletion(value, m_event);
    if (FAILED(hr)) return make_error(ErrorCode::Io, "ID3D12Fence::SetEventOnCompletion: {}", hresult_text(hr));
    if (WaitForSingleObject(m_event, timeout_ms) != WAIT_OBJECT_0 && m_fence->GetCompletedValue() < value)
        return make_error(ErrorCode::Io, "the GPU did not finish the copies within {} ms", timeout_ms);
    return {};
}

Status Submitter::split(ID3D12GraphicsCommandList* list, unsigned timeout_ms) {
    std::lock_guard lock(m_mutex);
    Queue* q = D4R_TRY(queue(list->GetType()));
    HRESULT hr = list->Close();
    if (FAILED(hr))
        return make_error(ErrorCode::Invalid, "closing the game's command list: {} (was it recording?)",
                          hresult_text(hr));
    Status ran = execute_and_wait(*q, list, timeout_ms);

    // Reopen the game's list in every case: it was recording when the game handed it over.
    if (q->ring.empty()) q->ring.resize(kAllocatorRing, nullptr);
    ID3D12CommandAllocator*& allocator = q->ring[q->next];
    q->next = (q->next + 1) % kAllocatorRing;
    if (!allocator) {
        hr = m_device->CreateCommandAllocator(q->type, __uuidof(ID3D12CommandAllocator),
                                              reinterpret_cast<void**>(&allocator));
        if (FAILED(hr)) return make_error(ErrorCode::Io, "CreateCommandAllocator: {}", hresult_text(hr));
    } else {
        allocator->Reset();
    }
    hr = list->Reset(allocator, nullptr);
    if (FAILED(hr)) return make_error(ErrorCode::Io, "reopening the game's command list: {}", hresult_text(hr));
    return ran;
}

Status Submitter::run(const std::function<void(ID3D12GraphicsCommandList*)>& record, unsigned timeout_ms) {
    std::lock_guard lock(m_mutex);
    Queue* q = D4R_TRY(queue(D3D12_COMMAND_LIST_TYPE_DIRECT));
    HRESULT hr;
    if (!q->own_allocator) {
        hr = m_device->CreateCommandAllocator(q->type, __uuidof(ID3D12CommandAllocator),
                                              reinterpret_cast<void**>(&q->own_allocator));
        if (FAILED(hr)) return make_error(ErrorCode::Io, "CreateCommandAllocator: {}", hresult_text(hr));
        hr = m_device->CreateCommandList(0, q->type, q->own_allocator, nullptr, __uuidof(ID3D12GraphicsCommandList),
                                         reinterpret_cast<void**>(&q->own_list));
        if (FAILED(hr)) return make_error(ErrorCode::Io, "CreateCommandList: {}", hresult_text(hr));
    } else {
        q->own_allocator->Reset();
        hr = q->own_list->Reset(q->own_allocator, nullptr);
        if (FAILED(hr)) return make_error(ErrorCode::Io, "ID3D12GraphicsCommandList::Reset: {}", hresult_text(hr));
    }
    record(q->own_list);
    hr = q->own_list->Close();
    if (FAILED(hr)) return make_error(ErrorCode::Io, "closing the shim's command list: {}", hresult_text(hr));
    return execute_and_wait(*q, q->own_list, timeout_ms);
}

} // namespace d4r::shim::d3d12
