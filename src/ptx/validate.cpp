// Load-time checks ptxas makes (see validate.h).
#include "ptx/validate.h"

#include <charconv>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

namespace d4r::ptx {

namespace {

constexpr uint32_t kNewestIsaMajor = kNewestPtxIsaMajor;
constexpr uint64_t kClassicParamLimit = 4096;
constexpr uint64_t kLargeParamLimit = 32764; // PTX ISA 8.1+, sm_70+

// The line of the first module-header directive DIRECTIVE (".version", ...), 0 when not found: the
// index keeps the values, not where they were written.
uint32_t header_line(std::string_view text, std::string_view directive) {
    uint32_t line = 1;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string_view l = text.substr(pos, end - pos);
        size_t first = l.find_first_not_of(" \t\r");
        if (first != std::string_view::npos) {
            l = l.substr(first);
            if (l.substr(0, directive.size()) == directive &&
                (l.size() == directive.size() || l[directive.size()] == ' ' || l[directive.size()] == '\t'))
                return line;
            if (l.starts_with(".entry") || l.starts_with(".func") || l.starts_with(".visible")) return 0;
        }
        pos = end + 1;
        ++line;
    }
    return 0;
}

Error error_at(std::string_view name, uint32_t line, std::string message) {
    if (line == 0) return Error(ErrorCode::Invalid, fmt::format("{}: {}", name, message));
    return Error(ErrorCode::Invalid, fmt::format("{}:{}: {}", name, line, message));
}

Status check_header(std::string_view text, const ptx::ModuleIndex& index, std::string_view name) {
    if (index.version && index.version->first > kNewestIsaMajor)
        return error_at(name, header_line(text, ".version"),
                        fmt::format(".version {}: PTX ISA newer than the {}.x this version of d4r knows",
                                    index.version_text(), kNewestIsaMajor));
    for (const std::string& t : index.targets) {
        auto sm = architecture_number(t);
        if (sm && *sm > kNewestSm)
            return error_at(name, header_line(text, ".target"),
                            fmt::format(".target {}: newer than the sm_{} d4r's cpu device provides", t, kNewestSm));
    }
    if (index.address_size && *index.address_size != 64)
        return error_at(name, header_line(text, ".address_size"),
                        fmt::format(".address_size {}: sm_{} code is 64-bit only", *index.address_size, kNewestSm));
    return ok_status();
}

Status check_entries(const ptx::ModuleIndex& index, std::string_view name) {
    const std::string sm_name = index.sm();
    const int sm = architecture_number(sm_name).value_or(0);
    const bool large = index.version && *index.version >= std::pair<uint32_t, uint32_t>(8, 1) && sm >= 70;
    const uint64_t limit = large ? kLargeParamLimit : kClassicParamLimit;
    for (const ptx::EntryInfo& e : index.entries) {
        for (auto [directive, dims] :
             {std::pair{".maxntid", &e.directives.maxntid}, {".reqntid", &e.directives.reqntid}}) {
            if (*dims && ((**dims)[0] == 0 || (**dims)[1] == 0 || (**dims)[2] == 0))
                return error_at(name, e.line,
                                fmt::format("{} {}, {}, {} of '{}': every dimension must be at least 1", directive,
                                            (**dims)[0], (**dims)[1], (**dims)[2], e.name));
        }
        if (e.param_block_size > limit)
            return error_at(name, e.line,
                            fmt::format("entry '{}' uses {} bytes of parameter space, over the {}-byte limit ({})",
                                        e.name, e.param_block_size, limit,
                                        large ? "PTX ISA 8.1+ on sm_70+" : "before PTX ISA 8.1 or sm_70"));
    }
    return ok_status();
}

// Splits "%r12" into ("%r", 12); nullopt without trailing digits.
std::optional<std::pair<std::string_view, uint64_t>> numbered(std::string_view n) {
    size_t end = n.size();
    while (end > 0 && n[end - 1] >= '0' && n[end - 1] <= '9') --end;
    if (end == n.size() || end == 0 || n.size() - end > 18) return std::nullopt;
    uint64_t v = 0;
    std::from_chars(n.data() + end, n.data() + n.size(), v);
    return std::pair{n.substr(0, end), v};
}

// The names declared in one scope: plain names, and %r<N> ranges by prefix.
struct Scope {
    std::unordered_map<std::string_view, uint32_t> names;                       // name -> line
    std::unordered_map<std::string_view, std::pair<uint64_t, uint32_t>> ranges; // prefix -> (count, line)
    std::unordered_map<std::string_view, std::pair<uint64_t, uint32_t>> lowest; // "%r" -> (smallest N of %rN, line)

    // The line of an earlier declaration V clashes with, 0 when none.
    uint32_t clash(const ast::Variable& v) const {
        if (v.range >= 0) {
            if (auto it = ranges.find(v.name); it != ranges.end()) return it->second.second;
            auto it = lowest.find(v.name);
            return it != lowest.end() && it->second.first < static_cast<uint64_t>(v.range) ? it->second.second : 0;
        }
        if (auto it = names.find(v.name); it != names.end()) return it->second;
        if (auto split = numbered(v.name)) {
            auto it = ranges.find(split->first);
            if (it != ranges.end() && split->second < it->second.first) return it->second.second;
        }
        return 0;
    }
    void add(const ast::Variable& v) {
        if (v.range >= 0) {
            ranges.emplace(v.name, std::pair{static_cast<uint64_t>(v.range), v.line});
            return;
        }
        names.emplace(v.name, v.line);
        if (auto split = numbered(v.name)) {
            auto [it, added] = lowest.emplace(split->first, std::pair{split->second, v.line});
            if (!added && split->second < it->second.first) it->second = {split->second, v.line};
        }
    }
};

Status check_declarations(const ast::Function& f, std::string_view name) {
    Scope params;
    for (const std::vector<ast::Variable>* list : {&f.returns, &f.params}) {
        for (const ast::Variable& p : *list) {
            if (uint32_t earlier = params.clash(p))
                return error_at(
                    name, p.line,
                    fmt::format("parameter '{}' of '{}' is already declared (line {})", p.name, f.name, earlier));
            params.add(p);
        }
    }
    std::vector<Scope> scopes(1);
    for (const ast::Statement& s : f.body) {
        if (s.kind == ast::Statement::Kind::BlockOpen)
            scopes.emplace_back();
        else if (s.kind == ast::Statement::Kind::BlockClose && scopes.size() > 1)
            scopes.pop_back();
        else if (s.kind == ast::Statement::Kind::Declaration) {
            const ast::Variable& v = f.declarations[s.index];
            if (uint32_t earlier = scopes.back().clash(v))
                return error_at(name, v.line,
                                fmt::format("'{}{}' in '{}' is already declared in this scope (line {})", v.name,
                                            v.range >= 0 ? fmt::format("<{}>", v.range) : "", f.name, earlier));
            scopes.back().add(v);
        }
    }
    return ok_status();
}

} // namespace

std::optional<int> architecture_number(std::string_view target) {
    for (std::string_view prefix : {"sm_", "compute_"}) {
        if (target.substr(0, prefix.size()) != prefix) continue;
        std::string_view digits = target.substr(prefix.size());
        int n = 0;
        auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
        if (ec != std::errc() || end == digits.data()) return std::nullopt;
        return n;
    }
    return std::nullopt;
}

Status validate_module(std::string_view text, const ptx::ModuleIndex& index, const ast::Module& module,
                       std::string_view name) {
    D4R_TRY(check_header(text, index, name));
    D4R_TRY(check_entries(index, name));
    for (const ast::Function& f : module.functions)
        if (f.defined) D4R_TRY(check_declarations(f, name));
    return ok_status();
}

} // namespace d4r::ptx
