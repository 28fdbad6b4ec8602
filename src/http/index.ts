// The HTTP/1.x and RTSP/1.0 message layer: parser, writer, headers, statuses, limits, dates.

export { lookupLanguage, parseAcceptLanguage, type LanguageRange } from './accept-language';
export { httpDate } from './date';
export { HEADER, Headers, canonicalHeaderName, listTokens, type HeadersInit, type WellKnownHeader } from './headers';
export { DEFAULT_HTTP_LIMITS, resolveHttpLimits, type HttpLimits } from './limits';
export type { BodyFraming, MessageHead, MessageHeadOf, MessageKind, Protocol, ProtocolVersion, RequestHead, ResponseHead } from './message';
export { MessageParser, type BodyEvent, type EndEvent, type ErrorEvent, type HeadEvent, type ParserEvent } from './parser';
export { STATUS, isDefinedStatus, reasonPhrase, statusForbidsBody } from './status';
export { HttpWriteError, writeRequest, writeResponse, type RequestToWrite, type ResponseToWrite } from './writer';
export { ChannelError, MessageAssembler, zeroedBytes, type AssembledEvent, type BodyMode, type ByteAllocator } from './assembler';
export type { SecureChannel } from './secure-channel';
export { applyKeepAlive } from './keep-alive';
export { EVENT_PURPOSE, PTTH, SLIDESHOW_PURPOSE } from './reverse-http';
