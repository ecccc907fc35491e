#include "wineserver.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

#include <fmt/format.h>

#include "core/log.h"

namespace d4r::release {

Expected<fs::path> wineserver_socket_path(const fs::path& prefix, const fs::path& root) {
    struct stat st{};
    if (::stat(prefix.c_str(), &st) != 0)
        return make_error(ErrorCode::NotFound, "cannot stat the prefix {}: {}", prefix.string(), std::strerror(errno));
    return root / fmt::format(".wine-{}", ::getuid()) /
           fmt::format("server-{:x}-{:x}", static_cast<unsigned long long>(st.st_dev),
                       static_cast<unsigned long long>(st.st_ino)) /
           "socket";
}

std::optional<Wineserver> find_wineserver(const fs::path& prefix, const fs::path& root) {
    Expected<fs::path> path = wineserver_socket_path(prefix, root);
    if (!path) return std::nullopt;
    struct stat st{};
    if (::stat(path->c_str(), &st) != 0 || !S_ISSOCK(st.st_mode)) return std::nullopt;
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path->string().size() >= sizeof(addr.sun_path)) {
        log::warn("wineserver socket path too long to check: {}", path->string());
        return Wineserver{path->string(), 0};
    }
    std::strncpy(addr.sun_path, path->c_str(), sizeof(addr.sun_path) - 1);
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return Wineserver{path->string(), 0};
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
        log::debug("wineserver socket {} refuses connections ({}): no server runs", path->string(),
                   std::strerror(errno));
        ::close(fd);
        return std::nullopt;
    }
    Wineserver w{path->string(), 0};
    ucred cred{};
    socklen_t len = sizeof(cred);
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0) w.pid = cred.pid;
    ::close(fd);
    return w;
}

} // namespace d4r::release
