#ifndef VIDEOWM_CMICROHTTPD_SHIM_H
#define VIDEOWM_CMICROHTTPD_SHIM_H
// libmicrohttpd (GNU, Debian's libmicrohttpd-dev 0.9.75), the HTTP/1.1 server under `videowm serve`.
// Its option lists and info queries are C variadics, which Swift cannot call: the few this
// server uses are fixed-argument functions here.
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <netinet/tcp.h>
#include <microhttpd.h>

/// Leaves the request target as the client sent it (MHD would percent-decode it, turning
/// `%2F` into `/` and `%2E%2E` into `..` before the application could refuse them): the
/// server accepts only unreserved characters in a path, and decodes the query value it reads.
static inline size_t vwm_mhd_keep_escapes(void *cls, struct MHD_Connection *connection, char *text) {
    (void)cls; (void)connection;
    size_t length = 0;
    while (text[length] != 0) length++;
    return length;
}

/// Starts a daemon on `address` with the options the server sets (see HTTPDaemon.swift).
/// No MHD_OPTION_LISTENING_ADDRESS_REUSE: its 1 sets SO_REUSEPORT, which let a second server
/// bind the same port and take half its connections (a stale process answered with old code);
/// MHD's default, SO_REUSEADDR, is what a quick restart needs.
static inline struct MHD_Daemon *vwm_mhd_start(unsigned int flags,
                                               const struct sockaddr *address,
                                               MHD_AcceptPolicyCallback admit, void *admit_context,
                                               MHD_AccessHandlerCallback handler, void *handler_context,
                                               MHD_RequestCompletedCallback completed, void *completed_context,
                                               MHD_NotifyConnectionCallback notify, void *notify_context,
                                               unsigned int idle_timeout_seconds,
                                               size_t memory_per_connection,
                                               unsigned int connection_limit,
                                               unsigned int polling_threads) {
    return MHD_start_daemon(flags, 0, admit, admit_context, handler, handler_context,
                            MHD_OPTION_SOCK_ADDR, address,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
                            MHD_OPTION_NOTIFY_CONNECTION, notify, notify_context,
                            MHD_OPTION_CONNECTION_TIMEOUT, idle_timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_per_connection,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_THREAD_POOL_SIZE, polling_threads,
                            MHD_OPTION_UNESCAPE_CALLBACK, vwm_mhd_keep_escapes, NULL,
                            MHD_OPTION_END);
}

/// The connection's socket (to shut down one that sends its headers too slowly), or -1.
static inline int vwm_mhd_connection_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? (int)info->connect_fd : -1;
}

/// The per-connection pointer the connection-notify callback stored, or NULL.
static inline void *vwm_mhd_connection_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

/// The client's address as text (for the access log), or an empty string.
static inline void vwm_mhd_client_address(struct MHD_Connection *connection, char *text, socklen_t size) {
    text[0] = 0;
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!info || !info->client_addr) return;
    const struct sockaddr *address = info->client_addr;
    if (address->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)address)->sin_addr, text, size);
    } else if (address->sa_family == AF_INET6) {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)address)->sin6_addr, text, size);
    }
}

/// The port the daemon listens on (the operator may ask for port 0: any free one).
static inline unsigned int vwm_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? (unsigned int)info->port : 0;
}

/// Milliseconds since the socket last received data, or -1 when the system cannot tell (not a
/// TCP socket). The connection watchdog reads it to learn when a kept-alive connection's next
/// request began arriving: libmicrohttpd reads the bytes at once and tells nobody.
static inline long long vwm_socket_milliseconds_since_receive(int socket) {
    struct tcp_info info;
    socklen_t size = sizeof info;
    if (getsockopt(socket, IPPROTO_TCP, TCP_INFO, &info, &size) != 0) return -1;
    if (size < offsetof(struct tcp_info, tcpi_last_data_recv) + sizeof info.tcpi_last_data_recv) return -1;
    return (long long)info.tcpi_last_data_recv;
}

#endif
