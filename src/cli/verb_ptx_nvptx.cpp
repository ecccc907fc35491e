// d4r ptx nvptx: the round trip of issue 29 for one PTX module (jit/nvptx/nvptx_module.h): read by d4r's front end,
// lowered to LLVM IR and printed back as PTX by LLVM's NVPTX back end.
#include <memory>
#include <string>

#include <fmt/format.h>

#include "cli_common.h"
#include "core/files.h"
#include "jit/llvm_library.h"
#include "jit/nvptx/nvptx_module.h"
#include "verbs.h"

namespace d4r::cli {

namespace {

struct NvptxOptions {
    std::string file;
    std::string out;
    std::string cpu = "sm_90";
    std::string features = "+ptx80";
    bool no_inline_ptx = false;
};

int run(const NvptxOptions& o) {
    auto text = read_text_file(o.file, 64ull << 20);
    if (!text) {
        fmt::print(stderr, "d4r ptx nvptx: {}\n", text.error().text());
        return kExitUsage;
    }
    auto llvm = jit::load_llvm_library(jit::default_llvm_candidates());
    if (!llvm) {
        fmt::print(stderr, "d4r ptx nvptx: {}\n", llvm.error().text());
        return kExitFailed;
    }
    jit::NvptxOptions options;
    options.cpu = o.cpu;
    options.features = o.features;
    options.inline_ptx = !o.no_inline_ptx;
    const std::string name = std::filesystem::path(o.file).filename().string();
    auto ptx = jit::round_trip_ptx(**llvm, *text, name, options);
    if (!ptx) {
        fmt::print(stderr, "d4r ptx nvptx: {}\n", ptx.error().text());
        return kExitFailed;
    }
    if (o.out.empty() || o.out == "-") {
        fmt::print("{}", *ptx);
        return kExitOk;
    }
    if (Status s = write_file_atomic(o.out, *ptx); !s.ok()) {
        fmt::print(stderr, "d4r ptx nvptx: {}\n", s.error().text());
        return kExitFailed;
    }
    return kExitOk;
}

} // namespace

void register_ptx_nvptx_verb(CLI::App& ptx) {
    auto o = std::make_shared<NvptxOptions>();
    CLI::App* sub = ptx.add_subcommand(
        "nvptx", "The round trip through LLVM's NVPTX back end: read FILE with d4r's PTX front end, lower every\n"
                 "kernel's typed instructions to LLVM IR and print them back as PTX (docs/ptx-front-end.md, \"The\n"
                 "round trip\"). Run on an NVIDIA GPU, the output must compute what FILE computes.\n"
                 "A construct the lowering does not handle is refused, naming the kernel, line and instruction.");
    sub->footer("Exit status: 0 written, 1 refused (or no libLLVM with the NVPTX back end), 2 FILE unreadable.");
    sub->add_option("file", o->file, "PTX file")->required();
    sub->add_option("-o,--out", o->out, "output PTX file (default: standard output); written whole or not at all");
    sub->add_option("--cpu", o->cpu, "the output's .target (default sm_90)");
    sub->add_option("--features", o->features,
                    "LLVM's NVPTX features: the PTX ISA version LLVM prints (default +ptx80; the\n"
                    "output says the input's .version where that is higher)");
    sub->add_flag("--no-inline-ptx", o->no_inline_ptx,
                  "refuse the instructions LLVM 19 has no intrinsic for (tanh.approx, div.full, bar.arrive, FP8\n"
                  "cvt and mma, ...) instead of passing each through as one inline PTX instruction");
    set_action(sub, [o] { return run(*o); });
}

} // namespace d4r::cli
