// The zip reader and zip_extract: zips written by d4r's own zip_writer and by python3's zipfile
// (ZIP_DEFLATED) read back byte for byte, and hostile zips laid out by hand (zip_fixtures.h) refused with
// a message naming the zip and the entry: names leaving the folder, links, duplicates, encryption, other
// methods, ZIP64, wrong CRCs, truncation, sizes above the limits, a deflate bomb that declares a small size.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/files.h"
#include "release/zip_extract.h"
#include "release/zip_reader.h"
#include "release/zip_writer.h"
#include "test_support.h"
#include "zip_fixtures.h"

namespace d4r::release {
namespace {

using test::read_file_text;
using test::run_command;
using test::TempDir;
using namespace test_zip;
namespace fs = std::filesystem;

std::span<const uint8_t> bytes_of(const std::string& s) {
    return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// The error text of opening ZIP (in memory), or of reading its first file when opening succeeds.
std::string refusal(const std::string& zip, const ZipLimits& limits = {}) {
    auto reader = ZipReader::open_memory(bytes_of(zip), "hostile.zip", limits);
    if (!reader) return reader.error().text();
    for (const ZipItem& item : reader->entries()) {
        auto data = reader->read_all(item);
        if (!data) return data.error().text();
    }
    return "(accepted)";
}

std::map<std::string, std::string> files_below(const fs::path& root) {
    std::map<std::string, std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(root))
        out[e.path().lexically_relative(root).generic_string() + (e.is_directory() ? "/" : "")] =
            e.is_directory() ? "" : read_file_text(e.path());
    return out;
}

TEST(ZipReader, ReadsWhatZipWriterWroteAndExtractsIt) {
    TempDir t;
    std::string big;
    for (int i = 0; i < 5000; ++i) big += "line " + std::to_string(i % 17) + "\n"; // deflates
    t.write("tree/d4r/d4r.ini", "[DLSS]\n");
    t.write("tree/d4r/big.txt", big);
    t.write("tree/d4r/empty.txt", "");
    t.write("tree/d4r/kernels/gfx1101/k.hsaco", std::string("\x7f"
                                                            "ELF\0\1",
                                                            6));
    t.write("tree/d4r/tool", "#!/bin/sh\n");
    fs::permissions(t.path() / "tree/d4r/tool", fs::perms(0755));
    const auto entries = zip_entries_of_tree(t.path() / "tree", "rel/");
    ASSERT_TRUE(entries.ok()) << entries.error().text();
    ASSERT_TRUE(write_zip(t.path() / "rel.zip", *entries, 1700000000).ok());

    auto zip = ZipReader::open_file(t.path() / "rel.zip");
    ASSERT_TRUE(zip.ok()) << zip.error().text();
    EXPECT_EQ(zip->entries().size(), entries->size());
    bool saw_deflate = false, saw_stored = false;
    for (const ZipItem& item : zip->entries()) {
        if (item.folder) continue;
        saw_deflate = saw_deflate || item.method == 8;
        saw_stored = saw_stored || item.method == 0;
        auto data = zip->read_all(item);
        ASSERT_TRUE(data.ok()) << data.error().text();
        EXPECT_EQ(*data, read_file_text(t.path() / "tree" / item.name.substr(4))) << item.name;
        EXPECT_EQ(item.executable, item.name == "rel/d4r/tool") << item.name;
    }
    EXPECT_TRUE(saw_deflate);
    EXPECT_TRUE(saw_stored);
    EXPECT_EQ(zip->total_size(), big.size() + 7 + 6 + 10);

    const fs::path out = t.mkdir("out");
    auto count = extract_zip(*zip, out);
    ASSERT_TRUE(count.ok()) << count.error().text();
    EXPECT_EQ(count->files, 5u);
    EXPECT_EQ(count->bytes, zip->total_size());
    auto expected = files_below(t.path() / "tree");
    std::map<std::string, std::string> prefixed;
    for (const auto& [k, v] : expected) prefixed["rel/" + k] = v;
    prefixed["rel/"] = "";
    EXPECT_EQ(files_below(out), prefixed);
    EXPECT_EQ(fs::status(out / "rel/d4r/tool").permissions() & fs::perms::owner_exec, fs::perms::owner_exec);
    EXPECT_EQ(fs::status(out / "rel/d4r/d4r.ini").permissions() & fs::perms::owner_exec, fs::perms::none);
    // Extracting again into the same folder refuses to overwrite (files are created new).
    const fs::path again = t.mkdir("again");
    t.write("again/rel/d4r/d4r.ini", "mine");
    EXPECT_FALSE(extract_zip(*zip, again).ok());
    EXPECT_EQ(read_file_text(again / "rel/d4r/d4r.ini"), "mine");
}

TEST(ZipReader, ReadsPythonDeflatedZip) {
    TempDir t;
    const fs::path zip = t.path() / "py.zip";
    const std::string script = "import zipfile, sys\n"
                               "with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:\n"
                               "    z.writestr('d4r/', '')\n"
                               "    z.writestr('d4r/a.txt', 'alpha ' * 1000)\n"
                               "    z.writestr('d4r/sub/b.bin', bytes(range(256)) * 4)\n"
                               "    z.writestr('d4r/empty', '')\n";
    if (run_command({"/usr/bin/env", "python3", "-c", "pass"}, {{"PATH", "/usr/bin:/bin"}}).exit_code != 0)
        GTEST_SKIP() << "python3 is not installed: no zip of python's zipfile to read";
    const auto py = run_command({"/usr/bin/env", "python3", "-c", script, zip.string()}, {{"PATH", "/usr/bin:/bin"}});
    ASSERT_EQ(py.exit_code, 0) << py.err;
    auto reader = ZipReader::open_file(zip);
    ASSERT_TRUE(reader.ok()) << reader.error().text();
    ASSERT_EQ(reader->entries().size(), 4u);
    std::string binary;
    for (int r = 0; r < 4; ++r)
        for (int i = 0; i < 256; ++i) binary += char(i);
    std::string alpha;
    for (int i = 0; i < 1000; ++i) alpha += "alpha ";
    const std::map<std::string, std::string> want = {
        {"d4r/a.txt", alpha}, {"d4r/sub/b.bin", binary}, {"d4r/empty", ""}};
    for (const ZipItem& item : reader->entries()) {
        if (item.folder) {
            EXPECT_EQ(item.name, "d4r/");
            continue;
        }
        EXPECT_EQ(item.method, 8) << item.name;
        auto data = reader->read_all(item);
        ASSERT_TRUE(data.ok()) << data.error().text();
        EXPECT_EQ(*data, want.at(item.name)) << item.name;
    }
    const fs::path out = t.mkdir("out");
    auto count = extract_zip(*reader, out);
    ASSERT_TRUE(count.ok()) << count.error().text();
    EXPECT_EQ(read_file_text(out / "d4r/sub/b.bin"), binary);
}

TEST(ZipReader, RefusesNamesLeavingTheFolder) {
    const std::map<std::string, std::string> cases = {
        {"../evil.txt", "'..' component"},     {"d4r/../../evil.txt", "'..' component"},
        {"/etc/evil.txt", "an absolute name"}, {"d4r\\evil.txt", "a backslash"},
        {"C:/evil.txt", "a drive letter"},     {"d4r//evil.txt", "an empty or '.' component"},
        {"./evil.txt", "'.' component"},       {std::string("ev\0il", 5), "a NUL byte"},
    };
    for (const auto& [name, why] : cases) {
        const std::string text = refusal(raw_zip({stored("d4r/ok.txt", "ok"), stored(name, "x")}));
        EXPECT_NE(text.find("hostile.zip: entry '" + name + "': refused: "), std::string::npos) << text;
        EXPECT_NE(text.find(why), std::string::npos) << text;
    }
}

TEST(ZipReader, RefusesLinksDuplicatesEncryptionAndOtherMethods) {
    EXPECT_NE(refusal(raw_zip({stored("d4r/link", "/etc/passwd", 0120777)}))
                  .find("entry 'd4r/link': refused: a symbolic link"),
              std::string::npos);
    EXPECT_NE(refusal(raw_zip({stored("d4r/fifo", "", 0010644)})).find("entry 'd4r/fifo': refused: a special file"),
              std::string::npos);
    EXPECT_NE(refusal(raw_zip({stored("a.txt", "1"), stored("a.txt", "2")}))
                  .find("entry 'a.txt': refused: the name appears twice"),
              std::string::npos);
    EXPECT_NE(refusal(raw_zip({stored("a/", "", 040755), stored("a", "2")})).find("appears twice"), std::string::npos);
    EXPECT_NE(refusal(raw_zip({stored("a", "1"), stored("a/b", "2")})).find("entry 'a/b': refused: 'a' is a file"),
              std::string::npos);
    RawEntry encrypted = stored("secret.txt", "xxxx");
    encrypted.flags = 1;
    EXPECT_NE(refusal(raw_zip({encrypted})).find("entry 'secret.txt': encrypted"), std::string::npos);
    RawEntry bzip2 = stored("b.txt", "xxxx");
    bzip2.method = 12;
    EXPECT_NE(
        refusal(raw_zip({bzip2})).find("entry 'b.txt': compression method 12 (bzip2); accepted: 0 (stored) and 8"),
        std::string::npos);
}

TEST(ZipReader, RefusesCorruptAndTruncatedZips) {
    RawEntry bad_crc = deflate_entry("d4r/a.txt", "hello hello hello");
    bad_crc.crc ^= 1;
    EXPECT_NE(refusal(raw_zip({bad_crc})).find("entry 'd4r/a.txt': corrupt: CRC-32"), std::string::npos);
    RawEntry bad_stored_crc = stored("s.txt", "abc");
    bad_stored_crc.crc = 0;
    EXPECT_NE(refusal(raw_zip({bad_stored_crc})).find("entry 's.txt': corrupt: CRC-32"), std::string::npos);

    RawEntry short_size = deflate_entry("d4r/a.txt", "hello hello hello");
    short_size.size += 5; // declares more than it holds
    EXPECT_NE(refusal(raw_zip({short_size})).find("bytes, but it declares"), std::string::npos);
    RawEntry trailing = deflate_entry("d4r/t.txt", "data data data");
    trailing.data += "junk";
    EXPECT_NE(refusal(raw_zip({trailing})).find("end before its compressed size"), std::string::npos);
    RawEntry garbage = stored("g.txt", "abc");
    garbage.method = 8;
    garbage.data = std::string(16, '\xff');
    EXPECT_NE(refusal(raw_zip({garbage})).find("entry 'g.txt': corrupt deflate data"), std::string::npos);

    const std::string good = raw_zip({deflate_entry("d4r/a.txt", std::string(4000, 'a')), stored("d4r/b", "b")});
    EXPECT_EQ(refusal(good), "(accepted)");
    for (size_t cut : {good.size() - 1, good.size() - 22, good.size() / 2, size_t(10), size_t(0)}) {
        const std::string text = refusal(good.substr(0, cut));
        EXPECT_NE(text.find("hostile.zip: "), std::string::npos) << text;
        EXPECT_TRUE(text.find("truncated") != std::string::npos || text.find("not a zip") != std::string::npos)
            << cut << ": " << text;
    }
    std::string damaged = good;
    damaged[30 + 2] = 'X'; // the local header's name ("d4r/a.txt" at 30) no longer matches the central directory
    EXPECT_NE(refusal(damaged).find("entry 'd4r/a.txt': corrupt: its local header"), std::string::npos);

    // Entry a's sizes patched to cover entry b's local header and data: one byte range read as two entries.
    std::string overlap = raw_zip({stored("a", "aaaa"), stored("b", "bbbb")});
    const size_t cd = 2 * (30 + 1 + 4);
    const uint32_t cover = 4 + 30 + 1 + 4;
    for (size_t k = 0; k < 4; ++k) overlap[cd + 20 + k] = overlap[cd + 24 + k] = char(cover >> (8 * k));
    EXPECT_NE(refusal(overlap).find("hostile.zip: refused: entries overlap"), std::string::npos) << refusal(overlap);

    std::string zip64 = raw_zip({stored("a", "a")});
    for (size_t i = 6; i > 2; --i) zip64[zip64.size() - i] = '\xff'; // the directory's offset: 0xFFFFFFFF, see ZIP64
    EXPECT_NE(refusal(zip64).find("a ZIP64 archive"), std::string::npos);
}

TEST(ZipReader, RefusesZipBombs) {
    // Declares above the per-entry limit: refused before anything is inflated.
    RawEntry huge = stored("huge.bin", "x");
    huge.method = 8;
    huge.data = deflated("x");
    huge.size = uint32_t(3) << 30;
    EXPECT_NE(refusal(raw_zip({huge}))
                  .find("entry 'huge.bin': refused: declares 3221225472 bytes, above the limit of "
                        "1 GiB per entry"),
              std::string::npos);
    // Entries that together declare more than the total limit.
    ZipLimits small;
    small.max_entry_bytes = 1000;
    small.max_total_bytes = 1500;
    const std::string text =
        refusal(raw_zip({stored("a", std::string(800, 'a')), stored("b", std::string(800, 'b'))}), small);
    EXPECT_NE(text.find("entry 'b': refused: the entries up to this one declare 1600 bytes, above the limit of 1500 "
                        "bytes in all"),
              std::string::npos)
        << text;
    // A deflate bomb that declares a small size: 64 MiB of zeros (about 64 KiB deflated) declared as 1000 bytes.
    const std::string zeros(64 << 20, '\0');
    RawEntry bomb = deflate_entry("d4r/bomb.bin", zeros);
    bomb.size = 1000;
    EXPECT_LT(bomb.data.size(), 100000u);
    EXPECT_NE(refusal(raw_zip({bomb}))
                  .find("entry 'd4r/bomb.bin': refused: inflates to more than the 1000 bytes it declares"),
              std::string::npos);
}

TEST(ZipReader, OpenFileNamesMissingAndNonZipFiles) {
    TempDir t;
    auto missing = ZipReader::open_file(t.path() / "none.zip");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code(), ErrorCode::NotFound);
    EXPECT_NE(missing.error().text().find("none.zip"), std::string::npos);
    t.write("text.zip", "this is not a zip file, but it is long enough to look for one");
    auto text = ZipReader::open_file(t.path() / "text.zip");
    ASSERT_FALSE(text.ok());
    EXPECT_NE(text.error().text().find((t.path() / "text.zip").string() + ": not a zip file"), std::string::npos)
        << text.error().text();
    auto folder = ZipReader::open_file(t.path());
    EXPECT_FALSE(folder.ok());
}

} // namespace
} // namespace d4r::release
