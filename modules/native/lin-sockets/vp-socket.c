/*
 * The shared part of the Linux port's ECMA-419 sockets: the GLib sources a socket waits on, its
 * callbacks into XS and its counted lifetime (vp-socket.h says why each is so).
 */

#include "vp-socket.h"

#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

void vpSocketInit(VpSocket *socket, xsMachine *the, GUnixFDSourceFunc ready, void (*deferredRun)(VpSocket *), void (*finalize)(VpSocket *))
{
	socket->the = the;
	socket->object = xsUndefined;
	for (int which = 0; which < VP_CALLBACKS; which++) {
		socket->callbacks[which] = xsUndefined;
		socket->hasCallback[which] = 0;
	}
	socket->open = 0;
	socket->remembered = 0;
	socket->holds = 1;
	socket->fd = -1;
	socket->watch = 0;
	socket->watching = 0;
	socket->ready = ready;
	socket->deferred = 0;
	socket->deferredRun = deferredRun;
	socket->finalize = finalize;
}

void vpSocketOpen(xsMachine *the, VpSocket *socket, xsSlot *options, const char *const names[VP_CALLBACKS])
{
	for (int which = 0; which < VP_CALLBACKS; which++) {
		if (!names[which] || !options || (xsmcTypeOf(*options) != xsReferenceType))
			continue;
		xsmcGet(socket->callbacks[which], *options, xsID(names[which]));
		if (xsmcIsCallable(socket->callbacks[which]))
			socket->hasCallback[which] = 1;
		else
			socket->callbacks[which] = xsUndefined;
	}
	socket->object = xsThis;
	xsRemember(socket->object);
	socket->remembered = 1;
	socket->open = 1;
}

void vpSocketWatch(VpSocket *socket, GIOCondition condition)
{
	if (socket->fd < 0)
		condition = 0;
	if (socket->watch && (socket->watching == condition))
		return;
	if (socket->watch) {
		g_source_remove(socket->watch);
		socket->watch = 0;
		socket->watching = 0;
	}
	if (condition) {
		socket->watch = g_unix_fd_add_full(G_PRIORITY_DEFAULT, socket->fd, condition, socket->ready, socket, NULL);
		socket->watching = condition;
	}
}

static gboolean vpSocketRunDeferred(gpointer data)
{
	VpSocket *socket = data;
	socket->deferred = 0;
	vpSocketHold(socket);
	socket->deferredRun(socket);
	vpSocketRelease(socket);
	return G_SOURCE_REMOVE;
}

void vpSocketDefer(VpSocket *socket)
{
	if (socket->deferredRun && !socket->deferred)
		socket->deferred = g_idle_add_full(G_PRIORITY_DEFAULT, vpSocketRunDeferred, socket, NULL);
}

void vpSocketEndJavaScript(VpSocket *socket)
{
	xsMachine *the = socket->the;
	socket->open = 0;
	for (int which = 0; which < VP_CALLBACKS; which++) {
		socket->hasCallback[which] = 0;
		socket->callbacks[which] = xsUndefined;
	}
	if (socket->remembered) {
		socket->remembered = 0;
		xsForget(socket->object);
	}
}

void vpSocketShut(VpSocket *socket)
{
	vpSocketWatch(socket, 0);
	if (socket->deferred) {
		g_source_remove(socket->deferred);
		socket->deferred = 0;
	}
	if (socket->fd >= 0) {
		close(socket->fd);
		socket->fd = -1;
	}
}

void vpSocketObjectGone(VpSocket *socket, int keepDescriptor)
{
	socket->open = 0;
	socket->remembered = 0;
	for (int which = 0; which < VP_CALLBACKS; which++)
		socket->hasCallback[which] = 0;
	if (socket->deferred) {
		g_source_remove(socket->deferred);
		socket->deferred = 0;
	}
	if (!keepDescriptor)
		vpSocketShut(socket);
	vpSocketRelease(socket);
}

void vpSocketHold(VpSocket *socket)
{
	socket->holds += 1;
}

void vpSocketRelease(VpSocket *socket)
{
	socket->holds -= 1;
	if (socket->holds > 0)
		return;
	vpSocketShut(socket);
	socket->finalize(socket);
}

void vpSocketMark(xsMachine *the, VpSocket *socket, xsMarkRoot markRoot)
{
	for (int which = 0; which < VP_CALLBACKS; which++) {
		if (socket->hasCallback[which])
			(*markRoot)(the, &socket->callbacks[which]);
	}
}

int vpSocketCall(VpSocket *socket, int which, int withCount, xsIntegerValue count)
{
	if (!socket->open || !socket->hasCallback[which])
		return socket->open;
	xsBeginHost(socket->the);
	{
		xsTry {
			if (withCount)
				xsCallFunction1(socket->callbacks[which], socket->object, xsInteger(count));
			else
				xsCallFunction0(socket->callbacks[which], socket->object);
		}
		xsCatch {
			xsTrace("socket callback threw: ");
			xsTry {
				xsTrace(xsmcToString(xsException));
			}
			xsCatch {
			}
			xsTrace("\n");
		}
	}
	xsEndHost(socket->the);
	return socket->open;
}

void vpSocketNonBlocking(xsMachine *the, int fd)
{
	int flags = fcntl(fd, F_GETFL, 0);
	if ((flags < 0) || (fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) || (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0))
		vpSocketStrError(the, "socket: cannot make it non-blocking", errno);
}

int vpSocketAddressOption(xsMachine *the, xsSlot *options, const char *name, struct in_addr *address, xsSlot *scratch)
{
	char text[INET_ADDRSTRLEN];
	if (!xsmcHas(*options, xsID(name)))
		return 0;
	xsmcGet(*scratch, *options, xsID(name));
	if (xsmcTypeOf(*scratch) == xsUndefinedType)
		return 0;
	if (xsmcTypeOf(*scratch) != xsStringType)
		xsTypeError("%s: a dotted IPv4 address string expected", name);
	const char *given = xsmcToString(*scratch);
	if (strlen(given) >= sizeof(text))
		xsRangeError("%s: not an IPv4 address", name);
	strcpy(text, given);
	if (inet_pton(AF_INET, text, address) != 1)
		xsRangeError("%s: not an IPv4 address: %s", name, text);
	return 1;
}

int vpSocketPortOption(xsMachine *the, xsSlot *options, const char *name, xsSlot *scratch)
{
	if (!xsmcHas(*options, xsID(name)))
		return -1;
	xsmcGet(*scratch, *options, xsID(name));
	int type = xsmcTypeOf(*scratch);
	if (type == xsUndefinedType)
		return -1;
	if ((type != xsIntegerType) && (type != xsNumberType))
		xsTypeError("%s: a number expected", name);
	xsNumberValue number = xsmcToNumber(*scratch);
	if (!(number >= 0) || (number > 65535) || (number != (xsNumberValue)(int)number))
		xsRangeError("%s: not a port (0-65535)", name);
	return (int)number;
}

uint32_t vpSocketLimit(xsMachine *the, xsSlot *value, const char *name)
{
	xsNumberValue number = xsmcToNumber(*value);
	if (!(number >= 1) || (number > (16 * 1024 * 1024)))
		xsRangeError("%s: %g is not a limit (1 to 16 MB)", name, number);
	return (uint32_t)number;
}

void vpSocketStrError(xsMachine *the, const char *what, int error)
{
	xsUnknownError("%s: %s", what, strerror(error));
}

struct sockaddr_in vpSocketBindAddress(xsMachine *the, xsSlot *options, xsSlot *scratch)
{
	struct sockaddr_in at;
	memset(&at, 0, sizeof(at));
	at.sin_family = AF_INET;
	at.sin_addr.s_addr = htonl(INADDR_ANY);
	vpSocketAddressOption(the, options, "address", &at.sin_addr, scratch);
	int port = vpSocketPortOption(the, options, "port", scratch);
	at.sin_port = htons((uint16_t)((port < 0) ? 0 : port));
	return at;
}

void vpSocketBind(xsMachine *the, VpSocket *record, int type, const struct sockaddr_in *at, int reuse, const char *what)
{
	int fd = socket(AF_INET, type, 0);
	if (fd < 0)
		vpSocketStrError(the, what, errno);
	record->fd = fd;
	vpSocketNonBlocking(the, fd);
	if (reuse) {
		int on = 1;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	}
	if (bind(fd, (const struct sockaddr *)at, sizeof(*at)) < 0) {
		char where[INET_ADDRSTRLEN];
		inet_ntop(AF_INET, &at->sin_addr, where, sizeof(where));
		xsUnknownError("%s: bind %s:%d: %s", what, where, ntohs(at->sin_port), strerror(errno));
	}
}
