// fuzz_cuda_api: streams (callbacks, waits, attributes) and events.
#include "fuzz_api.h"

namespace fuzz_api {

void op_stream(Input& in) {
    CUstream s = pick_stream(in);
    switch (in.u8() % 14) {
    case 0:
    case 1: {
        if (P->stream.live.size() >= 16) return;
        CUstream n = nullptr;
        CUresult r =
            in.flip() ? T->cuStreamCreate(in.u8() % 16 ? &n : nullptr, in.u8() % 4 ? in.below(2) : in.u32())
                      : T->cuStreamCreateWithPriority(&n, in.below(3), in.u8() % 4 ? -int(in.below(6)) : int(in.u32()));
        if (r == CUDA_SUCCESS) {
            CHECK(n != nullptr);
            P->stream.add(n);
        }
        return;
    }
    case 2:
        if ((in.flip() ? T->cuStreamDestroy_v2(s) : T->cuStreamDestroy(s)) == CUDA_SUCCESS) P->stream.kill(s);
        return;
    case 3:
        (void)T->cuStreamQuery(s);
        return;
    case 4:
        (void)T->cuStreamSynchronize(s);
        return;
    case 5:
        (void)T->cuStreamWaitEvent(s, pick(in, P->event), in.u8() % 4 ? 0 : in.u32());
        return;
    case 6: {
        int prio;
        unsigned flags;
        CUcontext c;
        (void)T->cuStreamGetPriority(s, in.flip() ? &prio : nullptr);
        (void)T->cuStreamGetFlags(s, in.flip() ? &flags : nullptr);
        (void)T->cuStreamGetCtx(s, in.flip() ? &c : nullptr);
        return;
    }
    case 7:
        if (in.flip())
            (void)T->cuStreamAddCallback(s, in.u8() % 8 ? stream_cb : nullptr, nullptr, in.u8() % 4 ? 0 : in.u32());
        else
            (void)T->cuLaunchHostFunc(s, pick_host_fn(in), s);
        return;
    case 8: {
        CUstreamAttrValue v;
        in.fill(&v, sizeof v);
        if (in.flip()) v.accessPolicyWindow.base_ptr = reinterpret_cast<void*>(pick_dptr(in));
        auto attr = static_cast<CUstreamAttrID>(in.u8() % 4 ? in.below(12) : int(in.u32()));
        (void)T->cuStreamSetAttribute(s, attr, in.u8() % 8 ? &v : nullptr);
        (void)T->cuStreamGetAttribute(s, attr, in.u8() % 8 ? &v : nullptr);
        (void)T->cuStreamCopyAttributes(s, pick_stream(in));
        return;
    }
    case 9: {
        // Waits only on the word the harness holds at 1, with conditions that hold for it, or on
        // addresses d4r refuses; a write may go anywhere.
        CUdeviceptr flag = reinterpret_cast<CUdeviceptr>(g_flag);
        CUdeviceptr addr;
        switch (in.u8() % 4) {
        case 0:
            addr = flag + 1 + in.below(3);
            break; // misaligned
        case 1:
            addr = in.flip() ? 0 : 0x10;
            break;
        default:
            addr = flag;
        }
        static const unsigned modes[] = {0 /*GEQ*/, 1 /*EQ*/, 2 /*AND*/, 3 /*NOR*/};
        unsigned mode = modes[in.below(4)], flags = mode | (in.flip() ? (1u << 30) : 0);
        cuuint64_t value = mode == 0 ? in.below(2) : mode == 1 ? 1 : mode == 2 ? (in.u32() | 1) : 0;
        if (in.u8() % 8 == 0) flags = in.u32() | 4; // an unknown mode: refused
        if (in.flip())
            (void)T->cuStreamWaitValue32_v2(s, addr, cuuint32_t(value), flags);
        else
            (void)T->cuStreamWaitValue64_v2(s, addr, value, flags); // the 64-bit word is 1 too
        return;
    }
    case 10: {
        CUdeviceptr addr = pick_dptr(in);
        if (addr == reinterpret_cast<CUdeviceptr>(g_flag)) return;
        if (in.flip())
            (void)T->cuStreamWriteValue32_v2(s, addr, in.u32(), in.u8() % 4 ? in.below(2) : in.u32());
        else
            (void)T->cuStreamWriteValue64_v2(s, addr, in.u64(), in.u8() % 4 ? in.below(2) : in.u32());
        return;
    }
    case 11: {
        CUstreamBatchMemOpParams ops[3];
        std::memset(ops, 0, sizeof ops);
        unsigned count = unsigned(in.below(4));
        for (auto& op : ops) {
            unsigned kind = unsigned(in.below(7));
            op.operation = static_cast<CUstreamBatchMemOpType>(kind);
            if (kind == CU_STREAM_MEM_OP_WAIT_VALUE_32 ||
                kind == CU_STREAM_MEM_OP_WAIT_VALUE_64) { // on the flag word, which holds
                op.waitValue.address = reinterpret_cast<CUdeviceptr>(g_flag);
                op.waitValue.value64 = 1;
                op.waitValue.flags = 1; // EQ
            } else {
                op.writeValue.address = pick_dptr(in);
                if (op.writeValue.address == reinterpret_cast<CUdeviceptr>(g_flag)) op.writeValue.address = 0;
                op.writeValue.value64 = in.u64();
                op.writeValue.flags = in.u8() % 4 ? 0 : in.u32();
            }
        }
        (void)T->cuStreamBatchMemOp_v2(s, in.u8() % 8 ? count : ~0u, in.u8() % 8 ? ops : nullptr,
                                       in.u8() % 4 ? 0 : in.u32());
        return;
    }
    default: {
        CUstreamCaptureStatus st;
        (void)T->cuStreamIsCapturing(s, in.flip() ? &st : nullptr);
        return;
    }
    }
}

void op_event(Input& in) {
    CUevent e = pick(in, P->event);
    switch (in.u8() % 8) {
    case 0:
    case 1: {
        if (P->event.live.size() >= 16) return;
        CUevent n = nullptr;
        if (T->cuEventCreate(in.u8() % 16 ? &n : nullptr, in.u8() % 4 ? in.below(8) : in.u32()) == CUDA_SUCCESS) {
            CHECK(n != nullptr);
            P->event.add(n);
        }
        return;
    }
    case 2:
        if ((in.flip() ? T->cuEventDestroy_v2(e) : T->cuEventDestroy(e)) == CUDA_SUCCESS) P->event.kill(e);
        return;
    case 3:
        if (in.flip())
            (void)T->cuEventRecord(e, pick_stream(in));
        else
            (void)T->cuEventRecordWithFlags(e, pick_stream(in), in.u8() % 4 ? in.below(2) : in.u32());
        return;
    case 4:
        (void)T->cuEventQuery(e);
        return;
    case 5:
        (void)T->cuEventSynchronize(e);
        return;
    default: {
        float ms;
        (void)T->cuEventElapsedTime(in.flip() ? &ms : nullptr, e, pick(in, P->event));
        (void)T->cuEventElapsedTime_v2(in.flip() ? &ms : nullptr, pick(in, P->event), e);
        return;
    }
    }
}

} // namespace fuzz_api
