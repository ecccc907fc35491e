// The dump manifest and profile-log formats (runtime/observe), without running kernels.
#include <gtest/gtest.h>

#include "runtime/observe/dump_format.h"
#include "runtime/observe/observe_layer.h"
#include "runtime/observe/profile_summary.h"

using namespace d4r::runtime;

TEST(DumpManifest, RoundTripsWhatTheWriterWrites) {
    DumpManifest m;
    m.kernel = "k_1";
    m.grid = {3, 2, 1};
    m.block = {64, 2, 1};
    m.shared = 128;
    m.args_bytes = 24;
    m.allocs = {{0x7f0000001000, 4096}, {0x7f0000009000, 16}};
    m.pointers = {{0, 0, 256}, {16, 1, 0}};
    std::string text = write_dump_manifest(m);
    EXPECT_NE(text.find("launch 3 2 1 64 2 1 128\n"), std::string::npos) << text;
    EXPECT_NE(text.find("alloc 0 0x7f0000001000 4096\n"), std::string::npos) << text;
    EXPECT_NE(text.find("pointer 0 0 256\n"), std::string::npos) << text;
    auto back = parse_dump_manifest(text, "m.txt");
    ASSERT_TRUE(back) << back.error().text();
    EXPECT_EQ(back->kernel, "k_1");
    EXPECT_EQ(back->grid, m.grid);
    EXPECT_EQ(back->block, m.block);
    EXPECT_EQ(back->shared, 128u);
    ASSERT_EQ(back->allocs.size(), 2u);
    EXPECT_EQ(back->allocs[0].base, 0x7f0000001000u);
    ASSERT_EQ(back->pointers.size(), 2u);
    EXPECT_EQ(back->pointers[0].delta, 256u);
    EXPECT_EQ(back->pointers[1].alloc, 1u);
}

TEST(DumpManifest, InconsistentManifestsNameTheLine) {
    auto err = [](const char* text) {
        auto m = parse_dump_manifest(text, "m.txt");
        return m ? std::string("accepted") : m.error().text();
    };
    EXPECT_NE(err("kernel k\nlaunch 1 1 1 1 1 1 0\n").find("missing 'args BYTES'"), std::string::npos);
    EXPECT_NE(err("kernel k\nlaunch 1 1 1 0 1 1 0\nargs 0\n").find("m.txt:2: launch shape"), std::string::npos);
    EXPECT_NE(err("kernel k\nlaunch 1 1 1 1 1 1 0\nargs 8\nalloc 1 0x10 4\n").find("m.txt:4: alloc 1 out of order"),
              std::string::npos);
    EXPECT_NE(err("kernel k\nlaunch 1 1 1 1 1 1 0\nargs 8\nalloc 0 0x10 4\npointer 0 0 5\n").find("m.txt:5: delta 5"),
              std::string::npos);
    EXPECT_NE(err("kernel k\nlaunch 1 1 1 1 1 1 0\nargs 8\nalloc 0 0x10 4\npointer 4 0 0\n").find("outside args"),
              std::string::npos);
    EXPECT_NE(err("kernel k\nlaunch 1 1 1 1 1 1 0\nargs x\n").find("m.txt:3: args 'x' is not a number"), std::string::npos);
    EXPECT_NE(err("kernel k\nlaunch 1 1 1 1 1 1 0\nargs 8\nmodule ../x.ptx\n").find("file name in the dump folder"),
              std::string::npos);
    auto notes = parse_dump_manifest("kernel k\nlaunch 1 1 1 1 1 1 0\nargs 0\ntexture 8 whatever\n", "m.txt");
    ASSERT_TRUE(notes);
    ASSERT_EQ(notes->notes.size(), 1u);
}

TEST(DumpManifest, FolderNamesAreSafe) {
    EXPECT_EQ(dump_folder_name(7, "_Z3fooPf"), "replay-7-_Z3fooPf");
    EXPECT_EQ(dump_folder_name(1, "../x y"), "replay-1-.._x_y");
    EXPECT_EQ(dump_folder_name(2, std::string(200, 'a')).size(), std::string("replay-2-").size() + 96);
}

TEST(ProfileLog, FormatParseAndSummary) {
    std::string log;
    log += "123.4 d4r info: " + format_profile_line(1, false, 1.0, "a") + "\n";
    log += "garbage line\n";
    log += format_profile_line(2, true, 3.0, "b") + "\n";
    log += format_profile_line(3, false, 2.0, "a") + "\n";
    log += format_profile_line(4, true, 5.0, "b") + "\n";
    log += format_profile_line(5, false, -1.0, "b") + "\n";
    auto lines = parse_profile_log(log, "p.log");
    ASSERT_TRUE(lines) << lines.error().text();
    ASSERT_EQ(lines->size(), 5u);
    EXPECT_TRUE((*lines)[1].eligible);
    ProfileSummary s = summarise_profile(*lines, "");
    EXPECT_DOUBLE_EQ(s.total_ms, 11.0);
    ASSERT_EQ(s.kernels.size(), 2u);
    EXPECT_EQ(s.kernels[0].name, "b"); // 8 ms of 11
    EXPECT_EQ(s.kernels[0].launches, 3u);
    EXPECT_EQ(s.kernels[0].untimed, 1u);
    EXPECT_EQ(s.kernels[0].eligible, 2u);
    EXPECT_DOUBLE_EQ(s.kernels[0].median_ms, 4.0);
    EXPECT_DOUBLE_EQ(s.kernels[0].share, 8.0 / 11.0);
    EXPECT_DOUBLE_EQ(s.kernels[1].min_ms, 1.0);
    ASSERT_EQ(s.frame_ms.size(), 2u); // frames start at "a"
    EXPECT_DOUBLE_EQ(s.frame_ms[0], 4.0);
    EXPECT_DOUBLE_EQ(s.frame_ms[1], 7.0);
    EXPECT_DOUBLE_EQ(s.frame_median_ms, 5.5);
    ProfileSummary by_b = summarise_profile(*lines, "b");
    EXPECT_EQ(by_b.frame_ms.size(), 3u);
}

TEST(ProfileLog, MalformedLinesNameTheLine) {
    auto bad = parse_profile_log("x\nKERNEL_PROFILE launch=1 eligible=2 gpu_ms=1 name=k\n", "p.log");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().text().find("p.log:2: eligible '2'"), std::string::npos) << bad.error().text();
    auto missing = parse_profile_log("KERNEL_PROFILE launch=1 eligible=0 name=k\n", "p.log");
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().text().find("without 'gpu_ms='"), std::string::npos);
}

TEST(ObserveConfig, ReadsTheVariables) {
    d4r::MapEnvironment none;
    EXPECT_FALSE(observe_config_from_env(none).active());
    d4r::MapEnvironment env{{"D4R_CUDA_KERNEL_PROFILE", "1"}, {"D4R_CUDA_KERNEL_PROFILE_SKIP", "5"},
                             {"D4R_CUDA_REPLAY_DUMP_DIR", "/tmp/x"}, {"D4R_CUDA_REPLAY_DUMP_LIMIT", "bad"}};
    ObserveConfig c = observe_config_from_env(env);
    ASSERT_TRUE(c.profile);
    EXPECT_EQ(c.profile->skip, 5u);
    EXPECT_EQ(c.profile->limit, 3000u);
    ASSERT_TRUE(c.dump);
    EXPECT_EQ(c.dump->limit, 1u) << "a malformed number keeps the default";
    EXPECT_EQ(c.dump_dir, "/tmp/x");
}
