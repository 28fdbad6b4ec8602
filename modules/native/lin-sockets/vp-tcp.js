// embedded:io/socket/tcp on the Linux port (the simulator, Linux media boards): ECMA-419 TCP
// sockets served from the GLib main loop (vp-tcp.c), with the sizes of this build's config
// (manifest.json beside this file sets them; mcconfig's `socketReadBytes=...` changes one).
// Format "buffer" only (what the hosts use); callbacks are called with `this` the socket.

import config from "mc/config";

const READ_BYTES = config.socketReadBytes;
const WRITE_BYTES = config.socketWriteBytes;
const LINGER_MS = config.socketLingerMs;

class TCP extends Native("xs_vp_tcp_destructor") {
	constructor(options) {
		super();
		if ((options?.format !== undefined) && (options.format !== "buffer"))
			throw new RangeError(`format ${options.format}: only "buffer"`);
		native("xs_vp_tcp_constructor").call(this, options, READ_BYTES, WRITE_BYTES, LINGER_MS);
		if (options?.target !== undefined)
			this.target = options.target;
	}
	close() {
		return native("xs_vp_tcp_close").call(this);
	}
	read(...bufferOrCount) {
		return native("xs_vp_tcp_read").call(this, ...bufferOrCount);
	}
	write(...bytes) {
		return native("xs_vp_tcp_write").call(this, ...bytes);
	}
	get remoteAddress() {
		return native("xs_vp_tcp_get_remote_address").call(this);
	}
	get remotePort() {
		return native("xs_vp_tcp_get_remote_port").call(this);
	}
	get format() {
		return "buffer";
	}
	set format(value) {
		if (value !== "buffer")
			throw new RangeError(`format ${value}: only "buffer"`);
	}
}

export default TCP;
