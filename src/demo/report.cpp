// report.json and the summary table of `d4r demo`.
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/files.h"
#include "demo/demo.h"

namespace d4r::demo {

namespace {
// JSON has no infinity: identical images (PSNR +inf) are written as a large finite number.
double finite(double v) { return std::isfinite(v) ? v : 999.0; }
} // namespace

std::string report_json(const DemoReport& r) {
    nlohmann::json j;
    j["scene"] = r.scene;
    j["device"] = r.device;
    j["backend"] = r.backend;
    j["native"] = r.native;
    j["native_root"] = r.native_root;
    j["render"] = {{"width", r.render_width}, {"height", r.render_height}};
    j["output"] = {{"width", r.output_width}, {"height", r.output_height}};
    j["frames"] = nlohmann::json::array();
    for (const FrameStats& f : r.frames)
        j["frames"].push_back({{"index", f.index},
                               {"render_ms", f.render_ms},
                               {"gpu_ms", f.gpu_ms},
                               {"wall_ms", f.wall_ms},
                               {"psnr_d4r", finite(f.psnr_d4r)},
                               {"ssim_d4r", f.ssim_d4r},
                               {"psnr_bicubic", finite(f.psnr_bicubic)},
                               {"ssim_bicubic", f.ssim_bicubic},
                               {"psnr_core", finite(f.psnr_core)},
                               {"ssim_core", f.ssim_core},
                               {"tpsnr_d4r", finite(f.tpsnr_d4r)},
                               {"tpsnr_core", finite(f.tpsnr_core)}});
    j["summary"] = {{"quality_frames", r.quality_frames},
                    {"median_gpu_ms", r.median_gpu_ms},
                    {"median_wall_ms", r.median_wall_ms},
                    {"median_render_ms", r.median_render_ms},
                    {"mean_psnr_d4r", finite(r.mean_psnr_d4r)},
                    {"mean_ssim_d4r", r.mean_ssim_d4r},
                    {"mean_psnr_bicubic", finite(r.mean_psnr_bicubic)},
                    {"mean_ssim_bicubic", r.mean_ssim_bicubic},
                    {"psnr_gain_db", finite(r.mean_psnr_d4r) - finite(r.mean_psnr_bicubic)},
                    {"network", r.network},
                    {"network_active", r.network_active},
                    {"network_model", r.network_model},
                    {"mean_psnr_core", finite(r.mean_psnr_core)},
                    {"mean_ssim_core", r.mean_ssim_core},
                    {"mean_tpsnr_d4r", finite(r.mean_tpsnr_d4r)},
                    {"mean_tpsnr_core", finite(r.mean_tpsnr_core)},
                    {"translated_median_gpu_ms", r.translated_median_gpu_ms},
                    {"translated_native_ratio", r.translated_native_ratio},
                    {"translated_note", r.translated_note},
                    {"total_seconds", r.total_seconds}};
    j["images"] = r.images;
    return j.dump(2) + "\n";
}

std::string report_table(const DemoReport& r) {
    std::string out;
    out += fmt::format("\nscene {} | {}x{} -> {}x{} | device {} | native kernels {}\n", r.scene, r.render_width,
                       r.render_height, r.output_width, r.output_height, r.device, r.native ? "on" : "off");
    out += fmt::format("{:<22} {:>12} {:>12} {:>12} {:>10}\n", "", "PSNR (dB)", "SSIM", "tPSNR (dB)", "GPU ms");
    out +=
        fmt::format("{:<22} {:>12.2f} {:>12.4f} {:>12.2f} {:>10.2f}\n", r.network ? "d4r + network" : "d4r (temporal)",
                    r.mean_psnr_d4r, r.mean_ssim_d4r, r.mean_tpsnr_d4r, r.median_gpu_ms);
    if (r.network)
        out += fmt::format("{:<22} {:>12.2f} {:>12.4f} {:>12.2f} {:>10}\n", "d4r (temporal)", r.mean_psnr_core,
                           r.mean_ssim_core, r.mean_tpsnr_core, "-");
    out += fmt::format("{:<22} {:>12.2f} {:>12.4f} {:>12} {:>10}\n", "bicubic (spatial)", r.mean_psnr_bicubic,
                       r.mean_ssim_bicubic, "-", "-");
    out += fmt::format("quality: mean of the last {} frames; d4r {:+.2f} dB PSNR, {:+.4f} SSIM vs bicubic\n",
                       r.quality_frames, r.mean_psnr_d4r - r.mean_psnr_bicubic, r.mean_ssim_d4r - r.mean_ssim_bicubic);
    if (r.network)
        out += r.network_active
                   ? fmt::format("network: {:+.2f} dB PSNR, {:+.4f} SSIM, {:+.2f} dB tPSNR vs the core alone\n",
                                 r.mean_psnr_d4r - r.mean_psnr_core, r.mean_ssim_d4r - r.mean_ssim_core,
                                 r.mean_tpsnr_d4r - r.mean_tpsnr_core)
                   : std::string("network: not active (the model did not load: see the log)\n");
    if (r.network && !r.network_model.empty()) out += fmt::format("network model: {}\n", r.network_model);
    out += fmt::format(
        "time: median per frame {:.2f} GPU ms ({:.2f} ms wall), scene rendering {:.1f} ms (CPU, not counted)\n",
        r.median_gpu_ms, r.median_wall_ms, r.median_render_ms);
    if (r.translated_native_ratio > 0)
        out +=
            fmt::format("translated PTX vs native kernels: {:.2f} GPU ms vs {:.2f} GPU ms per frame = {:.1f}x ({})\n",
                        r.translated_median_gpu_ms, r.median_gpu_ms, r.translated_native_ratio, r.translated_note);
    else
        out += fmt::format("translated PTX vs native kernels: {}\n", r.translated_note);
    out += fmt::format("total {:.1f} s\n", r.total_seconds);
    return out;
}

Expected<double> read_report_median_gpu_ms(const std::string& path) {
    std::vector<uint8_t> bytes = D4R_TRY(read_file(path, 64 << 20));
    auto j = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
    if (j.is_discarded() || !j.contains("summary") || !j["summary"].contains("median_gpu_ms") ||
        !j["summary"]["median_gpu_ms"].is_number())
        return make_error(ErrorCode::Invalid, "{}: not a d4r demo report (no summary.median_gpu_ms)", path);
    return j["summary"]["median_gpu_ms"].get<double>();
}

} // namespace d4r::demo
