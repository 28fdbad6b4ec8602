/*
 * embedded:io/socket/listener for the Linux port (vp-listener.js): an ECMA-419 TCP listener on
 * the GLib main loop. When the kernel says connections wait, every one is accepted (up to
 * socketAcceptQueue not yet taken by read(); beyond that they wait in the kernel's backlog) and
 * onReadable says how many wait. read() gives each as a TCP socket for `new TCP({from})`.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* accept4 */
#endif

#include "vp-socket.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* How long accepting pauses when the process is out of descriptors (it would spin otherwise). */
#define VP_ACCEPT_RETRY_MS 100

typedef struct VpAccepted VpAccepted;
struct VpAccepted {
	VpAccepted *next;
	int fd;
};

typedef struct {
	VpSocket socket; /* first, so a VpSocket pointer is this record's */
	VpAccepted *first, *last;
	uint32_t waiting, limit;
	guint retryTimer;
} VpListener;

void xs_vp_listener_destructor(void *data);
static void vpListenerMarkHook(xsMachine *the, void *data, xsMarkRoot markRoot);

static const xsHostHooks vpListenerHooks = {
	xs_vp_listener_destructor,
	vpListenerMarkHook,
	NULL
};

static const char *const vpListenerCallbackNames[VP_CALLBACKS] = { "onReadable", NULL, NULL };

static void vpListenerRewatch(VpListener *listener)
{
	int accepting = listener->socket.open && !listener->retryTimer && (listener->waiting < listener->limit);
	vpSocketWatch(&listener->socket, accepting ? G_IO_IN : 0);
}

static gboolean vpListenerRetry(gpointer data)
{
	VpListener *listener = data;
	listener->retryTimer = 0;
	vpListenerRewatch(listener);
	return G_SOURCE_REMOVE;
}

static gboolean vpListenerReady(gint fd, GIOCondition condition, gpointer data)
{
	VpListener *listener = data;
	VpSocket *socket = &listener->socket;
	uint32_t before = listener->waiting;
	vpSocketHold(socket);
	while (listener->waiting < listener->limit) {
		int accepted = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (accepted < 0) {
			if ((errno == EINTR) || (errno == ECONNABORTED))
				continue;
			if ((errno == EMFILE) || (errno == ENFILE) || (errno == ENOBUFS) || (errno == ENOMEM))
				listener->retryTimer = g_timeout_add(VP_ACCEPT_RETRY_MS, vpListenerRetry, listener);
			break;
		}
		VpAccepted *entry = malloc(sizeof(VpAccepted));
		if (!entry) {
			close(accepted);
			break;
		}
		entry->next = NULL;
		entry->fd = accepted;
		if (listener->last)
			listener->last->next = entry;
		else
			listener->first = entry;
		listener->last = entry;
		listener->waiting += 1;
	}
	vpListenerRewatch(listener);
	if (listener->waiting > before)
		vpSocketCall(socket, VP_ON_READABLE, 1, listener->waiting);
	vpSocketRelease(socket);
	return G_SOURCE_CONTINUE;
}

static void vpListenerDropWaiting(VpListener *listener)
{
	while (listener->first) {
		VpAccepted *entry = listener->first;
		listener->first = entry->next;
		close(entry->fd);
		free(entry);
	}
	listener->last = NULL;
	listener->waiting = 0;
	if (listener->retryTimer) {
		g_source_remove(listener->retryTimer);
		listener->retryTimer = 0;
	}
}

static void vpListenerFinalize(VpSocket *socket)
{
	vpListenerDropWaiting((VpListener *)socket);
	free(socket);
}

void xs_vp_listener_destructor(void *data)
{
	if (data) {
		vpListenerDropWaiting(data);
		vpSocketObjectGone(data, 0);
	}
}

static void vpListenerMarkHook(xsMachine *the, void *data, xsMarkRoot markRoot)
{
	vpSocketMark(the, data, markRoot);
}

static VpListener *vpListenerOf(xsMachine *the)
{
	return xsmcGetHostDataValidate(xsThis, (void *)&vpListenerHooks);
}

/* new Listener(options) (vp-listener.js passes options and socketAcceptQueue): bound and listening, or a throw. */
void xs_vp_listener_constructor(xsMachine *the)
{
	vpNeedArgs(the, 2, "Listener(options, acceptQueue)");
	xsmcVars(1); /* xsVar(0): scratch for the options' values */
	if (xsmcTypeOf(xsArg(0)) != xsReferenceType)
		xsTypeError("Listener: options must be an object");
	uint32_t limit = vpSocketLimit(the, &xsArg(1), "socketAcceptQueue");
	struct sockaddr_in at = vpSocketBindAddress(the, &xsArg(0), &xsVar(0));

	VpListener *listener = calloc(1, sizeof(VpListener));
	if (!listener)
		xsUnknownError("Listener: no memory");
	vpSocketInit(&listener->socket, the, vpListenerReady, NULL, vpListenerFinalize);
	listener->limit = limit;
	xsmcSetHostData(xsThis, listener);
	xsSetHostHooks(xsThis, (xsHostHooks *)&vpListenerHooks);

	vpSocketBind(the, &listener->socket, SOCK_STREAM, &at, 1, "Listener");
	if (listen(listener->socket.fd, SOMAXCONN) < 0)
		vpSocketStrError(the, "Listener: listen", errno);

	vpSocketOpen(the, &listener->socket, &xsArg(0), vpListenerCallbackNames);
	vpListenerRewatch(listener);
}

void xs_vp_listener_close(xsMachine *the)
{
	VpListener *listener = vpListenerOf(the);
	if (!listener->socket.open)
		return;
	vpSocketEndJavaScript(&listener->socket);
	vpListenerDropWaiting(listener);
	vpSocketShut(&listener->socket);
}

/* read(holder): the next waiting connection in holder (an empty TCP from vp-listener.js), or undefined. */
void xs_vp_listener_read(xsMachine *the)
{
	vpNeedArgs(the, 1, "read(holder)");
	VpListener *listener = vpListenerOf(the);
	if (!listener->socket.open)
		xsUnknownError("read: the listener is closed");
	VpAccepted *entry = listener->first;
	if (!entry)
		return;
	listener->first = entry->next;
	if (!listener->first)
		listener->last = NULL;
	listener->waiting -= 1;
	int fd = entry->fd;
	free(entry);
	vpListenerRewatch(listener);
	vpTcpHoldAccepted(the, &xsArg(0), fd);
	xsResult = xsArg(0);
}

void xs_vp_listener_get_port(xsMachine *the)
{
	VpListener *listener = vpListenerOf(the);
	struct sockaddr_in at;
	socklen_t length = sizeof(at);
	if ((listener->socket.fd >= 0) && (getsockname(listener->socket.fd, (struct sockaddr *)&at, &length) == 0))
		xsmcSetInteger(xsResult, ntohs(at.sin_port));
}
