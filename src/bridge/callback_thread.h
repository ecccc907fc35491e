// The Wine bridge (nvcuda.dll): the one thread Wine created on which application callbacks run when
// libd4rcuda calls them from a thread of its own (bridge.cpp holds it).
//
// Promise: run_on_callback_thread() runs JOB on that thread and returns when JOB has run, so the caller
// (a stream worker, a context teardown) stays ordered as CUDA orders it. start_callback_thread() must have
// answered true first, called from a Wine thread (any thread of the application).
#pragma once

#include <functional>

namespace d4r::bridge {

bool start_callback_thread();
void run_on_callback_thread(const std::function<void()>& job);

} // namespace d4r::bridge
