// The wire dialect: every identifier that carries the maker's name, in one table (DESIGN 5).
//
// The spec writes the maker as "Vendor" (X-Vendor-*, _vendorplay._tcp, text/x-vendor-plist+xml).
// Senders in the field use the real maker's identifiers. The receiver speaks one dialect on
// output (advertising and answering) and accepts every dialect's names on input.

export type DialectName = 'vendor' | 'apple';

/** The maker-named identifiers of one dialect. Keys are the protocol's roles for them. */
export interface Dialect {
  readonly name: DialectName;
  /** Service type of the media service (spec 2.1). The audio service `_raop._tcp` has no maker name. */
  readonly serviceType: string;
  /**
   * Product token of the `Server` header. Real receivers answer `AirTunes/<srcvers>`, and some
   * senders look at it; the spec's dialect uses the neutral `VendorTunes`.
   */
  readonly serverProduct: string;
  /** Product name in the `sdk` field of the RTSP /info record (spec 2.11), e.g. `AirPlay;2.0.2`. */
  readonly sdkProduct: string;
  /** Header names, by the suffix the spec gives after `X-Vendor-`. */
  readonly headers: Readonly<Record<MakerHeader, string>>;
  /** MIME types (spec conventions). */
  readonly mime: Readonly<Record<MakerMime, string>>;
}

/** The headers the spec writes as `X-Vendor-<suffix>`. */
type MakerHeader =
  | 'Session-ID'
  | 'Device-ID'
  | 'AssetKey'
  | 'AssetAction'
  | 'Transition'
  | 'Purpose'
  | 'ProtocolVersion';

/** The MIME types whose names carry the maker. */
export type MakerMime =
  /** text/x-vendor-plist+xml: an XML property list. */
  | 'plistXml'
  /** application/x-vendor-binary-plist: a binary property list. */
  | 'plistBinary'
  /** application/x-vendor-plist: an XML property list, used by video events (spec 6). */
  | 'plistEvent';

const MAKER_HEADERS: readonly MakerHeader[] = [
  'Session-ID',
  'Device-ID',
  'AssetKey',
  'AssetAction',
  'Transition',
  'Purpose',
  'ProtocolVersion',
];

function makeDialect(name: DialectName, maker: string, serviceType: string, serverProduct: string, sdkProduct: string): Dialect {
  const lower = maker.toLowerCase();
  const headers = {} as Record<MakerHeader, string>;
  for (const suffix of MAKER_HEADERS) headers[suffix] = `X-${maker}-${suffix}`;
  return {
    name,
    serviceType,
    serverProduct,
    sdkProduct,
    headers,
    mime: {
      plistXml: `text/x-${lower}-plist+xml`,
      plistBinary: `application/x-${lower}-binary-plist`,
      plistEvent: `application/x-${lower}-plist`,
    },
  };
}

/** The table. `vendor` is the spec's naming; `apple` is what real senders in the field use. */
export const DIALECTS: Readonly<Record<DialectName, Dialect>> = {
  vendor: makeDialect('vendor', 'Vendor', '_vendorplay._tcp', 'VendorTunes', 'VendorPlay'),
  apple: makeDialect('apple', 'Apple', '_airplay._tcp', 'AirTunes', 'AirPlay'),
};

/** The dialects in table order, for readers that try each (no array made per call). */
const DIALECT_LIST: readonly Dialect[] = Object.values(DIALECTS);

export const DEFAULT_DIALECT: DialectName = 'vendor';

export function isDialectName(name: string): name is DialectName {
  return Object.prototype.hasOwnProperty.call(DIALECTS, name);
}

/**
 * The first non-empty value of a maker header in any dialect's spelling, trimmed: requests
 * are read in every dialect (DESIGN 5). `headers` is anything with a case-insensitive `get`.
 */
export function readMakerHeader(headers: { get(name: string): string | undefined }, suffix: MakerHeader): string | undefined {
  for (const dialect of DIALECT_LIST) {
    const value = headers.get(dialect.headers[suffix]);
    if (value === undefined) continue;
    const trimmed = value.trim();
    if (trimmed) return trimmed;
  }
  return undefined;
}
