/*
 * The argument check every native of modules/native/ starts with. XS checks xsArg's index only
 * in builds with mxBoundsCheck, and then throws "C: xsArg(4): invalid index"; the SDK's device
 * and simulator builds read whatever lies past the caller's arguments. So each native names its
 * call and how many arguments it takes, and a call with fewer is a TypeError that says so:
 * `aeadSeal(key, nonce, aad, buffer, length): 5 arguments needed, 3 given`.
 */

#ifndef VP_ARGS_H
#define VP_ARGS_H

#include "xsmc.h"

static inline void vpNeedArgs(xsMachine *the, xsIntegerValue count, const char *call)
{
	if (xsmcArgc < count)
		xsTypeError("%s: %d arguments needed, %d given", call, (int)count, (int)xsmcArgc);
}

#endif
