// The Wine bridge (nvcuda.dll): a thread Wine knows, for running the application's Windows code (host
// callbacks) that libd4rcuda's own threads must not call, and the Windows ids of the caller. Kept apart
// from bridge.cpp so that <windows.h> and the CUDA declarations never meet in one file.
#pragma once

#include <cstdint>

namespace d4r::bridge {

// Starts a detached Wine thread running BODY(ARG); false when it cannot be created. Call it from a
// Wine thread (any thread of the application).
bool start_wine_thread(void (*body)(void*), void* arg);

// GetCurrentProcessId() and GetCurrentThreadId(): what a Windows driver knows the caller by. Call them
// from a Wine thread only.
uint32_t windows_process_id();
uint32_t windows_thread_id();

} // namespace d4r::bridge
