// embedded:io/socket/udp on the Linux port: ECMA-419 UDP sockets served from the GLib main loop
// (vp-udp.c), every waiting datagram read at once, multicast groups joined with add(group).

import config from "mc/config";

const QUEUE = config.socketUdpQueue;

class UDP extends Native("xs_vp_udp_destructor") {
	constructor(options) {
		super();
		if ((options?.format !== undefined) && (options.format !== "buffer"))
			throw new RangeError(`format ${options.format}: only "buffer"`);
		native("xs_vp_udp_constructor").call(this, options, QUEUE);
		if (options?.target !== undefined)
			this.target = options.target;
	}
	close() {
		return native("xs_vp_udp_close").call(this);
	}
	read() {
		return native("xs_vp_udp_read").call(this);
	}
	write(...bytesAddressPort) {
		return native("xs_vp_udp_write").call(this, ...bytesAddressPort);
	}
	add(...group) {
		return native("xs_vp_udp_add").call(this, ...group);
	}
	remove(...group) {
		return native("xs_vp_udp_remove").call(this, ...group);
	}
	get format() {
		return "buffer";
	}
	set format(value) {
		if (value !== "buffer")
			throw new RangeError(`format ${value}: only "buffer"`);
	}
}

export default UDP;
