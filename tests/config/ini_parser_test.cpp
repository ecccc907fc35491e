// INI syntax: sections, entries, comments, line numbers, CRLF, BOM, malformed lines.
#include <gtest/gtest.h>

#include "config/ini_parser.h"

namespace d4r::config {
namespace {

TEST(IniParser, SectionsEntriesAndLineNumbers) {
    IniDocument doc =
        parse_ini("; comment\n# another\n\n[DLSS]\nModel = K\n  [ Kernels ]  \n  Wmma=off  \nEmpty =\n", "d4r.ini");
    EXPECT_TRUE(doc.diagnostics.empty());
    ASSERT_EQ(doc.sections.size(), 2u);
    EXPECT_EQ(doc.sections[0].name, "DLSS");
    EXPECT_EQ(doc.sections[0].line, 4);
    EXPECT_EQ(doc.sections[1].name, "Kernels");
    EXPECT_EQ(doc.sections[1].line, 6);
    ASSERT_EQ(doc.entries.size(), 3u);
    EXPECT_EQ(doc.entries[0].section, "DLSS");
    EXPECT_EQ(doc.entries[0].key, "Model");
    EXPECT_EQ(doc.entries[0].value, "K");
    EXPECT_EQ(doc.entries[0].line, 5);
    EXPECT_EQ(doc.entries[1].section, "Kernels");
    EXPECT_EQ(doc.entries[1].key, "Wmma");
    EXPECT_EQ(doc.entries[1].value, "off");
    EXPECT_EQ(doc.entries[1].line, 7);
    EXPECT_EQ(doc.entries[2].key, "Empty");
    EXPECT_EQ(doc.entries[2].value, "");
}

TEST(IniParser, ValueIsEverythingAfterTheFirstEquals) {
    // No trailing comments: ';' and '#' after '=' belong to the value (paths, cvar lists).
    IniDocument doc = parse_ini("[Game]\nCvars = r.A=1; r.B=2 # keep\nPath=/a#b;c\n", "f");
    ASSERT_EQ(doc.entries.size(), 2u);
    EXPECT_EQ(doc.entries[0].value, "r.A=1; r.B=2 # keep");
    EXPECT_EQ(doc.entries[1].value, "/a#b;c");
}

TEST(IniParser, CrlfAndBom) {
    IniDocument doc = parse_ini("\xEF\xBB\xBF[DLSS]\r\nModel = M\r\n; c\r\nShowWatermark = on\r\n", "f");
    EXPECT_TRUE(doc.diagnostics.empty());
    ASSERT_EQ(doc.sections.size(), 1u);
    EXPECT_EQ(doc.sections[0].name, "DLSS"); // the BOM is not part of the name
    ASSERT_EQ(doc.entries.size(), 2u);
    EXPECT_EQ(doc.entries[0].value, "M"); // no trailing '\r'
    EXPECT_EQ(doc.entries[1].line, 4);
    EXPECT_EQ(doc.entries[1].value, "on");
}

TEST(IniParser, NoFinalNewline) {
    IniDocument doc = parse_ini("[A]\nx = 1", "f");
    ASSERT_EQ(doc.entries.size(), 1u);
    EXPECT_EQ(doc.entries[0].value, "1");
}

TEST(IniParser, MalformedLinesAreErrorsWithTheirLine) {
    IniDocument doc = parse_ini("[DLSS\nModel K\n[Kernels]\n= value\n[]\n[a]b]\nok = 1\n", "my.ini");
    ASSERT_EQ(doc.diagnostics.size(), 5u);
    for (const Diagnostic& d : doc.diagnostics) EXPECT_EQ(d.severity, Severity::Error);
    EXPECT_EQ(doc.diagnostics[0].line, 1);
    EXPECT_EQ(doc.diagnostics[0].text(), "my.ini:1: unterminated section header '[DLSS' (expected '[Section]')");
    EXPECT_EQ(doc.diagnostics[1].line, 2);
    EXPECT_EQ(doc.diagnostics[1].text(), "my.ini:2: expected 'Key = value', '[Section]' or a comment, not 'Model K'");
    EXPECT_EQ(doc.diagnostics[2].line, 4);
    EXPECT_EQ(doc.diagnostics[3].line, 5);
    EXPECT_EQ(doc.diagnostics[4].line, 6);
    // The good lines are still read.
    ASSERT_EQ(doc.entries.size(), 1u);
    EXPECT_EQ(doc.entries[0].section, "Kernels"); // the bad header [a]b] did not change the section
}

TEST(IniParser, ControlCharactersAreErrors) {
    using namespace std::string_literals;
    IniDocument doc = parse_ini("[A]\nx = a\0b\ny = a\rb\nz = a\tb\n"s, "f");
    ASSERT_EQ(doc.diagnostics.size(), 2u);
    EXPECT_EQ(doc.diagnostics[0].line, 2);
    EXPECT_NE(doc.diagnostics[0].message.find("0x00"), std::string::npos);
    EXPECT_EQ(doc.diagnostics[1].line, 3);
    EXPECT_NE(doc.diagnostics[1].message.find("0x0d"), std::string::npos);
    ASSERT_EQ(doc.entries.size(), 1u);
    EXPECT_EQ(doc.entries[0].value, "a\tb");
}

TEST(IniParser, EntriesBeforeAnySectionHaveNoSection) {
    IniDocument doc = parse_ini("Model = K\n", "f");
    EXPECT_TRUE(doc.diagnostics.empty());
    ASSERT_EQ(doc.entries.size(), 1u);
    EXPECT_EQ(doc.entries[0].section, "");
}

TEST(IniParser, LongBadLinesAreQuotedShort) {
    IniDocument doc = parse_ini("[A]\n" + std::string(100000, 'x') + "\n", "f");
    ASSERT_EQ(doc.diagnostics.size(), 1u);
    EXPECT_LT(doc.diagnostics[0].message.size(), 200u);
}

} // namespace
} // namespace d4r::config
