// The property-list package: value model, XML and binary codecs, text/parameters, dotted paths.

export * from './value';
export * from './xml';
export * from './binary';
export * from './any';
export * from './parameters';
export * from './path';
