// Status codes and reason phrases of HTTP (RFC 9110 15, RFC 6585) and RTSP (RFC 2326 7.1.1, RFC 7826 17).

import type { Protocol } from './message';

/** Status codes by name, for code that answers or classifies them. */
export const STATUS = {
  continue: 100,
  switchingProtocols: 101,
  ok: 200,
  created: 201,
  noContent: 204,
  lowOnStorageSpace: 250,
  notModified: 304,
  badRequest: 400,
  unauthorized: 401,
  forbidden: 403,
  notFound: 404,
  methodNotAllowed: 405,
  notAcceptable: 406,
  requestTimeout: 408,
  conflict: 409,
  lengthRequired: 411,
  preconditionFailed: 412,
  contentTooLarge: 413,
  uriTooLong: 414,
  unsupportedMediaType: 415,
  requestHeaderFieldsTooLarge: 431,
  parameterNotUnderstood: 451,
  notEnoughBandwidth: 453,
  sessionNotFound: 454,
  methodNotValidInThisState: 455,
  headerFieldNotValidForResource: 456,
  invalidRange: 457,
  parameterIsReadOnly: 458,
  aggregateOperationNotAllowed: 459,
  onlyAggregateOperationAllowed: 460,
  unsupportedTransport: 461,
  connectionAuthorizationRequired: 470,
  internalServerError: 500,
  notImplemented: 501,
  serviceUnavailable: 503,
  versionNotSupported: 505,
  optionNotSupported: 551,
} as const;

/**
 * The reason phrases, per protocol. A code absent from one protocol's column is not defined
 * there. RTSP 1.0 reuses most HTTP/1.1 codes but with RFC 2326's older phrases (413 "Request
 * Entity Too Large", 505 "RTSP Version not supported"); codes RFC 7826 added (463 to 472, 553)
 * are included because RTSP/1.0 receivers in the field answer them, 470 above all (pairing).
 */
const PHRASES: Readonly<Record<number, { readonly http?: string; readonly rtsp?: string }>> = {
  100: { http: 'Continue', rtsp: 'Continue' },
  101: { http: 'Switching Protocols' },
  200: { http: 'OK', rtsp: 'OK' },
  201: { http: 'Created', rtsp: 'Created' },
  202: { http: 'Accepted' },
  204: { http: 'No Content' },
  206: { http: 'Partial Content' },
  250: { rtsp: 'Low on Storage Space' },
  300: { http: 'Multiple Choices', rtsp: 'Multiple Choices' },
  301: { http: 'Moved Permanently', rtsp: 'Moved Permanently' },
  302: { http: 'Found', rtsp: 'Moved Temporarily' },
  303: { http: 'See Other', rtsp: 'See Other' },
  304: { http: 'Not Modified', rtsp: 'Not Modified' },
  305: { http: 'Use Proxy', rtsp: 'Use Proxy' },
  307: { http: 'Temporary Redirect' },
  308: { http: 'Permanent Redirect' },
  400: { http: 'Bad Request', rtsp: 'Bad Request' },
  401: { http: 'Unauthorized', rtsp: 'Unauthorized' },
  402: { http: 'Payment Required', rtsp: 'Payment Required' },
  403: { http: 'Forbidden', rtsp: 'Forbidden' },
  404: { http: 'Not Found', rtsp: 'Not Found' },
  405: { http: 'Method Not Allowed', rtsp: 'Method Not Allowed' },
  406: { http: 'Not Acceptable', rtsp: 'Not Acceptable' },
  407: { http: 'Proxy Authentication Required', rtsp: 'Proxy Authentication Required' },
  408: { http: 'Request Timeout', rtsp: 'Request Time-out' },
  409: { http: 'Conflict' },
  410: { http: 'Gone', rtsp: 'Gone' },
  411: { http: 'Length Required', rtsp: 'Length Required' },
  412: { http: 'Precondition Failed', rtsp: 'Precondition Failed' },
  413: { http: 'Content Too Large', rtsp: 'Request Entity Too Large' },
  414: { http: 'URI Too Long', rtsp: 'Request-URI Too Large' },
  415: { http: 'Unsupported Media Type', rtsp: 'Unsupported Media Type' },
  416: { http: 'Range Not Satisfiable' },
  417: { http: 'Expectation Failed' },
  421: { http: 'Misdirected Request' },
  422: { http: 'Unprocessable Content' },
  426: { http: 'Upgrade Required' },
  428: { http: 'Precondition Required' },
  429: { http: 'Too Many Requests' },
  431: { http: 'Request Header Fields Too Large' },
  451: { http: 'Unavailable For Legal Reasons', rtsp: 'Parameter Not Understood' },
  452: { rtsp: 'Conference Not Found' },
  453: { rtsp: 'Not Enough Bandwidth' },
  454: { rtsp: 'Session Not Found' },
  455: { rtsp: 'Method Not Valid in This State' },
  456: { rtsp: 'Header Field Not Valid for Resource' },
  457: { rtsp: 'Invalid Range' },
  458: { rtsp: 'Parameter Is Read-Only' },
  459: { rtsp: 'Aggregate operation not allowed' },
  460: { rtsp: 'Only aggregate operation allowed' },
  461: { rtsp: 'Unsupported transport' },
  462: { rtsp: 'Destination unreachable' },
  463: { rtsp: 'Destination Prohibited' },
  464: { rtsp: 'Data Transport Not Ready Yet' },
  465: { rtsp: 'Notification Reason Unknown' },
  466: { rtsp: 'Key Management Error' },
  470: { rtsp: 'Connection Authorization Required' },
  471: { rtsp: 'Connection Credentials Not Accepted' },
  472: { rtsp: 'Failure to Establish Secure Connection' },
  500: { http: 'Internal Server Error', rtsp: 'Internal Server Error' },
  501: { http: 'Not Implemented', rtsp: 'Not Implemented' },
  502: { http: 'Bad Gateway', rtsp: 'Bad Gateway' },
  503: { http: 'Service Unavailable', rtsp: 'Service Unavailable' },
  504: { http: 'Gateway Timeout', rtsp: 'Gateway Time-out' },
  505: { http: 'HTTP Version Not Supported', rtsp: 'RTSP Version not supported' },
  551: { rtsp: 'Option not supported' },
  553: { rtsp: 'Proxy Unavailable' },
};

/**
 * The reason phrase for `status` in `protocol`. A code the protocol does not define borrows the
 * other protocol's phrase (receivers in the field answer HTTP requests with 470 and
 * "Connection Authorization Required"); an unknown code gets the empty phrase, which both
 * grammars allow (RFC 9112 4, RFC 2326 7.1).
 */
export function reasonPhrase(status: number, protocol: Protocol = 'HTTP'): string {
  const entry = PHRASES[status];
  if (!entry) return '';
  const own = protocol === 'RTSP' ? entry.rtsp : entry.http;
  return own ?? entry.http ?? entry.rtsp ?? '';
}

/** True when `protocol` defines `status` (as opposed to borrowing a phrase or not knowing it). */
export function isDefinedStatus(status: number, protocol: Protocol): boolean {
  const entry = PHRASES[status];
  return entry !== undefined && (protocol === 'RTSP' ? entry.rtsp : entry.http) !== undefined;
}

/** RFC 9110 6.4.1 and RFC 2326 4.3: responses with these codes never carry a body. */
export function statusForbidsBody(status: number): boolean {
  return (status >= 100 && status < 200) || status === 204 || status === 304;
}
