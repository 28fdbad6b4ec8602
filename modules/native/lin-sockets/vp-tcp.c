/*
 * embedded:io/socket/tcp for the Linux port (vp-tcp.js): ECMA-419 TCP sockets, accepted by the
 * listener (vp-listener.c) or connected to an IPv4 address, served from the GLib main loop.
 *
 * Reading: each time the kernel says the socket is readable, everything it holds is read, up to
 * the read buffer's size (socketReadBytes), and onReadable says how many bytes are waiting. While
 * the buffer is full the socket is not watched for reading (the kernel holds the rest and TCP
 * slows the peer); read() makes room and watches again.
 *
 * Writing: write() takes at most what the write buffer (socketWriteBytes) has free, hands it to
 * the kernel at once, and keeps what the kernel did not take; when the kernel takes more,
 * onWritable says how much write() takes now. close() with bytes still in the buffer keeps the
 * descriptor (not the object) until they are out or socketLingerMs has passed, as a kernel does
 * with its own send buffer: an answer written just before close() is not cut off.
 *
 * The peer's end: its FIN (a half-close: it may still read) or a failure is reported as onError,
 * once, only after every byte read before it has been taken with read(), and never inside the
 * call that took them (a deferred callback), so promise jobs the bytes started run first. After
 * a FIN write() still sends, and onError waits until the write buffer is empty (onWritable goes
 * on meanwhile), or socketLingerMs without the kernel taking a byte: hosts/moddable/tcp.ts takes
 * onError as the last moment to write, with the whole buffer free, and closes after it, so a
 * half-closing peer still gets an answer larger than the buffer. After a failure write() throws.
 */

#include "vp-socket.h"
#include "modInstrumentation.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct {
	VpSocket socket; /* first, so a VpSocket pointer is this record's */
	uint8_t connecting;  /* connect() under way: writable means done */
	uint8_t readEnded;   /* the peer's FIN came: nothing more arrives, sending still works */
	uint8_t failed;      /* reset or error: nothing more either way */
	uint8_t errorReported;
	uint8_t writableDue; /* the kernel took bytes since onWritable last said a count */
	uint8_t lingering;   /* closed by JavaScript, still sending what write() took */
	uint8_t counted;     /* in the instrumentation's socket count */
	guint lingerTimer;
	/* After a FIN with bytes still to send: onError once they are out, or when this fires. */
	guint finTimer;
	uint8_t finTimedOut;
	uint32_t lingerMs;
	uint8_t *readBuffer;
	uint32_t readCapacity, readStart, readLength;
	uint8_t *writeBuffer;
	uint32_t writeCapacity, writeStart, writeLength;
	char remoteAddress[INET_ADDRSTRLEN];
	int remotePort; /* -1: not known */
} VpTcp;

void xs_vp_tcp_destructor(void *data);
static void vpTcpMarkHook(xsMachine *the, void *data, xsMarkRoot markRoot);

static const xsHostHooks vpTcpHooks = {
	xs_vp_tcp_destructor,
	vpTcpMarkHook,
	NULL
};

static const char *const vpTcpCallbackNames[VP_CALLBACKS] = { "onReadable", "onWritable", "onError" };

static void vpTcpRewatch(VpTcp *tcp)
{
	GIOCondition want = 0;
	if (tcp->connecting)
		want = G_IO_OUT;
	else if (!tcp->failed) {
		if (!tcp->readEnded && (tcp->lingering || (tcp->readLength < tcp->readCapacity)))
			want |= G_IO_IN;
		if (tcp->writeLength)
			want |= G_IO_OUT;
	}
	vpSocketWatch(&tcp->socket, want);
}

static void vpTcpRememberPeer(VpTcp *tcp)
{
	struct sockaddr_in peer;
	socklen_t length = sizeof(peer);
	if ((getpeername(tcp->socket.fd, (struct sockaddr *)&peer, &length) == 0) && (peer.sin_family == AF_INET)) {
		inet_ntop(AF_INET, &peer.sin_addr, tcp->remoteAddress, sizeof(tcp->remoteAddress));
		tcp->remotePort = ntohs(peer.sin_port);
	}
}

/* Reads what the kernel has, up to the buffer's room. */
static void vpTcpFill(VpTcp *tcp)
{
	while (!tcp->readEnded && !tcp->failed) {
		uint32_t end = tcp->readStart + tcp->readLength;
		if ((end == tcp->readCapacity) && tcp->readStart) {
			memmove(tcp->readBuffer, tcp->readBuffer + tcp->readStart, tcp->readLength);
			tcp->readStart = 0;
			end = tcp->readLength;
		}
		uint32_t room = tcp->readCapacity - end;
		if (!room)
			return;
		ssize_t got = recv(tcp->socket.fd, tcp->readBuffer + end, room, MSG_DONTWAIT);
		if (got > 0) {
			tcp->readLength += (uint32_t)got;
			modInstrumentationAdjust(NetworkBytesRead, (int32_t)got);
		}
		else if (got == 0)
			tcp->readEnded = 1;
		else if (errno == EINTR)
			continue;
		else if ((errno == EAGAIN) || (errno == EWOULDBLOCK))
			return;
		else
			tcp->failed = 1;
	}
}

/* Hands the kernel what the write buffer holds, as much as it takes now. */
static void vpTcpSend(VpTcp *tcp)
{
	while (tcp->writeLength && !tcp->failed) {
		ssize_t sent = send(tcp->socket.fd, tcp->writeBuffer + tcp->writeStart, tcp->writeLength, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (sent > 0) {
			tcp->writeStart += (uint32_t)sent;
			tcp->writeLength -= (uint32_t)sent;
			modInstrumentationAdjust(NetworkBytesWritten, (int32_t)sent);
		}
		else if ((sent < 0) && (errno == EINTR))
			continue;
		else if ((sent < 0) && ((errno == EAGAIN) || (errno == EWOULDBLOCK)))
			break;
		else {
			tcp->failed = 1;
			tcp->writeLength = 0;
		}
	}
	if (!tcp->writeLength)
		tcp->writeStart = 0;
}

/* Reads and drops what the peer still sends (a closed socket with unread bytes would answer with RST). */
static void vpTcpDiscardInput(VpTcp *tcp)
{
	uint8_t scratch[4096];
	while (!tcp->readEnded && !tcp->failed) {
		ssize_t got = recv(tcp->socket.fd, scratch, sizeof(scratch), MSG_DONTWAIT);
		if (got > 0)
			continue;
		if (got == 0)
			tcp->readEnded = 1;
		else if (errno == EINTR)
			continue;
		else if ((errno != EAGAIN) && (errno != EWOULDBLOCK))
			tcp->failed = 1;
		return;
	}
}

static void vpTcpEndLinger(VpTcp *tcp)
{
	if (!tcp->lingering)
		return;
	tcp->lingering = 0;
	if (tcp->lingerTimer) {
		g_source_remove(tcp->lingerTimer);
		tcp->lingerTimer = 0;
	}
	if (tcp->socket.fd >= 0)
		vpTcpDiscardInput(tcp);
	vpSocketShut(&tcp->socket);
	vpSocketRelease(&tcp->socket); /* the linger's hold */
}

static gboolean vpTcpLingerTimeout(gpointer data)
{
	VpTcp *tcp = data;
	tcp->lingerTimer = 0;
	vpTcpEndLinger(tcp);
	return G_SOURCE_REMOVE;
}

/* onError is due: the peer failed, or sent its FIN and what was written to it is out (or stuck). */
static int vpTcpErrorDue(VpTcp *tcp)
{
	if (!tcp->socket.open || tcp->errorReported || tcp->readLength)
		return 0;
	if (tcp->failed)
		return 1;
	return tcp->readEnded && (!tcp->writeLength || tcp->finTimedOut);
}

static gboolean vpTcpFinTimeout(gpointer data)
{
	VpTcp *tcp = data;
	tcp->finTimer = 0;
	tcp->finTimedOut = 1;
	if (vpTcpErrorDue(tcp))
		vpSocketDefer(&tcp->socket);
	return G_SOURCE_REMOVE;
}

static void vpTcpStopFinTimer(VpTcp *tcp)
{
	if (tcp->finTimer) {
		g_source_remove(tcp->finTimer);
		tcp->finTimer = 0;
	}
}

/* Schedules the onError that is due; after a FIN with bytes to send, (re)starts the wait for them. */
static void vpTcpOweError(VpTcp *tcp)
{
	if (vpTcpErrorDue(tcp)) {
		vpTcpStopFinTimer(tcp);
		vpSocketDefer(&tcp->socket);
	}
	else if (tcp->socket.open && tcp->readEnded && !tcp->failed && tcp->writeLength && !tcp->errorReported) {
		vpTcpStopFinTimer(tcp);
		tcp->finTimer = g_timeout_add(tcp->lingerMs, vpTcpFinTimeout, tcp);
	}
}

static void vpTcpDeferred(VpSocket *socket)
{
	VpTcp *tcp = (VpTcp *)socket;
	if (tcp->writableDue && !tcp->failed && !tcp->connecting) {
		tcp->writableDue = 0;
		if (!vpSocketCall(socket, VP_ON_WRITABLE, 1, tcp->writeCapacity - tcp->writeLength))
			return;
	}
	if (vpTcpErrorDue(tcp)) {
		tcp->errorReported = 1;
		vpSocketCall(socket, VP_ON_ERROR, 0, 0);
	}
}

static gboolean vpTcpReady(gint fd, GIOCondition condition, gpointer data)
{
	VpTcp *tcp = data;
	VpSocket *socket = &tcp->socket;
	vpSocketHold(socket);
	if (tcp->lingering) {
		if (condition & (G_IO_IN | G_IO_HUP | G_IO_ERR))
			vpTcpDiscardInput(tcp);
		vpTcpSend(tcp);
		if (!tcp->writeLength || tcp->failed)
			vpTcpEndLinger(tcp);
		else
			vpTcpRewatch(tcp);
	}
	else {
		uint32_t before = tcp->readLength;
		if (tcp->connecting) {
			int error = 0;
			socklen_t length = sizeof(error);
			if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) < 0)
				error = errno;
			tcp->connecting = 0;
			if (error)
				tcp->failed = 1;
			else {
				vpTcpRememberPeer(tcp);
				tcp->writableDue = 1;
			}
		}
		else {
			if (condition & (G_IO_IN | G_IO_HUP | G_IO_ERR))
				vpTcpFill(tcp);
			if (tcp->writeLength && (condition & (G_IO_OUT | G_IO_HUP | G_IO_ERR))) {
				uint32_t held = tcp->writeLength;
				vpTcpSend(tcp);
				if (tcp->writeLength < held)
					tcp->writableDue = 1;
			}
		}
		vpTcpRewatch(tcp);
		int stillOpen = socket->open;
		if (stillOpen && tcp->writableDue && !tcp->failed) {
			tcp->writableDue = 0;
			stillOpen = vpSocketCall(socket, VP_ON_WRITABLE, 1, tcp->writeCapacity - tcp->writeLength);
		}
		if (stillOpen && (tcp->readLength > before))
			stillOpen = vpSocketCall(socket, VP_ON_READABLE, 1, tcp->readLength);
		if (stillOpen)
			vpTcpOweError(tcp);
	}
	vpSocketRelease(socket);
	return G_SOURCE_CONTINUE;
}

static void vpTcpFinalize(VpSocket *socket)
{
	VpTcp *tcp = (VpTcp *)socket;
	if (tcp->lingerTimer)
		g_source_remove(tcp->lingerTimer);
	vpTcpStopFinTimer(tcp);
	if (tcp->counted) {
		modInstrumentationAdjust(NetworkSockets, -1);
	}
	free(tcp->readBuffer);
	free(tcp->writeBuffer);
	free(tcp);
}

void xs_vp_tcp_destructor(void *data)
{
	VpTcp *tcp = data;
	if (tcp)
		vpSocketObjectGone(&tcp->socket, tcp->lingering);
}

static void vpTcpMarkHook(xsMachine *the, void *data, xsMarkRoot markRoot)
{
	vpSocketMark(the, data, markRoot);
}

static VpTcp *vpTcpOf(xsMachine *the)
{
	return xsmcGetHostDataValidate(xsThis, (void *)&vpTcpHooks);
}

static void vpTcpAdopt(xsMachine *the, VpTcp *tcp, xsSlot *options)
{
	VpTcp *accepted = NULL;
	xsmcGet(xsVar(0), *options, xsID("from"));
	if (xsmcTypeOf(xsVar(0)) == xsReferenceType)
		accepted = xsmcGetHostDataValidate(xsVar(0), (void *)&vpTcpHooks);
	if (!accepted || accepted->socket.open || (accepted->socket.fd < 0))
		xsTypeError("from: not a socket a listener's read() gave, or one already taken");
	tcp->socket.fd = accepted->socket.fd;
	accepted->socket.fd = -1;
	memcpy(tcp->remoteAddress, accepted->remoteAddress, sizeof(tcp->remoteAddress));
	tcp->remotePort = accepted->remotePort;
	tcp->writableDue = 1;
}

static void vpTcpConnect(xsMachine *the, VpTcp *tcp, xsSlot *options)
{
	struct sockaddr_in to;
	memset(&to, 0, sizeof(to));
	to.sin_family = AF_INET;
	if (!vpSocketAddressOption(the, options, "address", &to.sin_addr, &xsVar(0)))
		xsTypeError("address: a dotted IPv4 address is needed without from");
	int port = vpSocketPortOption(the, options, "port", &xsVar(0));
	if (port <= 0)
		xsRangeError("port: 1-65535 is needed without from");
	to.sin_port = htons((uint16_t)port);
	tcp->socket.fd = socket(AF_INET, SOCK_STREAM, 0);
	if (tcp->socket.fd < 0)
		vpSocketStrError(the, "socket", errno);
	vpSocketNonBlocking(the, tcp->socket.fd);
	inet_ntop(AF_INET, &to.sin_addr, tcp->remoteAddress, sizeof(tcp->remoteAddress));
	tcp->remotePort = port;
	if (connect(tcp->socket.fd, (struct sockaddr *)&to, sizeof(to)) == 0)
		tcp->writableDue = 1;
	else if (errno == EINPROGRESS)
		tcp->connecting = 1;
	else
		tcp->failed = 1; /* reported as onError, as a refusal found later would be */
}

/*
 * new TCP(options) (vp-tcp.js passes options, readBytes, writeBytes, lingerMs). Without options:
 * the empty socket a listener's read() fills with an accepted connection, to be taken by
 * `new TCP({from})`.
 */
void xs_vp_tcp_constructor(xsMachine *the)
{
	vpNeedArgs(the, 4, "TCP(options, readBytes, writeBytes, lingerMs)");
	xsmcVars(1); /* xsVar(0): scratch for the options' values */
	uint32_t readBytes = vpSocketLimit(the, &xsArg(1), "socketReadBytes");
	uint32_t writeBytes = vpSocketLimit(the, &xsArg(2), "socketWriteBytes");
	uint32_t lingerMs = vpSocketLimit(the, &xsArg(3), "socketLingerMs");
	VpTcp *tcp = calloc(1, sizeof(VpTcp));
	if (!tcp)
		xsUnknownError("TCP: no memory");
	vpSocketInit(&tcp->socket, the, vpTcpReady, vpTcpDeferred, vpTcpFinalize);
	tcp->remotePort = -1;
	tcp->lingerMs = lingerMs;
	/* From here the destructor frees the record and closes its descriptor if anything throws. */
	xsmcSetHostData(xsThis, tcp);
	xsSetHostHooks(xsThis, (xsHostHooks *)&vpTcpHooks);
	if (xsmcTypeOf(xsArg(0)) == xsUndefinedType)
		return;
	if (xsmcTypeOf(xsArg(0)) != xsReferenceType)
		xsTypeError("TCP: options must be an object");

	tcp->readBuffer = malloc(readBytes);
	tcp->writeBuffer = malloc(writeBytes);
	if (!tcp->readBuffer || !tcp->writeBuffer)
		xsUnknownError("TCP: no memory for %u + %u bytes of buffers", (unsigned)readBytes, (unsigned)writeBytes);
	tcp->readCapacity = readBytes;
	tcp->writeCapacity = writeBytes;

	if (xsmcHas(xsArg(0), xsID("from")))
		vpTcpAdopt(the, tcp, &xsArg(0));
	else
		vpTcpConnect(the, tcp, &xsArg(0));

	if (xsmcHas(xsArg(0), xsID("nodelay"))) {
		xsmcGet(xsVar(0), xsArg(0), xsID("nodelay"));
		int on = xsmcTest(xsVar(0)) ? 1 : 0;
		setsockopt(tcp->socket.fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
	}

	vpSocketOpen(the, &tcp->socket, &xsArg(0), vpTcpCallbackNames);
	tcp->counted = 1;
	modInstrumentationAdjust(NetworkSockets, +1);
	vpTcpRewatch(tcp);
	/* The first onWritable (or a failed connect's onError) comes from the main loop, after new returns. */
	if (tcp->writableDue || tcp->failed)
		vpSocketDefer(&tcp->socket);
}

void xs_vp_tcp_close(xsMachine *the)
{
	VpTcp *tcp = vpTcpOf(the);
	if (!tcp->socket.open) {
		/* Already closed (a second close is nothing), or a listener's socket never taken. */
		if (!tcp->lingering)
			vpSocketShut(&tcp->socket);
		return;
	}
	vpSocketEndJavaScript(&tcp->socket);
	vpTcpStopFinTimer(tcp);
	if (tcp->socket.deferred) {
		g_source_remove(tcp->socket.deferred);
		tcp->socket.deferred = 0;
	}
	if (tcp->writeLength && !tcp->failed && !tcp->connecting && (tcp->socket.fd >= 0)) {
		tcp->lingering = 1;
		vpSocketHold(&tcp->socket); /* released by vpTcpEndLinger */
		tcp->lingerTimer = g_timeout_add(tcp->lingerMs, vpTcpLingerTimeout, tcp);
		vpTcpRewatch(tcp);
		return;
	}
	if (tcp->socket.fd >= 0)
		vpTcpDiscardInput(tcp);
	vpSocketShut(&tcp->socket);
}

/*
 * read() -> ArrayBuffer of every waiting byte; read(count) -> ArrayBuffer of at most count;
 * read(buffer) -> bytes copied into the ArrayBuffer or view. undefined when nothing waits.
 */
void xs_vp_tcp_read(xsMachine *the)
{
	VpTcp *tcp = vpTcpOf(the);
	if (!tcp->socket.open)
		xsUnknownError("read: the socket is closed");
	if (!tcp->readLength)
		return;
	uint32_t taken;
	const uint8_t *from = tcp->readBuffer + tcp->readStart;
	int type = (xsmcArgc > 0) ? xsmcTypeOf(xsArg(0)) : xsUndefinedType;
	if (type == xsReferenceType) {
		void *into;
		xsUnsignedValue room;
		xsmcGetBufferWritable(xsArg(0), &into, &room);
		taken = (room < tcp->readLength) ? (uint32_t)room : tcp->readLength;
		memcpy(into, from, taken);
		xsmcSetInteger(xsResult, taken);
	}
	else {
		taken = tcp->readLength;
		if (type != xsUndefinedType) {
			xsNumberValue count = xsmcToNumber(xsArg(0));
			if (!(count >= 1))
				xsRangeError("read: count %g: at least 1", count);
			if (count < taken)
				taken = (uint32_t)count;
		}
		xsmcSetArrayBuffer(xsResult, (void *)from, taken);
	}
	tcp->readStart += taken;
	tcp->readLength -= taken;
	if (!tcp->readLength)
		tcp->readStart = 0;
	vpTcpRewatch(tcp);
	vpTcpOweError(tcp);
}

/* write(bytes) -> the bytes write() takes now; more than that throws (ECMA-419 flow control). */
void xs_vp_tcp_write(xsMachine *the)
{
	vpNeedArgs(the, 1, "write(bytes)");
	VpTcp *tcp = vpTcpOf(the);
	if (!tcp->socket.open)
		xsUnknownError("write: the socket is closed");
	if (tcp->failed)
		xsUnknownError("write: the connection failed");
	if (tcp->connecting)
		xsUnknownError("write: not connected yet (wait for onWritable)");
	void *data;
	xsUnsignedValue length;
	xsmcGetBufferReadable(xsArg(0), &data, &length);
	uint32_t writable = tcp->writeCapacity - tcp->writeLength;
	if (length > writable)
		xsUnknownError("write: %u bytes, %u writable", (unsigned)length, (unsigned)writable);
	if (length) {
		if (tcp->writeStart + tcp->writeLength + length > tcp->writeCapacity) {
			memmove(tcp->writeBuffer, tcp->writeBuffer + tcp->writeStart, tcp->writeLength);
			tcp->writeStart = 0;
		}
		memcpy(tcp->writeBuffer + tcp->writeStart + tcp->writeLength, data, length);
		tcp->writeLength += (uint32_t)length;
		vpTcpSend(tcp);
		vpTcpRewatch(tcp);
		vpTcpOweError(tcp);
	}
	xsmcSetInteger(xsResult, tcp->writeCapacity - tcp->writeLength);
}

void xs_vp_tcp_get_remote_address(xsMachine *the)
{
	VpTcp *tcp = vpTcpOf(the);
	if (tcp->remoteAddress[0])
		xsmcSetString(xsResult, tcp->remoteAddress);
}

void xs_vp_tcp_get_remote_port(xsMachine *the)
{
	VpTcp *tcp = vpTcpOf(the);
	if (tcp->remotePort >= 0)
		xsmcSetInteger(xsResult, tcp->remotePort);
}

void vpTcpHoldAccepted(xsMachine *the, xsSlot *holder, int fd)
{
	VpTcp *tcp = xsmcGetHostDataValidate(*holder, (void *)&vpTcpHooks);
	if (tcp->socket.open || (tcp->socket.fd >= 0)) {
		close(fd);
		xsTypeError("listener: the socket to fill is in use");
	}
	tcp->socket.fd = fd;
	vpTcpRememberPeer(tcp);
}
