/*
 * embedded:io/socket/udp for the Linux port (vp-udp.js): ECMA-419 UDP sockets on the GLib main
 * loop. When the kernel says datagrams wait, every one is read (up to socketUdpQueue not yet
 * taken by read(); beyond that they wait in the kernel's buffer) and onReadable says how many
 * wait; a 125-packet-a-second audio stream is read as it comes.
 *
 * Multicast: add(group) joins the group on every interface that is up and multicast-capable
 * (IP_ADD_MEMBERSHIP), remove(group) leaves it; `multicast` in the options joins at once and
 * binds with SO_REUSEADDR, so the port (mDNS: 5353) is shared with other responders on the host
 * that allow it. timeToLive sets the TTL of what is sent, multicast and unicast.
 */

#include "vp-socket.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The largest UDP payload over IPv4. */
#define VP_DATAGRAM_MAX 65507

typedef struct VpDatagram VpDatagram;
struct VpDatagram {
	VpDatagram *next;
	struct in_addr from;
	uint16_t port;
	uint32_t length;
	uint8_t bytes[];
};

typedef struct {
	VpSocket socket; /* first, so a VpSocket pointer is this record's */
	VpDatagram *first, *last;
	uint32_t waiting, limit;
	uint8_t errorReported;
} VpUdp;

void xs_vp_udp_destructor(void *data);
static void vpUdpMarkHook(xsMachine *the, void *data, xsMarkRoot markRoot);

static const xsHostHooks vpUdpHooks = {
	xs_vp_udp_destructor,
	vpUdpMarkHook,
	NULL
};

static const char *const vpUdpCallbackNames[VP_CALLBACKS] = { "onReadable", NULL, "onError" };

/* One receive buffer for every socket: the main loop runs one callback at a time. */
static uint8_t vpUdpScratch[VP_DATAGRAM_MAX + 1];

static void vpUdpRewatch(VpUdp *udp)
{
	int reading = udp->socket.open && !udp->errorReported && (udp->waiting < udp->limit);
	vpSocketWatch(&udp->socket, reading ? G_IO_IN : 0);
}

static gboolean vpUdpReady(gint fd, GIOCondition condition, gpointer data)
{
	VpUdp *udp = data;
	VpSocket *socket = &udp->socket;
	uint32_t before = udp->waiting;
	int failed = 0;
	vpSocketHold(socket);
	while (udp->waiting < udp->limit) {
		struct sockaddr_in from;
		socklen_t fromLength = sizeof(from);
		ssize_t got = recvfrom(fd, vpUdpScratch, sizeof(vpUdpScratch), MSG_DONTWAIT, (struct sockaddr *)&from, &fromLength);
		if (got < 0) {
			/* An ICMP unreachable for something sent before, or an interrupt: the socket goes on. */
			if ((errno == EINTR) || (errno == ECONNREFUSED) || (errno == EHOSTUNREACH) || (errno == ENETUNREACH))
				continue;
			if ((errno != EAGAIN) && (errno != EWOULDBLOCK))
				failed = 1;
			break;
		}
		if ((size_t)got > VP_DATAGRAM_MAX)
			continue; /* cannot be over IPv4; never handed on cut */
		VpDatagram *datagram = malloc(sizeof(VpDatagram) + (size_t)got);
		if (!datagram)
			break;
		datagram->next = NULL;
		datagram->from = from.sin_addr;
		datagram->port = ntohs(from.sin_port);
		datagram->length = (uint32_t)got;
		memcpy(datagram->bytes, vpUdpScratch, (size_t)got);
		if (udp->last)
			udp->last->next = datagram;
		else
			udp->first = datagram;
		udp->last = datagram;
		udp->waiting += 1;
	}
	if (failed)
		udp->errorReported = 1;
	vpUdpRewatch(udp);
	int stillOpen = socket->open;
	if (stillOpen && (udp->waiting > before))
		stillOpen = vpSocketCall(socket, VP_ON_READABLE, 1, udp->waiting);
	if (stillOpen && failed)
		vpSocketCall(socket, VP_ON_ERROR, 0, 0);
	vpSocketRelease(socket);
	return G_SOURCE_CONTINUE;
}

static void vpUdpDropWaiting(VpUdp *udp)
{
	while (udp->first) {
		VpDatagram *datagram = udp->first;
		udp->first = datagram->next;
		free(datagram);
	}
	udp->last = NULL;
	udp->waiting = 0;
}

static void vpUdpFinalize(VpSocket *socket)
{
	vpUdpDropWaiting((VpUdp *)socket);
	free(socket);
}

void xs_vp_udp_destructor(void *data)
{
	if (data)
		vpSocketObjectGone(data, 0);
}

static void vpUdpMarkHook(xsMachine *the, void *data, xsMarkRoot markRoot)
{
	vpSocketMark(the, data, markRoot);
}

static VpUdp *vpUdpOf(xsMachine *the, const char *call)
{
	VpUdp *udp = xsmcGetHostDataValidate(xsThis, (void *)&vpUdpHooks);
	if (!udp->socket.open)
		xsUnknownError("%s: the socket is closed", call);
	return udp;
}

/*
 * Joins (or leaves) `group` on every interface that is up, IPv4 and multicast-capable; with none
 * (or none that accepts), on the one the kernel picks. Joining a group twice is not an error.
 */
static void vpUdpMembership(xsMachine *the, VpUdp *udp, struct in_addr group, int join)
{
	int option = join ? IP_ADD_MEMBERSHIP : IP_DROP_MEMBERSHIP;
	int done = 0, lastError = 0;
	struct ifaddrs *interfaces = NULL;
	if (getifaddrs(&interfaces) == 0) {
		for (struct ifaddrs *at = interfaces; at; at = at->ifa_next) {
			if (!at->ifa_addr || (at->ifa_addr->sa_family != AF_INET))
				continue;
			if (!(at->ifa_flags & IFF_UP) || !(at->ifa_flags & IFF_MULTICAST))
				continue;
			struct ip_mreqn request;
			memset(&request, 0, sizeof(request));
			request.imr_multiaddr = group;
			request.imr_address = ((struct sockaddr_in *)at->ifa_addr)->sin_addr;
			request.imr_ifindex = (int)if_nametoindex(at->ifa_name);
			if (setsockopt(udp->socket.fd, IPPROTO_IP, option, &request, sizeof(request)) == 0)
				done += 1;
			else if (join && (errno == EADDRINUSE))
				done += 1;
			else
				lastError = errno;
		}
		freeifaddrs(interfaces);
	}
	if (done)
		return;
	struct ip_mreqn request;
	memset(&request, 0, sizeof(request));
	request.imr_multiaddr = group;
	if ((setsockopt(udp->socket.fd, IPPROTO_IP, option, &request, sizeof(request)) == 0) || (join && (errno == EADDRINUSE)))
		return;
	if (!lastError)
		lastError = errno;
	char text[INET_ADDRSTRLEN];
	inet_ntop(AF_INET, &group, text, sizeof(text));
	xsUnknownError("%s %s: %s", join ? "add" : "remove", text, strerror(lastError));
}

static struct in_addr vpUdpGroup(xsMachine *the, xsSlot *value, const char *call)
{
	struct in_addr group;
	if (xsmcTypeOf(*value) != xsStringType)
		xsTypeError("%s: a multicast IPv4 address string expected", call);
	if ((inet_pton(AF_INET, xsmcToString(*value), &group) != 1) || !IN_MULTICAST(ntohl(group.s_addr)))
		xsRangeError("%s: not a multicast IPv4 address", call);
	return group;
}

/* new UDP(options) (vp-udp.js passes options and socketUdpQueue): bound, or a throw. */
void xs_vp_udp_constructor(xsMachine *the)
{
	vpNeedArgs(the, 2, "UDP(options, queue)");
	xsmcVars(1); /* xsVar(0): scratch for the options' values */
	if (xsmcTypeOf(xsArg(0)) != xsReferenceType)
		xsTypeError("UDP: options must be an object");
	uint32_t limit = vpSocketLimit(the, &xsArg(1), "socketUdpQueue");
	struct sockaddr_in at = vpSocketBindAddress(the, &xsArg(0), &xsVar(0));
	int multicast = 0;
	struct in_addr group;
	if (xsmcHas(xsArg(0), xsID("multicast"))) {
		xsmcGet(xsVar(0), xsArg(0), xsID("multicast"));
		if (xsmcTypeOf(xsVar(0)) != xsUndefinedType) {
			group = vpUdpGroup(the, &xsVar(0), "multicast");
			multicast = 1;
		}
	}
	int ttl = -1;
	if (xsmcHas(xsArg(0), xsID("timeToLive"))) {
		xsmcGet(xsVar(0), xsArg(0), xsID("timeToLive"));
		if (xsmcTypeOf(xsVar(0)) != xsUndefinedType) {
			ttl = xsmcToInteger(xsVar(0));
			if ((ttl < 1) || (ttl > 255))
				xsRangeError("timeToLive: %d: 1-255", ttl);
		}
	}

	VpUdp *udp = calloc(1, sizeof(VpUdp));
	if (!udp)
		xsUnknownError("UDP: no memory");
	vpSocketInit(&udp->socket, the, vpUdpReady, NULL, vpUdpFinalize);
	udp->limit = limit;
	xsmcSetHostData(xsThis, udp);
	xsSetHostHooks(xsThis, (xsHostHooks *)&vpUdpHooks);

	vpSocketBind(the, &udp->socket, SOCK_DGRAM, &at, multicast, "UDP");
	int fd = udp->socket.fd;
	if (ttl > 0) {
		unsigned char multicastTtl = (unsigned char)ttl;
		setsockopt(fd, IPPROTO_IP, IP_TTL, &ttl, sizeof(ttl));
		setsockopt(fd, IPPROTO_IP, IP_MULTICAST_TTL, &multicastTtl, sizeof(multicastTtl));
	}
	if (multicast)
		vpUdpMembership(the, udp, group, 1);

	vpSocketOpen(the, &udp->socket, &xsArg(0), vpUdpCallbackNames);
	vpUdpRewatch(udp);
}

void xs_vp_udp_close(xsMachine *the)
{
	VpUdp *udp = xsmcGetHostDataValidate(xsThis, (void *)&vpUdpHooks);
	if (!udp->socket.open)
		return;
	vpSocketEndJavaScript(&udp->socket);
	vpUdpDropWaiting(udp);
	vpSocketShut(&udp->socket);
}

/* read() -> the next datagram: an ArrayBuffer with the sender's `address` and `port`; undefined when none waits. */
void xs_vp_udp_read(xsMachine *the)
{
	VpUdp *udp = vpUdpOf(the, "read");
	VpDatagram *datagram = udp->first;
	if (!datagram)
		return;
	char address[INET_ADDRSTRLEN];
	inet_ntop(AF_INET, &datagram->from, address, sizeof(address));
	xsmcVars(1);
	xsmcSetArrayBuffer(xsResult, datagram->bytes, datagram->length);
	xsmcSetString(xsVar(0), address);
	xsmcSet(xsResult, xsID("address"), xsVar(0));
	xsmcSetInteger(xsVar(0), datagram->port);
	xsmcSet(xsResult, xsID("port"), xsVar(0));
	udp->first = datagram->next;
	if (!udp->first)
		udp->last = NULL;
	udp->waiting -= 1;
	free(datagram);
	vpUdpRewatch(udp);
}

/* write(bytes, address, port): one datagram; a full buffer or an unreachable network throws. */
void xs_vp_udp_write(xsMachine *the)
{
	vpNeedArgs(the, 3, "write(bytes, address, port)");
	VpUdp *udp = vpUdpOf(the, "write");
	struct sockaddr_in to;
	memset(&to, 0, sizeof(to));
	to.sin_family = AF_INET;
	if ((xsmcTypeOf(xsArg(1)) != xsStringType) || (inet_pton(AF_INET, xsmcToString(xsArg(1)), &to.sin_addr) != 1))
		xsTypeError("write: address must be a dotted IPv4 address");
	xsNumberValue port = xsmcToNumber(xsArg(2));
	if (!(port >= 1) || (port > 65535) || (port != (xsNumberValue)(int)port))
		xsRangeError("write: port must be 1-65535");
	to.sin_port = htons((uint16_t)port);
	void *data;
	xsUnsignedValue length;
	xsmcGetBufferReadable(xsArg(0), &data, &length);
	if (sendto(udp->socket.fd, data, length, MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *)&to, sizeof(to)) < 0)
		vpSocketStrError(the, "write: sendto", errno);
}

/* add(group): joins a multicast group (see the header comment). */
void xs_vp_udp_add(xsMachine *the)
{
	vpNeedArgs(the, 1, "add(group)");
	VpUdp *udp = vpUdpOf(the, "add");
	vpUdpMembership(the, udp, vpUdpGroup(the, &xsArg(0), "add"), 1);
}

/* remove(group): leaves a multicast group. */
void xs_vp_udp_remove(xsMachine *the)
{
	vpNeedArgs(the, 1, "remove(group)");
	VpUdp *udp = vpUdpOf(the, "remove");
	vpUdpMembership(the, udp, vpUdpGroup(the, &xsArg(0), "remove"), 0);
}
