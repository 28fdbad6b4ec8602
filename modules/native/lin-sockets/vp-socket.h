/*
 * What the Linux port's ECMA-419 sockets (vp-tcp.c, vp-listener.c, vp-udp.c) share: the part of a
 * socket's record that ties its file descriptor to the GLib main loop and its callbacks to XS.
 *
 * The Linux port (mcsim, and a Linux media board running the same port) runs XS on the thread of
 * GLib's default main context: its timers are g_timeout sources there (modules/base/timer/lin),
 * its promise jobs g_idle sources. A socket here is a g_unix_fd source on that context for the
 * conditions it waits for now, so its callbacks run on the XS thread as soon as the kernel has
 * something, and never on a timer tick.
 *
 * Lifetime: a record is counted (holds). The socket object holds it until its destructor runs;
 * each dispatch into JavaScript holds it for the call, so a socket closed inside its own callback
 * is still there when the call returns; a TCP socket still sending after close() holds it until
 * its bytes are out. The object is remembered (a GC root) from the constructor to close().
 */

#ifndef VP_SOCKET_H
#define VP_SOCKET_H

#include "xsmc.h"
#include "../vp-args.h"

#include <glib.h>
#include <glib-unix.h>
#include <netinet/in.h>
#include <stdint.h>

enum {
	VP_ON_READABLE = 0,
	VP_ON_WRITABLE = 1,
	VP_ON_ERROR = 2,
	VP_CALLBACKS = 3
};

typedef struct VpSocket VpSocket;

struct VpSocket {
	xsMachine *the;
	/* The socket object: `this` of its callbacks, remembered while open. */
	xsSlot object;
	xsSlot callbacks[VP_CALLBACKS];
	uint8_t hasCallback[VP_CALLBACKS];
	/* Between the constructor and close(): the object may be used and is called back. */
	uint8_t open;
	uint8_t remembered;
	int holds;
	int fd;
	/* The g_unix_fd source of the conditions waited for (0 and 0 when none). */
	guint watch;
	GIOCondition watching;
	GUnixFDSourceFunc ready;
	/* One idle source for callbacks that must not run inside the JavaScript call that caused them (deferredRun may be NULL). */
	guint deferred;
	void (*deferredRun)(VpSocket *socket);
	/* Frees what the record's type owns beyond this struct (buffers, queues), then the record. */
	void (*finalize)(VpSocket *socket);
};

/* Sets up the shared part: no descriptor yet, one hold (the object's). */
void vpSocketInit(VpSocket *socket, xsMachine *the, GUnixFDSourceFunc ready, void (*deferredRun)(VpSocket *), void (*finalize)(VpSocket *));

/* Takes the socket's object (xsThis) and its callbacks from `options` (functions only), and remembers the object. */
void vpSocketOpen(xsMachine *the, VpSocket *socket, xsSlot *options, const char *const names[VP_CALLBACKS]);

/* Waits for exactly `condition` on the descriptor (0: for nothing). */
void vpSocketWatch(VpSocket *socket, GIOCondition condition);

/* Runs deferredRun once, soon, from the main loop (not inside the current call); nothing without one. */
void vpSocketDefer(VpSocket *socket);

/* Ends the JavaScript side: no more callbacks, the object forgotten; the descriptor is the caller's. */
void vpSocketEndJavaScript(VpSocket *socket);

/* Stops both sources and closes the descriptor (what a socket's last step does). */
void vpSocketShut(VpSocket *socket);

/*
 * The host destructor's part: the object is gone (collected, or the machine is ending), so
 * nothing may call into XS any more; the descriptor is shut unless keepDescriptor (a TCP socket
 * still sending what it took before close()). Drops the object's hold.
 */
void vpSocketObjectGone(VpSocket *socket, int keepDescriptor);

void vpSocketHold(VpSocket *socket);
void vpSocketRelease(VpSocket *socket);

/* The host hooks' marker: the callbacks live in the record. */
void vpSocketMark(xsMachine *the, VpSocket *socket, xsMarkRoot markRoot);

/*
 * Calls callback `which` with `this` the socket's object (with a count when withCount). A throw
 * is traced, not passed on: the main loop has nobody to catch it. Returns whether the socket is
 * still open afterwards (the callback may have closed it). The caller holds the record.
 */
int vpSocketCall(VpSocket *socket, int which, int withCount, xsIntegerValue count);

/* Non-blocking, close-on-exec, no SIGPIPE from the process's writes (sends use MSG_NOSIGNAL). */
void vpSocketNonBlocking(xsMachine *the, int fd);

/* options[name] as a dotted IPv4 address, when present (0 when absent); a bad one throws. scratch: one of the native's xsmcVars. */
int vpSocketAddressOption(xsMachine *the, xsSlot *options, const char *name, struct in_addr *address, xsSlot *scratch);

/* options[name] as a port 0-65535, when present (-1 when absent); a bad one throws. */
int vpSocketPortOption(xsMachine *the, xsSlot *options, const char *name, xsSlot *scratch);

/*
 * The address a Listener or UDP socket binds: options.address (any when absent) and
 * options.port (0 when absent). scratch: one of the native's xsmcVars.
 */
struct sockaddr_in vpSocketBindAddress(xsMachine *the, xsSlot *options, xsSlot *scratch);

/*
 * A non-blocking socket of `type` (SOCK_STREAM, SOCK_DGRAM) bound to `at`, SO_REUSEADDR first
 * when `reuse`, stored in record->fd as soon as it exists (so the finalizer closes it if a later
 * step throws); a failure throws naming `what` and the address.
 */
void vpSocketBind(xsMachine *the, VpSocket *record, int type, const struct sockaddr_in *at, int reuse, const char *what);

/* A limit passed by the module's JavaScript (its config keys): a positive integer, else a RangeError naming it. */
uint32_t vpSocketLimit(xsMachine *the, xsSlot *value, const char *name);

/* Throws an Error "what: the system's reason" for errno `error`. */
void vpSocketStrError(xsMachine *the, const char *what, int error);

/*
 * vp-tcp.c for vp-listener.c: puts an accepted connection's descriptor into `holder`, an empty
 * TCP socket (`new TCP` without options), for `new TCP({from: holder})` to take.
 */
void vpTcpHoldAccepted(xsMachine *the, xsSlot *holder, int fd);

#endif
