// A thread Wine knows (wine_thread.h).
#include "bridge/wine_thread.h"

#include <windows.h>

namespace d4r::bridge {

namespace {

struct Start {
    void (*body)(void*);
    void* arg;
};

DWORD WINAPI thread_main(void* p) {
    Start s = *static_cast<Start*>(p);
    delete static_cast<Start*>(p);
    s.body(s.arg);
    return 0;
}

} // namespace

bool start_wine_thread(void (*body)(void*), void* arg) {
    auto* s = new Start{body, arg};
    HANDLE h = CreateThread(nullptr, 0, &thread_main, s, 0, nullptr);
    if (!h) {
        delete s;
        return false;
    }
    CloseHandle(h);
    return true;
}

uint32_t windows_process_id() { return GetCurrentProcessId(); }
uint32_t windows_thread_id() { return GetCurrentThreadId(); }

} // namespace d4r::bridge
