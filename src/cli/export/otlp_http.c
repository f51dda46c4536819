/* clrtrace dump --otlp-endpoint: OTLP/HTTP's POST of an
 * ExportTraceServiceRequest (export.h, "OTLP"): plain http:// (no TLS), one
 * connection per request (Connection: close), bounded by timeouts; the
 * answer's status line decides (2xx: taken). The response body (an
 * ExportTraceServiceResponse, maybe with partial_success) is not read. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "export.h"

int cli_otlp_endpoint_parse(const char *url, cli_otlp_endpoint *e, const char **why)
{
    memset(e, 0, sizeof *e);
    if (!strncasecmp(url, "https://", 8)) {
        *why = "https is not supported (no TLS): an http:// URL is needed";
        return -1;
    }
    if (strncasecmp(url, "http://", 7)) {
        *why = "an http://HOST[:PORT][/PATH] URL is needed";
        return -1;
    }
    const char *h = url + 7, *he;
    if (*h == '[') {
        he = strchr(h, ']');
        if (!he) {
            *why = "an IPv6 address needs its closing ']'";
            return -1;
        }
        h++;
    } else {
        he = h + strcspn(h, ":/?#");
    }
    size_t hl = (size_t)(he - h);
    if (!hl || hl >= sizeof e->host) {
        *why = hl ? "the host name is too long" : "no host";
        return -1;
    }
    memcpy(e->host, h, hl);
    const char *p = *he == ']' ? he + 1 : he;
    strcpy(e->port, "80");
    if (*p == ':') {
        p++;
        size_t pl = strspn(p, "0123456789");
        long port = pl && pl < 6 ? strtol(p, NULL, 10) : 0;
        if (port < 1 || port > 65535) {
            *why = "the port must be a number from 1 to 65535";
            return -1;
        }
        snprintf(e->port, sizeof e->port, "%ld", port);
        p += pl;
    }
    if (*p && *p != '/') {
        *why = "an http://HOST[:PORT][/PATH] URL is needed";
        return -1;
    }
    if (strlen(p) >= sizeof e->path) {
        *why = "the URL is too long";
        return -1;
    }
    for (const char *c = p; *c; c++)
        if ((unsigned char)*c <= ' ' || *c == 0x7f) {
            *why = "the path has a space or a control character";
            return -1;
        }
    strcpy(e->path, !*p || !strcmp(p, "/") ? "/v1/traces" : p);
    int v6 = strchr(e->host, ':') != NULL;
    snprintf(e->url, sizeof e->url, "http://%s%s%s:%s%s", v6 ? "[" : "", e->host, v6 ? "]" : "",
             e->port, e->path);
    return 0;
}

/* A connected socket to e, or -1 with *why. */
static int dial(const cli_otlp_endpoint *e, const char **why)
{
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int g = getaddrinfo(e->host, e->port, &hints, &res);
    if (g != 0) {
        *why = gai_strerror(g);
        return -1;
    }
    int fd = -1;
    *why = "no address";
    for (struct addrinfo *a = res; a; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
        if (fd < 0) {
            *why = strerror(errno);
            continue;
        }
        int rc = connect(fd, a->ai_addr, a->ai_addrlen);
        if (rc != 0 && errno == EINPROGRESS) {
            struct pollfd p = { .fd = fd, .events = POLLOUT };
            int n;
            do
                n = poll(&p, 1, CLI_OTLP_CONNECT_SECONDS * 1000);
            while (n < 0 && errno == EINTR);
            int err = 0;
            socklen_t len = sizeof err;
            if (n == 0)
                err = ETIMEDOUT;
            else if (n < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
                err = errno;
            rc = err ? -1 : 0;
            errno = err;
        }
        if (rc == 0) {
            fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
            struct timeval tv = { CLI_OTLP_IO_SECONDS, 0 };
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
            break;
        }
        *why = strerror(errno);
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    return fd;
}

static int send_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t k = send(fd, c, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        c += k;
        n -= (size_t)k;
    }
    return 0;
}

int cli_otlp_post(const cli_otlp_endpoint *e, const uint8_t *body, size_t len, char *err,
                  size_t errcap)
{
    const char *why;
    int fd = dial(e, &why);
    if (fd < 0) {
        snprintf(err, errcap, "cannot reach %s: %s", e->url, why);
        return -1;
    }
    char head[CLI_OTLP_URL_MAX + 512];
    int v6 = strchr(e->host, ':') != NULL;
    int hn = snprintf(head, sizeof head,
                      "POST %s HTTP/1.1\r\nHost: %s%s%s:%s\r\n"
                      "Content-Type: application/x-protobuf\r\nContent-Length: %zu\r\n"
                      "User-Agent: clrtrace/%s\r\nConnection: close\r\n\r\n",
                      e->path, v6 ? "[" : "", e->host, v6 ? "]" : "", e->port, len,
                      CLRTRACE_VERSION);
    int sent = send_all(fd, head, (size_t)hn) == 0 && send_all(fd, body, len) == 0;
    int send_errno = errno;
    /* The status line (an endpoint may answer, e.g. 413, before taking the
     * whole body). */
    char resp[1024];
    size_t got = 0;
    char *eol = NULL;
    while (got < sizeof resp - 1 && !eol) {
        ssize_t k = recv(fd, resp + got, sizeof resp - 1 - got, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        got += (size_t)k;
        resp[got] = 0;
        eol = strstr(resp, "\r\n");
        if (!eol)
            eol = strchr(resp, '\n');
    }
    int rd_errno = errno;
    close(fd);
    if (!eol) {
        if (!sent)
            snprintf(err, errcap, "cannot send to %s: %s", e->url, strerror(send_errno));
        else if (got)
            snprintf(err, errcap, "%s answered without an HTTP status line", e->url);
        else
            snprintf(err, errcap, "%s gave no answer: %s", e->url,
                     rd_errno == EAGAIN || rd_errno == EWOULDBLOCK ? "timed out"
                     : rd_errno ? strerror(rd_errno) : "connection closed");
        return -1;
    }
    *eol = 0;
    /* Printable text only in the message. */
    for (char *c = resp; *c; c++)
        if ((unsigned char)*c < ' ' || *c == 0x7f)
            *c = '?';
    int code = 0;
    if (strncmp(resp, "HTTP/", 5) || sscanf(resp, "HTTP/%*s %d", &code) != 1) {
        snprintf(err, errcap, "%s answered without an HTTP status line: %.200s", e->url, resp);
        return -1;
    }
    if (code < 200 || code > 299) {
        snprintf(err, errcap, "%s refused the spans: %.200s", e->url, resp);
        return -1;
    }
    return 0;
}
