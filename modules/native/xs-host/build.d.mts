// Types of build.mjs (the XS test host's build), for the TypeScript tests that call it.

/** Path of the host binary (modules/native/build/xs-host/vp-xsnap-worker). */
export declare const XS_HOST_BINARY: string;
/** Compiles what is stale, links, and resolves to the binary's path; rejects with the compiler's error. */
export declare function buildXsHost(options?: { quiet?: boolean }): Promise<string>;
/**
 * Runs `work` holding the lock file `lock` across processes (created whole and atomically); a
 * caller finding it held waits (`onWait` told once with the holder's pid); a lock whose holder is
 * gone, or older than `staleMs`, is removed.
 */
export declare function withLock<T>(lock: string, work: () => Promise<T>, options?: { staleMs?: number; pollMs?: number; onWait?: (pid: number) => void }): Promise<T>;
