// d4r demo: a synthetic scene upscaled by d4r's open NGX core through libd4rcuda (see src/demo/demo.h).
// Exit statuses: 0 done; 1 the run failed (a CUDA or NGX call, a file); 2 bad options.
#include <fmt/format.h>

#include "cli_common.h"
#include "core/strings.h"
#include "demo/demo.h"
#include "network/model_file.h"
#include "scene/scene.h"
#include "verbs.h"

namespace d4r::cli {

namespace {

struct DemoCliOptions {
    demo::DemoOptions demo;
    std::string render = "640x360", output = "1280x720", native = "on", network = "off";
    bool no_images = false, list_scenes = false, quiet = false;
};

Status parse_size(const std::string& text, const char* option, uint32_t& w, uint32_t& h) {
    size_t x = text.find_first_of("xX");
    auto bad = [&] {
        return make_error(ErrorCode::Invalid, "{} '{}': expected WIDTHxHEIGHT with both from 8 to 16384, e.g. 1280x720",
                          option, text);
    };
    if (x == std::string::npos) return bad();
    auto a = parse_u64(text.substr(0, x)), b = parse_u64(text.substr(x + 1));
    if (!a || !b || *a < 8 || *b < 8 || *a > 16384 || *b > 16384) return bad();
    w = static_cast<uint32_t>(*a);
    h = static_cast<uint32_t>(*b);
    return {};
}

int run_demo_verb(DemoCliOptions& o) {
    if (o.list_scenes) {
        for (const std::string& name : scene::scene_names()) {
            auto s = scene::make_scene(name);
            fmt::print("{:<10} {}\n", name, s ? (*s)->description() : "");
        }
        return kExitOk;
    }
    if (Status s = parse_size(o.render, "--render", o.demo.render_width, o.demo.render_height); !s)
        return report_error(s.error());
    if (Status s = parse_size(o.output, "--output", o.demo.output_width, o.demo.output_height); !s)
        return report_error(s.error());
    if (o.demo.output_width < o.demo.render_width || o.demo.output_height < o.demo.render_height)
        return report_error(make_error(ErrorCode::Invalid,
                                       "--output {} is smaller than --render {}: the output must be at "
                                       "least the render size",
                                       o.output, o.render));
    if (o.demo.frames == 0) return report_error(make_error(ErrorCode::Invalid, "--frames must be at least 1"));
    if (o.demo.dump_inputs && o.demo.dump_dir.empty())
        return report_error(make_error(ErrorCode::Invalid, "--dump-inputs needs --dump-frames DIR"));
    if (o.native != "on" && o.native != "off")
        return report_error(make_error(ErrorCode::Invalid, "--native '{}': expected on or off", o.native));
    o.demo.native = o.native == "on";
    if (o.network != "on" && o.network != "off")
        return report_error(make_error(ErrorCode::Invalid, "--network '{}': expected on or off", o.network));
    o.demo.network = o.network == "on";
    if (!o.demo.network_model.empty()) {
        if (!o.demo.network)
            return report_error(
                make_error(ErrorCode::Invalid, "--network-model {} needs --network on", o.demo.network_model));
        auto model = network::read_model(o.demo.network_model);
        if (!model) return report_error(model.error().add_context("--network-model"));
    }
    o.demo.write_images = !o.no_images;
    if (!o.demo.scene.empty()) {
        auto s = scene::make_scene(o.demo.scene);
        if (!s) return report_error(s.error());
    }
    bool quiet = o.quiet;
    auto report = demo::run_demo(o.demo, [quiet](const std::string& line) {
        if (!quiet) fmt::print("{}\n", line);
        std::fflush(stdout);
    });
    if (!report) {
        fmt::print(stderr, "d4r: error: demo: {}\n", report.error().text());
        return kExitFailed;
    }
    if (!quiet) {
        fmt::print("{}", demo::report_table(*report));
        fmt::print("wrote {}/report.json{}\n", o.demo.out_dir,
                   report->images.empty() ? "" : " and the PNGs of the last frame");
    }
    return kExitOk;
}

} // namespace

void register_demo_verb(CLI::App& root) {
    auto o = std::make_shared<DemoCliOptions>();
    CLI::App* sub = root.add_subcommand(
        "demo", "Upscale a synthetic game-like scene with d4r's open NGX core through d4r's CUDA runtime: per-frame "
                "progress, PNGs of the last frame, report.json, and a table of time, PSNR and SSIM against ground "
                "truth next to a bicubic upscale (and, with native kernels, the translated/native time ratio).");
    sub->add_option("--scene", o->demo.scene,
                    "Scene to render (default: the first; --list-scenes shows them; train-<seed> is a generated "
                    "training scene, never listed)");
    sub->add_flag("--list-scenes", o->list_scenes, "List the scenes and exit");
    sub->add_option("--frames", o->demo.frames, "Frames to upscale")->capture_default_str();
    sub->add_option("--render", o->render, "Render (input) size WxH")->capture_default_str();
    sub->add_option("--output", o->output, "Output size WxH")->capture_default_str();
    sub->add_option("--backend", o->demo.backend, "CUDA backend: auto, cpu, driver or driver:/path/libcuda.so")
        ->capture_default_str();
    sub->add_option("--native", o->native, "Serve the upscaler's native kernels (on|off)")->capture_default_str();
    sub->add_option("--native-root", o->demo.native_root,
                    "With --native on: the kernel root to serve them from (default: share/d4r/native beside bin/, "
                    "else the build tree's)")
        ->check(CLI::ExistingDirectory);
    sub->add_option("--network", o->network,
                    "Refine with the network (on|off); on adds the core-alone row of the same frames to the table")
        ->capture_default_str();
    sub->add_option("--network-model", o->demo.network_model,
                    "With --network on: the model file (e.g. share/d4r/models/refine-v1.d4rnet; default: the core's, "
                    "refine-v2.d4rnet unless D4R_NETWORK_MODEL says otherwise)");
    sub->add_option("--out", o->demo.out_dir, "Folder for the PNGs and report.json")->capture_default_str();
    sub->add_flag("--no-images", o->no_images, "Write report.json only");
    sub->add_option("--translated-frames", o->demo.translated_frames,
                    "Frames of a second run with native kernels off, for the translated/native ratio (0 = skip)")
        ->capture_default_str();
    sub->add_option("--lib-dir", o->demo.lib_dir,
                    "Folder with libd4r_ngx.so and libcuda.so.1 (default ../lib beside d4r)");
    sub->add_option("--dump-frames", o->demo.dump_dir,
                    "Write every frame's output and ground truth (RGB f16, linear) to DIR/SCENE-fNNN.d4rframe, for "
                    "training (docs/demo.md)");
    sub->add_flag("--dump-inputs", o->demo.dump_inputs,
                  "With --dump-frames: also dump the core's inputs (colour, depth, motion, jitter) and its accumulate "
                  "step's intermediates (history before the clamp, reconstruction, blend weight), version 2 dumps "
                  "(docs/demo.md)");
    sub->add_option("--scene-threads", o->demo.scene_threads, "Threads rendering the scene (0 = every core)")
        ->capture_default_str();
    sub->add_flag("--quiet", o->quiet, "Print nothing but errors");
    set_action(sub, [o] { return run_demo_verb(*o); });
}

} // namespace d4r::cli
