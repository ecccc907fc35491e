// d4r release: the install manifest and journal as JSON.
#include "install_manifest.h"

#include <nlohmann/json.hpp>

#include "core/files.h"

namespace d4r::release {

namespace {

using json = nlohmann::json;

constexpr int kFormat = 1;
constexpr uint64_t kMaxBytes = 64ull << 20;

json plan_json(const InstallPlan& plan) {
    json files = json::array();
    for (const PlannedFile& f : plan.files) {
        json j = {{"path", f.path},
                  {"source", f.source},
                  {"sha256", f.sha256},
                  {"action", f.action == FileAction::Create ? "create" : "replace"}};
        if (f.action == FileAction::Replace) {
            j["backup"] = f.backup;
            j["original_sha256"] = f.original_sha256;
        }
        files.push_back(std::move(j));
    }
    json j = {{"format", kFormat},         {"d4r_version", plan.d4r_version},
              {"release", plan.release},   {"exe_folder_reason", plan.exe_reason},
              {"files", std::move(files)}, {"created_folders", plan.created_folders}};
    if (!plan.release_sha256.empty()) j["release_sha256"] = plan.release_sha256;
    return j;
}

// A relative path inside the install folder: not empty, not absolute, no "..".
bool is_inside(const std::string& p) {
    if (p.empty() || p.front() == '/' || p.find('\\') != std::string::npos) return false;
    for (const auto& part : std::filesystem::path(p))
        if (part == "..") return false;
    return true;
}

Expected<std::string> string_field(const json& j, const char* key, std::string_view where, bool path) {
    if (!j.contains(key) || !j[key].is_string())
        return make_error(ErrorCode::Invalid, "{}: '{}' missing or not a string", where, key);
    std::string s = j[key].get<std::string>();
    if (path && !is_inside(s))
        return make_error(ErrorCode::Invalid, "{}: '{}' is '{}', not a path inside the install folder", where, key, s);
    return s;
}

Expected<InstallPlan> plan_from(const json& j, std::string_view source) {
    if (!j.is_object() || !j.contains("format") || j["format"] != kFormat)
        return make_error(ErrorCode::Invalid, "{}: not a d4r install file of format {}", source, kFormat);
    InstallPlan plan;
    plan.d4r_version = D4R_TRY(string_field(j, "d4r_version", source, false));
    plan.release = D4R_TRY(string_field(j, "release", source, false));
    plan.exe_reason = D4R_TRY(string_field(j, "exe_folder_reason", source, false));
    if (j.contains("release_sha256")) plan.release_sha256 = D4R_TRY(string_field(j, "release_sha256", source, false));
    if (!j.contains("files") || !j["files"].is_array())
        return make_error(ErrorCode::Invalid, "{}: 'files' missing or not an array", source);
    for (size_t i = 0; i < j["files"].size(); ++i) {
        const json& f = j["files"][i];
        const std::string where = fmt::format("{}: files[{}]", source, i);
        if (!f.is_object()) return make_error(ErrorCode::Invalid, "{}: not an object", where);
        PlannedFile p;
        p.path = D4R_TRY(string_field(f, "path", where, true));
        p.source = D4R_TRY(string_field(f, "source", where, false));
        p.sha256 = D4R_TRY(string_field(f, "sha256", where, false));
        const std::string action = D4R_TRY(string_field(f, "action", where, false));
        if (action == "replace") {
            p.action = FileAction::Replace;
            p.backup = D4R_TRY(string_field(f, "backup", where, true));
            p.original_sha256 = D4R_TRY(string_field(f, "original_sha256", where, false));
        } else if (action != "create") {
            return make_error(ErrorCode::Invalid, "{}: 'action' is '{}'; accepted: create, replace", where, action);
        }
        plan.files.push_back(std::move(p));
    }
    if (!j.contains("created_folders") || !j["created_folders"].is_array())
        return make_error(ErrorCode::Invalid, "{}: 'created_folders' missing or not an array", source);
    for (const json& d : j["created_folders"]) {
        if (!d.is_string() || !is_inside(d.get<std::string>()))
            return make_error(ErrorCode::Invalid, "{}: created_folders: '{}' is not a path inside the install folder",
                              source, d.dump());
        plan.created_folders.push_back(d.get<std::string>());
    }
    return plan;
}

Expected<json> parse(std::string_view text, std::string_view source) {
    json j = json::parse(text, nullptr, false);
    if (j.is_discarded()) return make_error(ErrorCode::Invalid, "{}: not valid JSON", source);
    return j;
}

} // namespace

std::string plan_to_json(const InstallPlan& plan) { return plan_json(plan).dump(2) + "\n"; }

Expected<InstallPlan> plan_from_json(std::string_view text, std::string_view source) {
    const json j = D4R_TRY(parse(text, source));
    return plan_from(j, source);
}

std::string journal_to_json(const Journal& journal) {
    json j = {{"format", kFormat},
              {"operation", journal.op == JournalOp::Install ? "install" : "uninstall"},
              {"plan", plan_json(journal.plan)},
              {"keep", journal.keep}};
    return j.dump(2) + "\n";
}

Expected<Journal> journal_from_json(std::string_view text, std::string_view source) {
    const json j = D4R_TRY(parse(text, source));
    if (!j.is_object() || !j.contains("format") || j["format"] != kFormat)
        return make_error(ErrorCode::Invalid, "{}: not a d4r install journal of format {}", source, kFormat);
    Journal out;
    const std::string op = D4R_TRY(string_field(j, "operation", source, false));
    if (op == "uninstall")
        out.op = JournalOp::Uninstall;
    else if (op != "install")
        return make_error(ErrorCode::Invalid, "{}: 'operation' is '{}'; accepted: install, uninstall", source, op);
    if (!j.contains("plan")) return make_error(ErrorCode::Invalid, "{}: 'plan' missing", source);
    out.plan = D4R_TRY(plan_from(j["plan"], fmt::format("{}: plan", source)));
    if (!j.contains("keep") || !j["keep"].is_array())
        return make_error(ErrorCode::Invalid, "{}: 'keep' missing or not an array", source);
    for (const json& k : j["keep"]) {
        if (!k.is_string() || !is_inside(k.get<std::string>()))
            return make_error(ErrorCode::Invalid, "{}: keep: '{}' is not a path inside the install folder", source,
                              k.dump());
        out.keep.push_back(k.get<std::string>());
    }
    return out;
}

Expected<InstallPlan> load_manifest(const std::filesystem::path& path) {
    const std::string text = D4R_TRY(read_text_file(path, kMaxBytes));
    return plan_from_json(text, path.string());
}

Expected<Journal> load_journal(const std::filesystem::path& path) {
    const std::string text = D4R_TRY(read_text_file(path, kMaxBytes));
    return journal_from_json(text, path.string());
}

} // namespace d4r::release
