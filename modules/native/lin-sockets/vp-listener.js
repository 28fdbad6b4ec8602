// embedded:io/socket/listener on the Linux port: an ECMA-419 TCP listener served from the GLib
// main loop (vp-listener.c). read() gives a waiting connection as a TCP socket of
// embedded:io/socket/tcp (vp-tcp.js), for `new TCP({from})`.

import TCP from "embedded:io/socket/tcp";
import config from "mc/config";

const ACCEPT_QUEUE = config.socketAcceptQueue;

class Listener extends Native("xs_vp_listener_destructor") {
	constructor(options) {
		super();
		native("xs_vp_listener_constructor").call(this, options, ACCEPT_QUEUE);
		if (options?.target !== undefined)
			this.target = options.target;
	}
	close() {
		return native("xs_vp_listener_close").call(this);
	}
	read() {
		return native("xs_vp_listener_read").call(this, new TCP);
	}
	get port() {
		return native("xs_vp_listener_get_port").call(this);
	}
	get format() {
		return "socket/tcp";
	}
	set format(value) {
		if (value !== "socket/tcp")
			throw new RangeError(`format ${value}: only "socket/tcp"`);
	}
}

export default Listener;
