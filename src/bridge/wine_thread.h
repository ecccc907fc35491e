// The Wine bridge (nvcuda.dll): a thread Wine knows, for running the application's Windows code (host
// callbacks) that libd4rcuda's own threads must not call. Kept apart from bridge.cpp so that <windows.h>
// and the CUDA declarations never meet in one file.
#pragma once

namespace d4r::bridge {

// Starts a detached Wine thread running BODY(ARG); false when it cannot be created. Call it from a
// Wine thread (any thread of the application).
bool start_wine_thread(void (*body)(void*), void* arg);

} // namespace d4r::bridge
