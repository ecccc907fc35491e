// cpu backend: the active state, the per-context worker, handle lookups and the address regions.
#include "runtime/backends/cpu/cpu_state.h"

#include <pthread.h>
#include <thread>

#include "core/log.h"
#include "ptxsim/ptxsim_texture.h"
#include "runtime/refusal.h"

namespace d4r::runtime::cpu {

namespace detail {
// Default TLS model: the library is dlopen'ed (initial-exec would fail to load there).
constinit thread_local State* t_bound = nullptr;
constinit std::atomic<State*> g_active{nullptr};
} // namespace detail

namespace {

// The live States, oldest first; the last is the active one. Never destroyed: API calls may run while
// static destructors do (atexit handlers of applications).
struct Live {
    std::mutex mutex;
    std::vector<State*> states;
};

Live& live() {
    static Live* l = new Live;
    return *l;
}

} // namespace

void activate(State* s) {
    Live& l = live();
    std::lock_guard lock(l.mutex);
    l.states.push_back(s);
    detail::g_active.store(s, std::memory_order_release);
}

void retire(State* s) {
    Live& l = live();
    std::lock_guard lock(l.mutex);
    std::erase(l.states, s);
    detail::g_active.store(l.states.empty() ? nullptr : l.states.back(), std::memory_order_release);
}

State::~State() {
    std::vector<std::shared_ptr<Context>> alive;
    {
        std::lock_guard lock(mutex);
        for (auto& [h, c] : contexts) alive.push_back(c);
    }
    for (auto& c : alive) c->drain();
    auto drop_parts = [&] {
        for (auto& p : m_parts) p.store(nullptr);
        while (!m_owned_parts.empty()) m_owned_parts.pop_back();
    };
    drop_parts();
    // What these objects give back on the way out (a module's bytes to the budget, ...) may make a part
    // again; it goes with the second drop.
    kernels.clear();
    libraries.clear();
    functions.clear();
    modules.clear();
    arrays.clear();
    events.clear();
    streams.clear();
    drop_parts();
    primary = PrimaryState{};
    alive.clear();
    contexts.clear();
}

BoundState::BoundState(State* state) : m_previous(detail::t_bound) { detail::t_bound = state; }
BoundState::~BoundState() { detail::t_bound = m_previous; }

// ---- Context worker --------------------------------------------------------------------------------------

namespace {

thread_local bool t_is_worker = false;           // this thread is some context's worker
thread_local Context* t_back_pressure = nullptr; // the context whose full queue this thread must wait for

} // namespace

Context::Context() : owner(&state()) {
    null_stream.ctx = this;
    m_thread = std::thread([this] { loop(); });
}

Context::~Context() {
    if (sticky.load() != CUDA_SUCCESS) owner->faulted_contexts.fetch_sub(1);
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_work.notify_all();
    m_room.notify_all();
    // The last reference can be dropped by a finished task on the worker itself.
    if (m_thread.get_id() == std::this_thread::get_id())
        m_thread.detach();
    else if (m_thread.joinable())
        m_thread.join();
}

uint64_t Context::submit(Stream* stream, Task task) {
    uint64_t seq;
    {
        std::lock_guard lock(m_mutex);
        seq = ++m_submitted;
        m_queue.emplace_back(seq, std::move(task));
        (stream ? stream : &null_stream)->last_seq.store(seq, std::memory_order_release);
        if (m_queue.size() >= kMaxPending && !t_is_worker) t_back_pressure = this;
    }
    m_work.notify_one();
    return seq;
}

void Context::throttle() {
    std::unique_lock lock(m_mutex);
    if (m_queue.size() <= kResumePending || m_stop) return;
    ++m_throttled;
    m_room.wait(lock, [&] { return m_queue.size() <= kResumePending || m_stop; });
    --m_throttled;
}

void apply_back_pressure() {
    Context* c = t_back_pressure;
    if (!c) return;
    t_back_pressure = nullptr;
    // Looked up again: the context may have been destroyed since the call queued its work.
    if (auto ctx = find_context(reinterpret_cast<CUcontext>(c))) ctx->throttle();
}

void Context::wait(uint64_t seq) {
    if (done(seq)) return;
    std::unique_lock lock(m_mutex);
    auto target = m_wait_targets.insert(seq);
    m_idle.wait(lock, [&] { return done(seq); });
    m_wait_targets.erase(target);
}

void Context::drain() {
    uint64_t seq;
    {
        std::lock_guard lock(m_mutex);
        seq = m_submitted;
    }
    wait(seq);
}

bool Context::idle() {
    std::lock_guard lock(m_mutex);
    return done(m_submitted);
}

void Context::fail(CUresult r) {
    CUresult expected = CUDA_SUCCESS;
    if (r != CUDA_SUCCESS && sticky.compare_exchange_strong(expected, r)) owner->faulted_contexts.fetch_add(1);
}

void Context::loop() {
    t_is_worker = true;
    const BoundState bound(owner);
    for (;;) {
        std::pair<uint64_t, Task> item;
        bool room = false;
        {
            std::unique_lock lock(m_mutex);
            m_work.wait(lock, [&] { return m_stop || !m_queue.empty(); });
            if (m_queue.empty()) return; // stopping and drained
            item = std::move(m_queue.front());
            m_queue.pop_front();
            room = m_throttled > 0 && m_queue.size() <= kResumePending;
        }
        if (room) m_room.notify_all();
        item.second(sticky.load());
        item.second = nullptr; // destroy captures before reporting completion
        bool wake = false;
        {
            std::lock_guard lock(m_mutex);
            m_completed.store(item.first, std::memory_order_release);
            wake = !m_wait_targets.empty() && *m_wait_targets.begin() <= item.first;
        }
        if (wake) m_idle.notify_all();
    }
}

// ---- Lookups ---------------------------------------------------------------------------------------------

// The calling thread's context stack. Not a thread_local std::vector: that is destroyed when the thread
// (for the main thread: the process) exits, and entry points still run after that (cudart's exit
// handlers call cuCtx* and cuModuleUnload), which would use a destroyed vector. The thread_local is a
// plain pointer; a pthread key frees the vector when a thread other than the main one ends (and forgets
// it, so a later call on that thread starts a new one), and the main thread's lives as long as the process.
namespace {
thread_local std::vector<CUcontext>* t_context_stack = nullptr;

void free_context_stack(void* p) {
    if (t_context_stack == p) t_context_stack = nullptr;
    delete static_cast<std::vector<CUcontext>*>(p);
}
} // namespace

std::vector<CUcontext>& context_stack() {
    static const pthread_key_t key = [] {
        pthread_key_t k;
        pthread_key_create(&k, &free_context_stack);
        return k;
    }();
    if (!t_context_stack) {
        t_context_stack = new std::vector<CUcontext>();
        pthread_setspecific(key, t_context_stack);
    }
    return *t_context_stack;
}

std::shared_ptr<Context> find_context(CUcontext h) {
    State& s = state();
    std::lock_guard lock(s.mutex);
    auto it = s.contexts.find(h);
    return it == s.contexts.end() ? nullptr : it->second;
}

CUresult current_context(std::shared_ptr<Context>& out) {
    auto& stack = context_stack();
    D4R_CPU_REFUSE_IF(stack.empty(), CUDA_ERROR_INVALID_CONTEXT);
    out = find_context(stack.back());
    return out ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

CUresult resolve_stream(CUstream h, StreamRef& out) {
    if (is_special_stream(h)) {
        if (CUresult r = current_context(out.ctx)) return r;
        out.stream = &out.ctx->null_stream;
        return CUDA_SUCCESS;
    }
    State& s = state();
    std::lock_guard lock(s.mutex);
    auto it = s.streams.find(h);
    D4R_CPU_REFUSE_IF(it == s.streams.end(), CUDA_ERROR_INVALID_HANDLE);
    auto ctx = s.contexts.find(it->second->ctx);
    D4R_CPU_REFUSE_IF(ctx == s.contexts.end(), CUDA_ERROR_INVALID_HANDLE);
    out.ctx = ctx->second;
    out.owned = it->second;
    out.stream = it->second.get();
    return CUDA_SUCCESS;
}

template <typename T>
static std::shared_ptr<T> find_in(std::unordered_map<void*, std::shared_ptr<T>>& map, void* h) {
    std::lock_guard lock(state().mutex);
    auto it = map.find(h);
    return it == map.end() ? nullptr : it->second;
}

std::shared_ptr<Event> find_event(CUevent h) { return find_in(state().events, h); }
std::shared_ptr<Function> find_function(CUfunction h) {
    if (auto f = find_in(state().functions, h)) return f;
    return kernel_function(h);
}
std::shared_ptr<Module> find_module(CUmodule h) { return find_in(state().modules, h); }

// ---- Regions ---------------------------------------------------------------------------------------------

void add_region(const Region& region) {
    State& s = state();
    std::unique_lock lock(s.regions_mutex);
    Region r = region;
    r.id = s.next_buffer_id++;
    s.regions[r.base] = r;
}

bool remove_region(uint64_t base, Region* removed) {
    State& s = state();
    std::unique_lock lock(s.regions_mutex);
    auto it = s.regions.find(base);
    if (it == s.regions.end()) return false;
    if (removed) *removed = it->second;
    s.regions.erase(it);
    return true;
}

bool find_region(uint64_t address, uint64_t bytes, Region* out) {
    State& s = state();
    std::shared_lock lock(s.regions_mutex);
    auto it = s.regions.upper_bound(address);
    if (it == s.regions.begin()) return false;
    --it;
    const Region& r = it->second;
    uint64_t end = r.base + std::max<uint64_t>(r.size, 1);
    if (address < r.base || address >= end) return false;
    if (bytes > end - address) return false;
    if (out) *out = r;
    return true;
}

bool mapped_span(uint64_t address, uint64_t bytes) {
    State& s = state();
    std::shared_lock lock(s.regions_mutex);
    auto it = s.regions.upper_bound(address);
    if (it == s.regions.begin()) return false;
    --it;
    uint64_t end = address + bytes;
    if (end < address) return false;
    uint64_t at = address;
    while (it != s.regions.end() && it->second.kind == RegionKind::Mapped && it->first <= at &&
           at < it->first + it->second.size) {
        at = it->first + it->second.size;
        if (at >= end) return true;
        ++it;
    }
    return false;
}

void expose_to_kernels(uint64_t base, uint64_t size) {
    if (Status st = state().device.add_foreign(base, size); !st) log::warn("cpu backend: {}", st.error().text());
}

void hide_from_kernels(uint64_t base) {
    if (Status st = state().device.remove_foreign(base); !st) log::debug("cpu backend: {}", st.error().text());
}

void release_context_regions(Context* ctx) {
    State& s = state();
    std::vector<Region> dropped;
    {
        std::unique_lock lock(s.regions_mutex);
        for (auto it = s.regions.begin(); it != s.regions.end();) {
            if (it->second.ctx == ctx) {
                dropped.push_back(it->second);
                it = s.regions.erase(it);
            } else {
                ++it;
            }
        }
    }
    for (const Region& r : dropped) {
        if (r.kind == RegionKind::Device || r.kind == RegionKind::HostAlloc || r.kind == RegionKind::Array ||
            r.kind == RegionKind::Managed)
            (void)s.device.free(r.base);
        else if (r.kind == RegionKind::HostRegistered || r.kind == RegionKind::External)
            hide_from_kernels(r.base);
    }
}

void release_context_objects(Context* ctx) {
    State& s = state();
    std::vector<uint64_t> sim_arrays; // ptxsim keeps their texels until told (cuArrayDestroy does the same)
    {
        std::lock_guard lock(s.mutex);
        std::erase_if(s.streams, [&](const auto& kv) { return kv.second->ctx == ctx; });
        std::erase_if(s.events, [&](const auto& kv) { return kv.second->owner == ctx; });
        std::erase_if(s.functions, [&](const auto& kv) { return kv.second->module->ctx == ctx; });
        for (auto& [h, library] : s.libraries) library->modules.erase(ctx); // loaded again when used
        std::erase_if(s.modules, [&](const auto& kv) { return kv.second->ctx == ctx; });
        std::erase_if(s.arrays, [&](const auto& kv) {
            if (kv.second->ctx != ctx) return false;
            if (kv.second->sim) sim_arrays.push_back(kv.second->sim);
            return true;
        });
    }
    for (uint64_t id : sim_arrays) (void)ptxsim::destroy_array(s.device, id);
    release_context_regions(ctx);
}

int sm_count() {
    unsigned n = std::thread::hardware_concurrency();
    return n ? static_cast<int>(n) : 1;
}

} // namespace d4r::runtime::cpu
